#pragma once
// At-least-once barrier handling (Flink's CheckpointBarrierTracker): counts the barriers of each
// checkpoint in a bounded deque of (checkpoint id, count) and snapshots when a checkpoint's count
// reaches the number of channels. It never blocks a channel. As in Flink, only a checkpoint newer
// than every one seen so far starts a count (an older one was skipped by some channel and can no
// longer complete), so the deque only grows at its back. When a checkpoint completes, older ones
// still counting are dropped (they are subsumed).
#include <cstdint>
#include <deque>

#include "engine/checkpointing/barrier_handler.h"

namespace eosim::engine {

class BarrierTracker final : public BarrierHandler {
public:
    static constexpr size_t kMaxTracked = 50;

    BarrierTracker(int32_t channels, BarrierHandlerController& controller) : controller_(controller), channels_(channels) {}

    void barrier_received(int32_t channel, int64_t checkpoint_id) override;
    void checkpoint_aborted(int64_t checkpoint_id) override;
    int64_t pending_checkpoint() const override { return tracked_.empty() ? 0 : tracked_.back().checkpoint_id; }
    const char* name() const override { return "tracker"; }

private:
    struct Tracked {
        int64_t checkpoint_id;
        int32_t barriers;
    };

    BarrierHandlerController& controller_;
    int32_t channels_;
    int64_t newest_seen_ = 0;  // the newest checkpoint whose first barrier arrived
    std::deque<Tracked> tracked_;  // ascending checkpoint ids
};

}  // namespace eosim::engine
