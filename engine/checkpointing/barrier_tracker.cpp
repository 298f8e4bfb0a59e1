#include "engine/checkpointing/barrier_tracker.h"

#include <algorithm>

namespace eosim::engine {

void BarrierTracker::barrier_received(int32_t /*channel*/, const CheckpointBarrier& barrier) {
    const int64_t checkpoint_id = barrier.checkpoint_id;
    auto it = std::find_if(tracked_.begin(), tracked_.end(),
                           [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
    if (it == tracked_.end()) {
        // Flink's rule: an untracked checkpoint starts a count only when it is newer than every one
        // seen so far. An older one completed, was aborted or evicted, or (a late first barrier)
        // was skipped by the channel that already delivered the newer barrier (barriers travel in
        // order): it can no longer complete here, and tracking it could evict one that still can.
        if (checkpoint_id <= newest_seen_) return;
        newest_seen_ = checkpoint_id;
        const bool aborted = aborted_ahead_.contains(checkpoint_id);
        aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
        if (aborted) return;  // the coordinator aborted it before its first barrier came
        if (tracked_.size() == kMaxTracked) tracked_.pop_front();  // bounded: the oldest is given up
        tracked_.push_back(Tracked{checkpoint_id, 0});
        it = tracked_.end() - 1;
    }
    if (++it->barriers < channels_) return;
    complete(it);
}

void BarrierTracker::complete(std::deque<Tracked>::iterator it) {
    // Complete: every older checkpoint still counting is subsumed by this one.
    const int64_t checkpoint_id = it->checkpoint_id;
    tracked_.erase(tracked_.begin(), it + 1);
    controller_.trigger_snapshot(checkpoint_id);
}

void BarrierTracker::cancellation_marker_received(int32_t /*channel*/, int64_t checkpoint_id) {
    auto it = std::find_if(tracked_.begin(), tracked_.end(),
                           [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
    if (it != tracked_.end()) {
        tracked_.erase(it);
    } else if (checkpoint_id > newest_seen_) {
        newest_seen_ = checkpoint_id;
        aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
    } else {
        return;  // already over here (completed, cancelled, or skipped)
    }
    controller_.abort_checkpoint(checkpoint_id, CheckpointFailureReason::checkpoint_declined_on_cancellation_barrier,
                                 "an upstream task declined the checkpoint (cancellation marker)");
}

void BarrierTracker::checkpoint_aborted(int64_t checkpoint_id) {
    std::erase_if(tracked_, [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
    if (checkpoint_id > newest_seen_) aborted_ahead_.insert(checkpoint_id);
}

void BarrierTracker::end_of_partition(int32_t /*channel*/) {
    --channels_;
    // The newest checkpoint whose count now suffices completes (and subsumes the older ones).
    for (auto it = tracked_.end(); it != tracked_.begin();) {
        --it;
        if (it->barriers >= channels_) {
            complete(it);
            return;
        }
    }
}

}  // namespace eosim::engine
