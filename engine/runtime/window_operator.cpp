#include "engine/runtime/window_operator.h"

#include <limits>
#include <stdexcept>

namespace eosim::engine {

namespace {

int64_t millis_of(sim::Duration d) { return d.millis_count(); }

// a + b without overflow: saturates at the int64 bounds (timestamps near the watermark extremes).
int64_t saturating_add(int64_t a, int64_t b) {
    int64_t sum = 0;
    if (__builtin_add_overflow(a, b, &sum))
        return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return sum;
}

}  // namespace

int64_t window_start(int64_t timestamp, int64_t slide_ms) {
    if (slide_ms <= 0) throw std::logic_error("window_start: the slide must be positive");
    const int64_t remainder = ((timestamp % slide_ms) + slide_ms) % slide_ms;
    return timestamp - remainder;
}

std::vector<TimeWindow> assign_windows(const WindowSpec& spec, int64_t timestamp) {
    const int64_t size = millis_of(spec.size);
    if (spec.kind == WindowSpec::Kind::tumbling) {
        const int64_t start = window_start(timestamp, size);
        return {TimeWindow{start, start + size}};
    }
    if (spec.kind != WindowSpec::Kind::sliding)
        throw std::logic_error("assign_windows: not a time window");
    const int64_t slide = millis_of(spec.slide);
    std::vector<TimeWindow> windows;
    for (int64_t start = window_start(timestamp, slide); start > timestamp - size; start -= slide) {
        windows.push_back(TimeWindow{start, start + size});
    }
    return windows;
}

TimeWindow window_ending_at(const WindowSpec& spec, int64_t end) {
    return TimeWindow{end - millis_of(spec.size), end};
}

int64_t window_cleanup_time(const WindowSpec& spec, const TimeWindow& window) {
    return saturating_add(window.max_timestamp(), millis_of(spec.allowed_lateness));
}

bool is_window_late(const WindowSpec& spec, const TimeWindow& window, int64_t watermark) {
    return window_cleanup_time(spec, window) <= watermark;
}

bool is_element_late(const WindowSpec& spec, int64_t timestamp, int64_t watermark) {
    return saturating_add(timestamp, millis_of(spec.allowed_lateness)) <= watermark;
}

int64_t fold_window(WindowSpec::Aggregate aggregate, std::optional<int64_t> current,
                    const Record& in) {
    switch (aggregate) {
        case WindowSpec::Aggregate::count: return current.value_or(0) + 1;
        case WindowSpec::Aggregate::sum: return current.value_or(0) + in.value;
    }
    throw std::logic_error("fold_window: unknown aggregate");
}

Record window_result(int64_t key, const TimeWindow& window, int64_t aggregate) {
    return Record{key, aggregate, 0, RowKind::insert, window.max_timestamp()};
}

std::optional<Record> add_to_count_window(const WindowSpec& spec, CountWindowContents& contents,
                                          const Record& in) {
    if (spec.size_records <= 0)
        throw std::logic_error("add_to_count_window: a count window needs size_records > 0");
    contents.aggregate = fold_window(
        spec.aggregate,
        contents.records == 0 ? std::nullopt : std::optional<int64_t>(contents.aggregate), in);
    if (++contents.records < spec.size_records) return std::nullopt;
    const Record result{in.key, contents.aggregate, 0, RowKind::insert, in.timestamp};
    contents = CountWindowContents{};
    return result;
}

WindowOperator::WindowOperator(WindowSpec spec, std::unique_ptr<KeyedStateBackend> state)
    : spec_(spec), state_(std::move(state)), timers_(*state_) {}

void WindowOperator::ensure_timers_indexed() {
    if (timers_indexed_) return;
    timers_indexed_ = true;
    timers_.restored();
}

void WindowOperator::process(int32_t /*input*/, const Record& in, const Emit& out) {
    ensure_timers_indexed();
    if (spec_.is_time_window()) {
        process_time_window(in, out);
    } else {
        process_count_window(in, out);
    }
}

// Flink's WindowOperator.processElement with EventTimeTrigger.
void WindowOperator::process_time_window(const Record& in, const Emit& out) {
    const int64_t watermark = timers_.current_watermark();
    bool skipped = true;
    for (const TimeWindow& window : assign_windows(spec_, in.timestamp)) {
        if (is_window_late(spec_, window, watermark)) continue;
        skipped = false;
        const StateKey contents{in.key, kWindowContentsState, window.end, 0};
        const int64_t aggregate = fold_window(spec_.aggregate, state_->get(contents), in);
        state_->put(contents, aggregate);
        if (window.max_timestamp() <= watermark) {
            fire(in.key, window, aggregate, out);  // a late record within the allowed lateness
        } else {
            timers_.register_event_time_timer(in.key, window.end, window.max_timestamp());
        }
        timers_.register_event_time_timer(in.key, window.end, window_cleanup_time(spec_, window));
    }
    if (skipped && is_element_late(spec_, in.timestamp, watermark)) out.to_late(in);
}

void WindowOperator::process_count_window(const Record& in, const Emit& out) {
    const StateKey records_at{in.key, kCountRecordsState, 0, 0};
    const StateKey aggregate_at{in.key, kCountAggregateState, 0, 0};
    CountWindowContents contents{state_->get(records_at).value_or(0),
                                 state_->get(aggregate_at).value_or(0)};
    if (const std::optional<Record> result = add_to_count_window(spec_, contents, in)) {
        state_->remove(records_at);
        state_->remove(aggregate_at);
        out(*result);
        if (fired_) fired_(result->timestamp);
        return;
    }
    state_->put(records_at, contents.records);
    state_->put(aggregate_at, contents.aggregate);
}

void WindowOperator::advance_watermark(int64_t watermark, const Emit& out) {
    ensure_timers_indexed();
    timers_.advance_watermark(watermark,
                              [this, &out](int64_t key, int64_t window_end, int64_t time) {
                                  on_event_time(key, window_end, time, out);
                              });
}

// Flink's WindowOperator.onEventTime: the maxTimestamp timer fires the window, the cleanup timer
// (maxTimestamp + allowed lateness; the same timer without lateness) purges it.
void WindowOperator::on_event_time(int64_t key, int64_t window_end, int64_t time, const Emit& out) {
    const TimeWindow window = window_ending_at(spec_, window_end);
    const StateKey contents{key, kWindowContentsState, window_end, 0};
    if (time == window.max_timestamp()) {
        if (const std::optional<int64_t> aggregate = state_->get(contents))
            fire(key, window, *aggregate, out);
    }
    if (time == window_cleanup_time(spec_, window)) state_->remove(contents);
}

void WindowOperator::fire(int64_t key, const TimeWindow& window, int64_t aggregate,
                          const Emit& out) {
    out(window_result(key, window, aggregate));
    if (fired_) fired_(window.max_timestamp());
}

}  // namespace eosim::engine
