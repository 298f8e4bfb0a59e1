#include "engine/state/timer_service.h"

#include <algorithm>

namespace eosim::engine {

namespace {

StateKey timer_cell(int32_t state, int64_t key, int64_t ns, int64_t time) {
    return StateKey{key, state, time, ns};
}

}  // namespace

TimerService::TimerService(KeyedStateBackend& state) : state_(state) {}

void TimerService::register_event_time_timer(int64_t key, int64_t ns, int64_t time) {
    add(kEventTimerState, event_time_, key, ns, time);
}

void TimerService::delete_event_time_timer(int64_t key, int64_t ns, int64_t time) {
    erase(kEventTimerState, event_time_, key, ns, time);
}

void TimerService::register_processing_time_timer(int64_t key, int64_t ns, int64_t time) {
    add(kProcessingTimerState, processing_time_, key, ns, time);
}

void TimerService::delete_processing_time_timer(int64_t key, int64_t ns, int64_t time) {
    erase(kProcessingTimerState, processing_time_, key, ns, time);
}

void TimerService::advance_watermark(int64_t watermark, const Fire& fire) {
    watermark_ = std::max(watermark_, watermark);
    fire_until(kEventTimerState, event_time_, watermark_, fire);
}

int64_t TimerService::current_watermark() const { return watermark_; }

void TimerService::advance_processing_time(int64_t now, const Fire& fire) {
    fire_until(kProcessingTimerState, processing_time_, now, fire);
}

std::optional<int64_t> TimerService::next_processing_time() const {
    if (processing_time_.empty()) return std::nullopt;
    return std::get<0>(*processing_time_.begin());
}

void TimerService::restored() {
    watermark_ = kMinWatermark;
    rebuild(kEventTimerState, event_time_);
    rebuild(kProcessingTimerState, processing_time_);
}

void TimerService::add(int32_t state, std::set<Timer>& index, int64_t key, int64_t ns,
                       int64_t time) {
    if (!index.insert(Timer{time, key, ns}).second) return;
    state_.put(timer_cell(state, key, ns, time), 1);
}

void TimerService::erase(int32_t state, std::set<Timer>& index, int64_t key, int64_t ns,
                         int64_t time) {
    if (index.erase(Timer{time, key, ns}) == 0) return;
    state_.remove(timer_cell(state, key, ns, time));
}

// One timer at a time, the earliest first: `fire` may register (or delete) timers, and one it
// registers at or below `time` fires in this same call.
void TimerService::fire_until(int32_t state, std::set<Timer>& index, int64_t time,
                              const Fire& fire) {
    while (!index.empty() && std::get<0>(*index.begin()) <= time) {
        const auto [at, key, ns] = *index.begin();
        index.erase(index.begin());
        state_.remove(timer_cell(state, key, ns, at));
        fire(key, ns, at);
    }
}

void TimerService::rebuild(int32_t state, std::set<Timer>& index) {
    index.clear();
    state_.scan_state(state, [&index](const StateKey& cell, int64_t /*value*/) {
        index.insert(Timer{cell.ns, cell.key, cell.item});
    });
}

}  // namespace eosim::engine
