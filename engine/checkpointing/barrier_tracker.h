#pragma once
// At-least-once barrier handling (Flink's CheckpointBarrierTracker): counts the barriers of each
// checkpoint in a bounded deque of (checkpoint id, count) and snapshots when a checkpoint's count
// reaches the number of channels. It never blocks a channel. As in Flink, only a checkpoint newer
// than every one seen so far starts a count (an older one was skipped by some channel and can no
// longer complete), so the deque only grows at its back. When a checkpoint completes, older ones
// still counting are dropped (they are subsumed).
//
// Like Flink's tracker it remembers checkpoints cancelled before their first barrier came (an
// abort notice from the coordinator, or an in-band cancellation marker from an upstream task that
// declined): their barriers are ignored. A marker is declined downstream in turn, once. A channel
// whose partition ended no longer counts.
#include <cstdint>
#include <deque>
#include <set>

#include "engine/checkpointing/barrier_handler.h"

namespace eosim::engine {

class BarrierTracker final : public BarrierHandler {
public:
    static constexpr size_t kMaxTracked = 50;

    BarrierTracker(int32_t channels, BarrierHandlerController& controller) : controller_(controller), channels_(channels) {}

    void barrier_received(int32_t channel, const CheckpointBarrier& barrier) override;
    using BarrierHandler::barrier_received;
    void cancellation_marker_received(int32_t channel, int64_t checkpoint_id) override;
    void checkpoint_aborted(int64_t checkpoint_id) override;
    void end_of_partition(int32_t channel) override;
    int64_t pending_checkpoint() const override { return tracked_.empty() ? 0 : tracked_.back().checkpoint_id; }
    const char* name() const override { return "tracker"; }

private:
    struct Tracked {
        int64_t checkpoint_id;
        int32_t barriers;
    };

    void complete(std::deque<Tracked>::iterator it);

    BarrierHandlerController& controller_;
    int32_t channels_;  // open channels
    int64_t newest_seen_ = 0;  // the newest checkpoint whose first barrier (or cancellation) arrived
    std::set<int64_t> aborted_ahead_;  // aborted by the coordinator before their first barrier came
    std::deque<Tracked> tracked_;  // ascending checkpoint ids
};

}  // namespace eosim::engine
