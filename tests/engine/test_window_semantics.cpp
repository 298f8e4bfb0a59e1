// The window operator's pure semantics (engine/runtime/window_operator.h), which the reference
// model shares: window assignment (tumbling, sliding, negative timestamps), lateness and cleanup
// times as Flink computes them, the aggregate fold, and the count window's purging step.
#include <catch2/catch.hpp>

#include <limits>

#include "engine/runtime/window_operator.h"

namespace eosim::engine {
namespace {

WindowSpec tumbling_window(int64_t size_ms, int64_t lateness_ms = 0) {
    WindowSpec s;
    s.kind = WindowSpec::Kind::tumbling;
    s.size = sim::Duration::millis(size_ms);
    s.allowed_lateness = sim::Duration::millis(lateness_ms);
    return s;
}

WindowSpec sliding(int64_t size_ms, int64_t slide_ms) {
    WindowSpec s = tumbling_window(size_ms);
    s.kind = WindowSpec::Kind::sliding;
    s.slide = sim::Duration::millis(slide_ms);
    return s;
}

TEST_CASE("tumbling windows: one window aligned to epoch 0, negative timestamps by floor division",
          "[window]") {
    const WindowSpec s = tumbling_window(1000);
    CHECK(assign_windows(s, 0) == std::vector<TimeWindow>{{0, 1000}});
    CHECK(assign_windows(s, 999) == std::vector<TimeWindow>{{0, 1000}});
    CHECK(assign_windows(s, 1000) == std::vector<TimeWindow>{{1000, 2000}});
    CHECK(assign_windows(s, -1) == std::vector<TimeWindow>{{-1000, 0}});
    CHECK(assign_windows(s, -1000) == std::vector<TimeWindow>{{-1000, 0}});
    CHECK(TimeWindow{0, 1000}.max_timestamp() == 999);
    CHECK(window_ending_at(s, 3000) == TimeWindow{2000, 3000});
}

TEST_CASE("sliding windows: size / slide windows, latest start first (Flink's order)", "[window]") {
    const WindowSpec s = sliding(1000, 250);
    CHECK(assign_windows(s, 1100) ==
          std::vector<TimeWindow>{{1000, 2000}, {750, 1750}, {500, 1500}, {250, 1250}});
    CHECK(assign_windows(s, 1000).front() == TimeWindow{1000, 2000});
    CHECK(assign_windows(s, 999).back() == TimeWindow{0, 1000});
    CHECK(assign_windows(sliding(1000, 300), 0).size() == 4);  // starts 0, -300, -600, -900
}

TEST_CASE("lateness: a window is late once the watermark reaches maxTimestamp + allowed lateness",
          "[window]") {
    const WindowSpec s = tumbling_window(1000, 500);
    const TimeWindow w{0, 1000};
    CHECK(window_cleanup_time(s, w) == 1499);
    CHECK_FALSE(is_window_late(s, w, 1498));
    CHECK(is_window_late(s, w, 1499));
    CHECK_FALSE(is_element_late(s, 999, 1498));
    CHECK(is_element_late(s, 999, 1499));
    // Saturation at the watermark extremes (the end-of-input watermark is INT64_MAX).
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    CHECK(is_element_late(tumbling_window(1000, 10), kMax - 5, kMax));
    CHECK_FALSE(is_element_late(tumbling_window(1000, 10), kMax - 5, kMax - 1));
    CHECK(window_cleanup_time(tumbling_window(1000, 10), TimeWindow{kMax - 1000, kMax}) == kMax);
}

TEST_CASE("the aggregate fold and the result record", "[window]") {
    const Record r{7, 5, 0, RowKind::insert, 1234};
    CHECK(fold_window(WindowSpec::Aggregate::count, std::nullopt, r) == 1);
    CHECK(fold_window(WindowSpec::Aggregate::count, 4, r) == 5);
    CHECK(fold_window(WindowSpec::Aggregate::sum, std::nullopt, r) == 5);
    CHECK(fold_window(WindowSpec::Aggregate::sum, 10, r) == 15);
    CHECK(window_result(7, TimeWindow{1000, 2000}, 3) == Record{7, 3, 0, RowKind::insert, 1999});
}

TEST_CASE(
    "count windows fire every n-th record of a key and purge, stamped with that record's time",
    "[window]") {
    WindowSpec s;
    s.kind = WindowSpec::Kind::count;
    s.size_records = 3;
    s.aggregate = WindowSpec::Aggregate::sum;
    CountWindowContents c;
    CHECK_FALSE(add_to_count_window(s, c, Record{1, 10, 0, RowKind::insert, 5}));
    CHECK_FALSE(add_to_count_window(s, c, Record{1, 20, 0, RowKind::insert, 3}));
    CHECK(add_to_count_window(s, c, Record{1, 30, 0, RowKind::insert, 9}) ==
          Record{1, 60, 0, RowKind::insert, 9});
    CHECK(c.records == 0);
    CHECK_FALSE(add_to_count_window(s, c, Record{1, 1, 0, RowKind::insert, 11}));
    CHECK(c.records == 1);
    CHECK(c.aggregate == 1);
}

}  // namespace
}  // namespace eosim::engine
