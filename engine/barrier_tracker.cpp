#include "engine/barrier_tracker.h"

#include <algorithm>

namespace eosim::engine {

void BarrierTracker::barrier_received(int32_t /*channel*/, int64_t checkpoint_id) {
    if (checkpoint_id <= last_completed_) return;
    auto it = tracked_.begin();
    while (it != tracked_.end() && it->checkpoint_id < checkpoint_id) ++it;
    if (it == tracked_.end() || it->checkpoint_id != checkpoint_id) {
        if (tracked_.size() == kMaxTracked) tracked_.pop_front();  // the oldest can no longer complete
        it = tracked_.insert(std::find_if(tracked_.begin(), tracked_.end(),
                                          [&](const Tracked& t) { return t.checkpoint_id > checkpoint_id; }),
                             Tracked{checkpoint_id, 0});
    }
    if (++it->barriers < channels_) return;
    last_completed_ = checkpoint_id;
    tracked_.erase(tracked_.begin(), it + 1);
    controller_.trigger_snapshot(checkpoint_id);
}

void BarrierTracker::checkpoint_aborted(int64_t checkpoint_id) {
    std::erase_if(tracked_, [&](const Tracked& t) { return t.checkpoint_id == checkpoint_id; });
}

}  // namespace eosim::engine
