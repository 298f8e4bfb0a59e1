#include "engine/runtime/dedup_operator.h"

namespace eosim::engine {

namespace {
constexpr int64_t kTimerNamespace = 0;  // one period per key: one timer namespace
}

bool dedup_keeps(std::optional<int64_t> period_start, int64_t timestamp, int64_t bound_ms) {
    return !period_start || timestamp >= *period_start + bound_ms;
}

DedupOperator::DedupOperator(int64_t bound_ms, std::unique_ptr<KeyedStateBackend> state)
    : bound_ms_(bound_ms), state_(std::move(state)), timers_(*state_) {}

TimerService& DedupOperator::timers() {
    if (!timers_ready_) {
        timers_.restored();
        timers_ready_ = true;
    }
    return timers_;
}

void DedupOperator::process(int32_t, const Record& in, const Emit& out) {
    const std::optional<int64_t> period_start = state_->get(StateKey{in.key});
    if (!dedup_keeps(period_start, in.timestamp, bound_ms_)) return;
    if (period_start)
        timers().delete_event_time_timer(in.key, kTimerNamespace, *period_start + bound_ms_);
    state_->put(StateKey{in.key}, in.timestamp);
    timers().register_event_time_timer(in.key, kTimerNamespace, in.timestamp + bound_ms_);
    out(in);
}

void DedupOperator::advance_watermark(int64_t watermark, const Emit&) {
    timers().advance_watermark(watermark, [this](int64_t key, int64_t, int64_t time) {
        // The period that ends at `time` expires (a newer period deleted the older timers).
        const std::optional<int64_t> period_start = state_->get(StateKey{key});
        if (period_start && *period_start + bound_ms_ == time) state_->remove(StateKey{key});
    });
}

}  // namespace eosim::engine
