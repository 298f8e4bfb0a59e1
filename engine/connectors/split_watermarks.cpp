#include "engine/connectors/split_watermarks.h"

#include <algorithm>

namespace eosim::engine {

void SplitWatermarks::add_split(int32_t split, int64_t max_timestamp, sim::Time now) {
    splits_[split] = Split{max_timestamp, now, false};
}

void SplitWatermarks::record_read(int32_t split, int64_t timestamp, sim::Time now) {
    Split& s = splits_.at(split);
    s.max_timestamp = std::max(s.max_timestamp, timestamp);
    s.last_record = now;
}

void SplitWatermarks::split_finished(int32_t split) { splits_.at(split).finished = true; }

int64_t SplitWatermarks::max_timestamp(int32_t split) const {
    auto it = splits_.find(split);
    return it == splits_.end() ? kMinWatermark : it->second.max_timestamp;
}

int64_t SplitWatermarks::split_watermark(int64_t max_timestamp, sim::Duration bound) {
    if (max_timestamp == kMinWatermark) return kMinWatermark;
    const int64_t lowest = kMinWatermark + bound.millis_count() + 1;
    return max_timestamp < lowest ? kMinWatermark : max_timestamp - bound.millis_count() - 1;
}

SplitWatermarks::Combined SplitWatermarks::current(sim::Time now) const {
    Combined out;
    bool any_active = false;
    int64_t minimum = kMaxWatermark;
    for (const auto& [id, s] : splits_) {
        if (s.finished) continue;
        if (spec_.idle_timeout && now - s.last_record >= *spec_.idle_timeout) continue;
        any_active = true;
        minimum = std::min(minimum, split_watermark(s.max_timestamp, spec_.out_of_orderness));
    }
    out.idle = !any_active;
    out.watermark = any_active ? minimum : kMinWatermark;
    return out;
}

}  // namespace eosim::engine
