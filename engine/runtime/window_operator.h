#pragma once
// The keyed window operator (OperatorKind::window), after Flink's WindowOperator:
// - time windows (tumbling, sliding) on event time with EventTimeTrigger: a window fires when the
//   watermark reaches its maxTimestamp (end - 1), with the aggregate (count or sum) of its records.
//   With allowed lateness L a window stays until the watermark passes maxTimestamp + L (its cleanup
//   timer purges it then); every record accepted in between fires the window again at once, with
//   the cumulative aggregate. A record late for ALL its windows (each past its cleanup time) goes
//   to the late side output (sideOutputLateData); one late for only some of its (sliding) windows
//   is dropped for those and counted in the others. Result: Record{key, aggregate, 0, insert,
//   timestamp = maxTimestamp}.
// - count windows (countWindow(n): GlobalWindows + CountTrigger.of(n), purging): every n-th record
//   of a key fires its key's window with the aggregate of those n records and empties it. Result
//   timestamp: the n-th record's. Never fires at the end of input (a rest below n is dropped).
// Window contents and timers live in the keyed state (StateKey cells; TimerService), so they are
// checkpointed, restored and rescaled with their key groups. Nothing else is kept: whether a window
// fired follows from the restored watermark and timers (a fired window's timer is deleted; a
// window past cleanup is gone and every later record of it is late).
//
// The pure semantics below (window assignment, lateness, the aggregate fold, the count window's
// step) are free functions that the reference model (oracles/window_model.h) calls too.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/runtime/operators.h"
#include "engine/state/state_backend.h"
#include "engine/state/timer_service.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"

namespace eosim::engine {

// An event-time window [start, end) in milliseconds (Flink's TimeWindow).
struct TimeWindow {
    int64_t start = 0;
    int64_t end = 0;
    int64_t max_timestamp() const { return end - 1; }
    auto operator<=>(const TimeWindow&) const = default;
};

// The windows a record with `timestamp` belongs to: one for tumbling windows, size / slide for
// sliding ones, in Flink's order (latest start first). Windows are aligned to epoch 0 (offset 0);
// negative timestamps are assigned by floor division as Flink's getWindowStartWithOffset does.
std::vector<TimeWindow> assign_windows(const WindowSpec& spec, int64_t timestamp);
// The start of the window of `timestamp` for windows of `slide` ms (tumbling: slide = size).
int64_t window_start(int64_t timestamp, int64_t slide_ms);
// The window that ends at `end` (the namespace a window's state and timers are kept under).
TimeWindow window_ending_at(const WindowSpec& spec, int64_t end);
// maxTimestamp + allowed lateness, saturating (Flink's cleanupTime).
int64_t window_cleanup_time(const WindowSpec& spec, const TimeWindow& window);
// The window is past its cleanup time at `watermark`: a record of it is dropped (isWindowLate).
bool is_window_late(const WindowSpec& spec, const TimeWindow& window, int64_t watermark);
// The record is behind the watermark by more than the allowed lateness (isElementLate): with every
// one of its windows late, it goes to the late side output.
bool is_element_late(const WindowSpec& spec, int64_t timestamp, int64_t watermark);
// The window's aggregate after `in` (current absent: the window's first record).
int64_t fold_window(WindowSpec::Aggregate aggregate, std::optional<int64_t> current,
                    const Record& in);
// The result a firing emits.
Record window_result(int64_t key, const TimeWindow& window, int64_t aggregate);

// A key's count window between firings.
struct CountWindowContents {
    int64_t records = 0;
    int64_t aggregate = 0;
};
// Adds `in` to its key's count window; when that completes the window (spec.size_records records),
// returns the result and empties `contents` (purging trigger).
std::optional<Record> add_to_count_window(const WindowSpec& spec, CountWindowContents& contents,
                                          const Record& in);

// The operator. `fired` (optional) hears of every firing, after its result was emitted, with the
// window's maxTimestamp (count windows: the result's timestamp): the task announces window.fired.
class WindowOperator final : public Operator {
public:
    // Keyed state ids (StateKey::state) of the window's cells.
    static constexpr int32_t kWindowContentsState = 1;  // {key, 1, ns = window end, 0} -> aggregate
    static constexpr int32_t kCountRecordsState =
        2;  // count windows: {key, 2, 0, 0} -> records so far
    static constexpr int32_t kCountAggregateState =
        3;  // count windows: {key, 3, 0, 0} -> aggregate so far

    WindowOperator(WindowSpec spec, std::unique_ptr<KeyedStateBackend> state);
    void process(int32_t input, const Record& in, const Emit& out) override;
    void advance_watermark(int64_t watermark, const Emit& out) override;
    KeyedStateBackend* keyed_state() override { return state_.get(); }
    void set_fired_listener(std::function<void(int64_t max_timestamp)> fired) {
        fired_ = std::move(fired);
    }
    int64_t current_watermark() const { return timers_.current_watermark(); }

private:
    void process_time_window(const Record& in, const Emit& out);
    void process_count_window(const Record& in, const Emit& out);
    void on_event_time(int64_t key, int64_t window_end, int64_t time, const Emit& out);
    void fire(int64_t key, const TimeWindow& window, int64_t aggregate, const Emit& out);
    // The timer index is rebuilt from the backend once, before the first record or watermark (a
    // restore fills the backend after the operator is built, before either).
    void ensure_timers_indexed();

    WindowSpec spec_;
    std::unique_ptr<KeyedStateBackend> state_;
    TimerService timers_;
    bool timers_indexed_ = false;
    std::function<void(int64_t)> fired_;
};

}  // namespace eosim::engine
