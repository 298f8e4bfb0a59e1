#include "engine/checkpointing/barrier_tracker.h"

#include <algorithm>

namespace eosim::engine {

void BarrierTracker::barrier_received(int32_t /*channel*/, int64_t checkpoint_id) {
    auto it = std::find_if(tracked_.begin(), tracked_.end(),
                           [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
    if (it == tracked_.end()) {
        // Flink's rule: an untracked checkpoint starts a count only when it is newer than every one
        // seen so far. An older one completed, was aborted or evicted, or (a late first barrier)
        // was skipped by the channel that already delivered the newer barrier (barriers travel in
        // order): it can no longer complete here, and tracking it could evict one that still can.
        if (checkpoint_id <= newest_seen_) return;
        newest_seen_ = checkpoint_id;
        if (tracked_.size() == kMaxTracked) tracked_.pop_front();  // bounded: the oldest is given up
        tracked_.push_back(Tracked{checkpoint_id, 0});
        it = tracked_.end() - 1;
    }
    if (++it->barriers < channels_) return;
    // Complete: every older checkpoint still counting is subsumed by this one.
    tracked_.erase(tracked_.begin(), it + 1);
    controller_.trigger_snapshot(checkpoint_id);
}

void BarrierTracker::checkpoint_aborted(int64_t checkpoint_id) {
    std::erase_if(tracked_, [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
}

}  // namespace eosim::engine
