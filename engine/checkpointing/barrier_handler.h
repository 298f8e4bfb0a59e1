#pragma once
// How a task with input channels reacts to checkpoint barriers. A handler is a small state
// machine; it reaches back into its task only through `BarrierHandlerController`.
//
// - `SingleCheckpointBarrierHandler` (exactly-once; aligned, unaligned, or aligned with a timeout
//   that switches to unaligned): one checkpoint at a time, its situations as states
//   (engine/checkpointing/barrier_handler_states.h).
// - `BarrierTracker` (at-least-once): counts barriers and never blocks a channel: records that
//   overtake the slowest barrier are in the snapshot *and* are replayed after a restore.
//
// Both remember checkpoints the coordinator aborted before their first barrier arrived (the
// abort is a datagram and can overtake barriers stuck behind backpressured data): the barriers
// that come later are ignored, nothing is blocked, nothing is snapshotted.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/job_spec.h"
#include "sim/time.h"

namespace eosim::engine {

// What a barrier tells the task that receives it.
struct CheckpointBarrier {
    int64_t checkpoint_id = 0;
    // Sent as a priority event: it overtook the buffers queued before it, which the sender
    // persisted as channel state. A receiver handles it on arrival and takes the checkpoint
    // unaligned (Flink: CheckpointOptions' alignment type UNALIGNED, or an aligned barrier that
    // timed out upstream and was sent on as unaligned).
    bool unaligned = false;
    // When the coordinator triggered the checkpoint (Flink's CheckpointBarrier timestamp): the
    // aligned-checkpoint timeout counts from here, not from the barrier's arrival.
    sim::Time started = sim::Time::zero();
};

// How the exactly-once handler aligns (from the job's checkpointing configuration).
enum class AlignmentMode : uint8_t {
    aligned,                 // block channels until every barrier arrived
    unaligned,               // snapshot on the first barrier, persist in-flight data
    aligned_then_unaligned,  // aligned, switched to unaligned `alignment_timeout` after the
                             // checkpoint started
};

class BarrierHandlerController {
public:
    virtual ~BarrierHandlerController() = default;
    // The task's clock (virtual time): how long ago a barrier's checkpoint started.
    virtual sim::Time now() const = 0;
    virtual void block_channel(int32_t channel) = 0;
    virtual void unblock_all_channels() = 0;
    // Every live channel delivered barrier `checkpoint_id` (aligned): snapshot and forward the
    // barrier.
    virtual void trigger_snapshot(int64_t checkpoint_id) = 0;
    // This task gives up on `checkpoint_id`: declines it to the coordinator for `reason` and tells
    // its downstream tasks in-band (a cancellation marker), unless it already forwarded the
    // barrier.
    virtual void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason,
                                  const std::string& detail) = 0;

    // ---- unaligned checkpoints (the aligned-only handlers never call these) ----
    // Snapshot now and send the barrier ahead of the queued output buffers (persisted as output
    // channel state). From every input channel whose barrier is still to come (`barrier_in[c]`
    // false), persist the buffers queued and those arriving until its barrier.
    virtual void start_unaligned_snapshot(int64_t /*checkpoint_id*/,
                                          const std::vector<bool>& /*barrier_in*/) {}
    // The barrier of the unaligned checkpoint arrived on `channel`: its channel state is complete.
    virtual void channel_barrier_received(int32_t /*channel*/) {}
    // Every barrier arrived: the channel state is complete; persist it with the operator state.
    virtual void finish_unaligned_snapshot(int64_t /*checkpoint_id*/) {}
    // The unaligned checkpoint ended without completing here: drop its channel state.
    virtual void discard_unaligned_snapshot(int64_t /*checkpoint_id*/) {}
    // Call `alignment_timed_out(checkpoint_id)` on the handler after `delay`.
    virtual void start_alignment_timer(int64_t /*checkpoint_id*/, sim::Duration /*delay*/) {}
};

class BarrierHandler {
public:
    virtual ~BarrierHandler() = default;
    virtual void barrier_received(int32_t channel, const CheckpointBarrier& barrier) = 0;
    void barrier_received(int32_t channel, int64_t checkpoint_id) {
        barrier_received(channel, CheckpointBarrier{checkpoint_id});
    }
    // An upstream task declined `checkpoint_id` and said so in-band (Flink's
    // CancelCheckpointMarker).
    virtual void cancellation_marker_received(int32_t channel, int64_t checkpoint_id) = 0;
    // notifyCheckpointAborted from the coordinator.
    virtual void checkpoint_aborted(int64_t checkpoint_id) = 0;
    // The channel's producer finished its partition: the channel leaves every alignment.
    virtual void end_of_partition(int32_t channel) = 0;
    // The alignment timer of `checkpoint_id` fired (aligned_then_unaligned only).
    virtual void alignment_timed_out(int64_t /*checkpoint_id*/) {}
    // An aligned barrier reached `channel` and waits in its queue behind earlier buffers (Flink's
    // barrier announcement, a priority event the input channel sends on arrival of a timeoutable
    // barrier): in aligned_then_unaligned mode the first one of a checkpoint makes it pending and
    // starts its alignment timer, so the timeout reaches a barrier no task has taken yet. Every
    // other handler ignores it (Flink's tracker does too).
    virtual void barrier_announced(int32_t /*channel*/, const CheckpointBarrier& /*barrier*/) {}
    // The checkpoint being aligned or counted, or 0.
    virtual int64_t pending_checkpoint() const = 0;
    // No barrier of the pending checkpoint was handled yet (none pending, or only announced).
    virtual bool awaiting_first_barrier() const { return pending_checkpoint() == 0; }
    // True while `checkpoint_id` is pending and taken unaligned: its barriers are handled on
    // arrival.
    virtual bool collecting_unaligned(int64_t /*checkpoint_id*/) const { return false; }
    virtual const char* name() const = 0;
};

std::unique_ptr<BarrierHandler> make_barrier_handler(CheckpointingMode mode, int32_t channels,
                                                     BarrierHandlerController& controller);
// The exactly-once handler in the given alignment mode (`alignment_timeout` for
// aligned_then_unaligned).
std::unique_ptr<BarrierHandler> make_barrier_handler(CheckpointingMode mode,
                                                     AlignmentMode alignment,
                                                     sim::Duration alignment_timeout,
                                                     int32_t channels,
                                                     BarrierHandlerController& controller);

}  // namespace eosim::engine
