#pragma once
// How a task with input channels reacts to checkpoint barriers. A handler is a small state
// machine; it reaches back into its task only through `BarrierHandlerController`.
//
// - `BarrierAligner` (exactly-once): stops reading a channel once its barrier arrived and snapshots
//   when every live channel delivered the barrier. Records behind a barrier wait, so the snapshot is
//   a consistent cut.
// - `BarrierTracker` (at-least-once): counts barriers and never blocks a channel: records that
//   overtake the slowest barrier are in the snapshot *and* are replayed after a restore.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/checkpointing/checkpoint_failure_reason.h"
#include "engine/runtime/job_spec.h"

namespace eosim::engine {

class BarrierHandlerController {
public:
    virtual ~BarrierHandlerController() = default;
    virtual void block_channel(int32_t channel) = 0;
    virtual void unblock_all_channels() = 0;
    // Every live channel delivered barrier `checkpoint_id`: snapshot and forward the barrier.
    virtual void trigger_snapshot(int64_t checkpoint_id) = 0;
    // This task gives up on `checkpoint_id` (declines it to the coordinator for `reason`).
    virtual void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail) = 0;
};

class BarrierHandler {
public:
    virtual ~BarrierHandler() = default;
    virtual void barrier_received(int32_t channel, int64_t checkpoint_id) = 0;
    // notifyCheckpointAborted from the coordinator.
    virtual void checkpoint_aborted(int64_t checkpoint_id) = 0;
    // The checkpoint being aligned or counted, or 0.
    virtual int64_t pending_checkpoint() const = 0;
    virtual const char* name() const = 0;
};

std::unique_ptr<BarrierHandler> make_barrier_handler(CheckpointingMode mode, int32_t channels,
                                                     BarrierHandlerController& controller);

}  // namespace eosim::engine
