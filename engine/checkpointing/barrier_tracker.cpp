#include "engine/checkpointing/barrier_tracker.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace eosim::engine {

bool BarrierTracker::Tracked::deliver(int32_t channel) {
    if (std::find(delivered.begin(), delivered.end(), channel) == delivered.end())
        delivered.push_back(channel);
    return static_cast<int32_t>(delivered.size()) >= target;
}

int64_t BarrierTracker::pending_checkpoint() const {
    for (auto it = tracked_.rbegin(); it != tracked_.rend(); ++it) {
        if (!it->aborted) return it->checkpoint_id;
    }
    return 0;
}

std::vector<int64_t> BarrierTracker::tracked_checkpoints() const {
    std::vector<int64_t> ids;
    for (const Tracked& t : tracked_) ids.push_back(t.checkpoint_id);
    return ids;
}

void BarrierTracker::barrier_received(int32_t channel, const CheckpointBarrier& barrier) {
    if (closed_[static_cast<size_t>(channel)]) {
        throw std::logic_error("barrier of checkpoint " + std::to_string(barrier.checkpoint_id) +
                               " on channel " + std::to_string(channel) +
                               " after its end of partition");
    }
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
        tracked_.push_back(Tracked{checkpoint_id, open_channels_, {}, false});
        it = tracked_.end() - 1;
        if (tracked_.size() > kMaxTracked) {  // bounded: the oldest is given up
            tracked_.pop_front();
            it = tracked_.end() - 1;
        }
    }
    if (it->deliver(channel)) complete(it);
}

void BarrierTracker::complete(std::deque<Tracked>::iterator it) {
    // Every older checkpoint still counting is subsumed by this one.
    const int64_t checkpoint_id = it->checkpoint_id;
    const bool aborted = it->aborted;
    tracked_.erase(tracked_.begin(), it + 1);
    if (!aborted) controller_.trigger_snapshot(checkpoint_id);
}

void BarrierTracker::decline_on_cancellation(int64_t checkpoint_id) {
    controller_.abort_checkpoint(
        checkpoint_id, CheckpointFailureReason::checkpoint_declined_on_cancellation_barrier,
        "an upstream task declined the checkpoint (cancellation marker)");
}

void BarrierTracker::cancellation_marker_received(int32_t channel, int64_t checkpoint_id) {
    // Every older checkpoint still counting can no longer complete: the channel that sent the
    // marker skipped it. Each is declined once.
    while (!tracked_.empty() && tracked_.front().checkpoint_id < checkpoint_id) {
        const Tracked older = tracked_.front();
        tracked_.pop_front();
        if (!older.aborted) decline_on_cancellation(older.checkpoint_id);
    }
    if (!tracked_.empty() && tracked_.front().checkpoint_id == checkpoint_id) {
        Tracked& cancelled = tracked_.front();
        if (!cancelled.aborted) {
            cancelled.aborted = true;
            decline_on_cancellation(checkpoint_id);
        }
        if (cancelled.deliver(channel)) tracked_.pop_front();  // every channel had its say
        return;
    }
    if (checkpoint_id <= newest_seen_)
        return;  // already over here (completed, cancelled, or skipped)
    newest_seen_ = checkpoint_id;
    const bool aborted_by_coordinator = aborted_ahead_.contains(checkpoint_id);
    aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
    decline_on_cancellation(checkpoint_id);
    if (aborted_by_coordinator)
        return;  // its barriers are ignored anyway (newer than nothing tracked)
    // Remembered as cancelled, so that its barriers still to come do not start a count.
    Tracked marker{checkpoint_id, open_channels_, {}, true};
    if (!marker.deliver(channel)) tracked_.push_front(std::move(marker));
}

void BarrierTracker::checkpoint_aborted(int64_t checkpoint_id) {
    std::erase_if(tracked_, [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
    if (checkpoint_id > newest_seen_) aborted_ahead_.insert(checkpoint_id);
}

void BarrierTracker::end_of_partition(int32_t channel) {
    if (closed_[static_cast<size_t>(channel)]) return;
    closed_[static_cast<size_t>(channel)] = true;
    --open_channels_;
    // From the newest back: the channel counts as delivered for each pending checkpoint (once, for
    // one that already had its barrier) until one completes, which subsumes the older ones.
    for (auto it = tracked_.end(); it != tracked_.begin();) {
        --it;
        if (it->deliver(channel)) {
            complete(it);
            return;
        }
    }
}

}  // namespace eosim::engine
