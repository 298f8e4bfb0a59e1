#pragma once
// Event-time and processing-time timers of a keyed operator (Flink's InternalTimerService), kept
// in its keyed state (state ids kEventTimerState = -1, kProcessingTimerState = -2; cell {key,
// state, ns = time, item = namespace} -> 1), so they are checkpointed, restored and rescaled with
// their key groups, as Flink keeps timers in the keyed state backend (heap priority queues or a
// RocksDB column family). An in-memory ordered index (time, key, namespace) serves firing;
// restored() rebuilds it from the backend. A timer is identified by (key, namespace, time):
// registering it twice keeps one, as in Flink.
//
// The service does not checkpoint the watermark: the task does (design-14.md), and calls
// advance_watermark(restored) after a restore; the timers at or below it were fired and deleted
// before the snapshot was taken, so none fires twice.
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "engine/state/state_backend.h"

namespace eosim::engine {

// The reserved state ids (operators number their own states from 0 upwards).
inline constexpr int32_t kEventTimerState = -1;
inline constexpr int32_t kProcessingTimerState = -2;

class TimerService {
public:
    static constexpr int64_t kMinWatermark = std::numeric_limits<int64_t>::min();

    explicit TimerService(KeyedStateBackend& state);
    void register_event_time_timer(int64_t key, int64_t ns, int64_t time);
    void delete_event_time_timer(int64_t key, int64_t ns, int64_t time);
    void register_processing_time_timer(int64_t key, int64_t ns, int64_t time);
    void delete_processing_time_timer(int64_t key, int64_t ns, int64_t time);
    using Fire = std::function<void(int64_t key, int64_t ns, int64_t time)>;
    // Removes and fires, in (time, key, ns) order, every event-time timer with time <= watermark,
    // including ones `fire` registers at or below it. Remembers the watermark
    // (current_watermark()). A watermark below the current one (the task never sends one) changes
    // nothing.
    void advance_watermark(int64_t watermark, const Fire& fire);
    int64_t current_watermark() const;  // kMinWatermark before the first advance
    // Removes and fires, in (time, key, ns) order, every processing-time timer with time <= now,
    // including ones `fire` registers at or below it.
    void advance_processing_time(int64_t now, const Fire& fire);
    // The earliest processing-time timer, if any (when the task should call
    // advance_processing_time).
    std::optional<int64_t> next_processing_time() const;
    void restored();  // the backend was restored: rebuild the index from its timer cells

    // The timers registered, in firing order (for tests and reports).
    using Timer = std::tuple<int64_t, int64_t, int64_t>;  // (time, key, namespace)
    const std::set<Timer>& event_time_timers() const { return event_time_; }
    const std::set<Timer>& processing_time_timers() const { return processing_time_; }

private:
    void add(int32_t state, std::set<Timer>& index, int64_t key, int64_t ns, int64_t time);
    void erase(int32_t state, std::set<Timer>& index, int64_t key, int64_t ns, int64_t time);
    void fire_until(int32_t state, std::set<Timer>& index, int64_t time, const Fire& fire);
    void rebuild(int32_t state, std::set<Timer>& index);

    KeyedStateBackend& state_;
    std::set<Timer> event_time_;
    std::set<Timer> processing_time_;
    int64_t watermark_ = kMinWatermark;
};

}  // namespace eosim::engine
