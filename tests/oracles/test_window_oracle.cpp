// The window model and the window oracle on hand-built records: the split watermark's in-bound
// rule, per-window totals, and the oracle passing legitimate interleavings (late records re-firing
// a window, records side-output after the window's cleanup) and firing on a duplicated firing, a
// lost one, a record both counted and side-output, an in-bound record in the late output, a
// sliding window of in-bound records fired twice, and a count window result duplicated or missing.
#include <catch2/catch.hpp>

#include "oracles/window_model.h"
#include "oracles/window_oracle.h"

namespace eosim::oracles {
namespace {

using engine::Record;
using engine::RowKind;
using engine::WindowSpec;

Record record_at(int64_t key, int64_t value, int64_t ts) {
    return Record{key, value, 0, RowKind::insert, ts};
}
Record fired(int64_t key, int64_t aggregate, int64_t window_end) {
    return record_at(key, aggregate, window_end - 1);
}

WindowSpec tumbling_count(int64_t lateness_ms) {
    WindowSpec s;
    s.size = sim::Duration::millis(1000);
    s.allowed_lateness = sim::Duration::millis(lateness_ms);
    return s;
}

Verdict judge_windows(const WindowModel& model, std::vector<Record> results,
                      std::vector<Record> late, bool idleness = false) {
    const WindowOutputOracle oracle(
        model, "w", [results] { return results; }, [late] { return late; }, idleness);
    return oracle.verdict();
}

TEST_CASE("split watermark: a record is in-bound above max timestamp seen - bound - 1",
          "[window][oracle]") {
    SplitWatermark split(100);
    CHECK(split.next(1000));       // the first record: the watermark is still at its minimum
    CHECK(split.next(901));        // watermark 899
    CHECK(split.next(900));        // 900 > 899
    CHECK_FALSE(split.next(899));  // 899 <= 899: out-of-bound
    CHECK(split.next(2000));
    CHECK_FALSE(split.next(1000));
    SplitWatermark none(std::nullopt);  // no watermarks: nothing is ever late
    CHECK(none.next(5000));
    CHECK(none.next(0));
}

// Key 1: window [0, 1000) gets 3 in-bound records and 2 out-of-bound ones (timestamps far behind).
WindowModel tumbling_model(int64_t lateness_ms) {
    WindowModel model(tumbling_count(lateness_ms));
    model.add(record_at(1, 1, 100), true);
    model.add(record_at(1, 1, 200), true);
    model.add(record_at(1, 1, 900), true);
    model.add(record_at(1, 1, 1500), true);
    model.add(record_at(1, 1, 50), false);
    model.add(record_at(1, 1, 60), false);
    return model;
}

TEST_CASE("window model: totals per (key, window), in-bound aggregate, out-of-bound records",
          "[window][oracle]") {
    const WindowModel model = tumbling_model(500);
    REQUIRE(model.windows().size() == 2);
    const WindowTotals& w0 = model.windows().at(WindowId{1, 1000});
    CHECK(w0.aggregate == 5);
    CHECK(w0.in_bound_aggregate == 3);
    CHECK(w0.out_of_bound_records == 2);
    CHECK(model.out_of_bound_records().size() == 2);
    std::vector<Record> out;
    model.emit_results([&](const Record& r) { out.push_back(r); });
    CHECK(out == std::vector<Record>{fired(1, 5, 1000), fired(1, 1, 2000)});
}

TEST_CASE("window oracle passes every legitimate outcome of late records", "[window][oracle]") {
    const WindowModel model = tumbling_model(500);
    // Both late records arrived before the watermark passed the window: one firing of 5.
    CHECK(judge_windows(model, {fired(1, 5, 1000), fired(1, 1, 2000)}, {}).passed);
    // Both arrived after the first firing, within the lateness: firings 3, 4, 5.
    CHECK(
        judge_windows(
            model, {fired(1, 3, 1000), fired(1, 4, 1000), fired(1, 5, 1000), fired(1, 1, 2000)}, {})
            .passed);
    // One re-fired the window, the other came after its cleanup: firings 3, 4 and one late record.
    const Verdict v = judge_windows(
        model, {fired(1, 3, 1000), fired(1, 4, 1000), fired(1, 1, 2000)}, {record_at(1, 1, 60)});
    CHECK(v.passed);
    CHECK_THAT(v.message, Catch::Contains("2 windows checked exactly"));
    // Both after the cleanup.
    CHECK(judge_windows(model, {fired(1, 3, 1000), fired(1, 1, 2000)},
                        {record_at(1, 1, 50), record_at(1, 1, 60)})
              .passed);
}

TEST_CASE("window oracle fires on a duplicated, lost or double-counted firing",
          "[window][oracle]") {
    const WindowModel model = tumbling_model(500);
    SECTION("a firing duplicated (an at-least-once sink, a re-fire after a restore)") {
        const Verdict v = judge_windows(model,
                                        {fired(1, 3, 1000), fired(1, 3, 1000), fired(1, 4, 1000),
                                         fired(1, 5, 1000), fired(1, 1, 2000)},
                                        {});
        CHECK_FALSE(v.passed);
        CHECK_THAT(v.message, Catch::Contains("fired twice with 3"));
    }
    SECTION("a purged window fired again from scratch (its watermark lost on restore)") {
        const Verdict v =
            judge_windows(model, {fired(1, 3, 1000), fired(1, 1, 1000), fired(1, 1, 2000)},
                          {record_at(1, 1, 60)});
        CHECK_FALSE(v.passed);
    }
    SECTION("a firing lost") {
        CHECK_FALSE(judge_windows(model, {fired(1, 1, 2000)}, {}).passed);
        CHECK_FALSE(
            judge_windows(model, {fired(1, 3, 1000), fired(1, 4, 1000), fired(1, 1, 2000)}, {})
                .passed);
    }
    SECTION("a record both counted and side-output") {
        const Verdict v =
            judge_windows(model, {fired(1, 5, 1000), fired(1, 1, 2000)}, {record_at(1, 1, 60)});
        CHECK_FALSE(v.passed);
        CHECK_THAT(v.message, Catch::Contains("!= the model's 5"));
    }
    SECTION("an in-bound record in the late output") {
        const Verdict v = judge_windows(
            model, {fired(1, 2, 1000), fired(1, 3, 1000), fired(1, 4, 1000), fired(1, 1, 2000)},
            {record_at(1, 1, 900)});
        CHECK_FALSE(v.passed);
        CHECK_THAT(v.message, Catch::Contains("not an out-of-bound input record"));
        // With idleness an in-bound record may be late: not judged then (the sum still holds).
        CHECK(judge_windows(
                  model,
                  {fired(1, 2, 1000), fired(1, 3, 1000), fired(1, 4, 1000), fired(1, 1, 2000)},
                  {record_at(1, 1, 900)}, true)
                  .passed);
    }
    SECTION("a firing for a window the model does not have") {
        CHECK_FALSE(
            judge_windows(model, {fired(1, 5, 1000), fired(1, 1, 2000), fired(2, 1, 1000)}, {})
                .passed);
    }
    SECTION("firings skipping a count") {
        CHECK_FALSE(
            judge_windows(model, {fired(1, 3, 1000), fired(1, 5, 1000), fired(1, 1, 2000)}, {})
                .passed);
    }
}

TEST_CASE("window oracle: a cut run leaves incomplete windows unjudged but still judges duplicates",
          "[window][oracle]") {
    const WindowModel model = tumbling_model(500);
    WindowOutputOracle oracle(
        model, "w", [] { return std::vector<Record>{fired(1, 3, 1000)}; }, {}, false);
    oracle.set_run_cut("cut at the time_limit");
    CHECK(oracle.verdict().passed);
    WindowOutputOracle duplicated(
        model, "w",
        [] {
            return std::vector<Record>{fired(1, 3, 1000), fired(1, 3, 1000)};
        },
        {}, false);
    duplicated.set_run_cut("cut at the time_limit");
    CHECK_FALSE(duplicated.verdict().passed);
}

TEST_CASE("window oracle on sliding windows: exact without out-of-bound records, bounds with them",
          "[window][oracle]") {
    WindowSpec s = tumbling_count(0);
    s.kind = WindowSpec::Kind::sliding;
    s.slide = sim::Duration::millis(500);
    WindowModel model(s);
    model.add(record_at(1, 1, 600), true);   // windows [500, 1500), [0, 1000)
    model.add(record_at(1, 1, 1200), true);  // windows [1000, 2000), [500, 1500)
    model.add(record_at(1, 1, 100), false);  // windows [0, 1000), [-500, 500)
    // The late record counted in [-500, 500) (not yet fired there) but dropped for [0, 1000).
    const std::vector<Record> good{fired(1, 1, 500), fired(1, 1, 1000), fired(1, 2, 1500),
                                   fired(1, 1, 2000)};
    const Verdict v = judge_windows(model, good, {});
    CHECK(v.passed);
    CHECK_THAT(v.message, Catch::Contains("2 windows checked exactly, 2 within bounds"));
    // Counted in both: also fine.
    CHECK(judge_windows(model,
                        {fired(1, 1, 500), fired(1, 2, 1000), fired(1, 2, 1500), fired(1, 1, 2000)},
                        {})
              .passed);
    // Late for both: side-output, fine.
    CHECK(judge_windows(model, {fired(1, 1, 1000), fired(1, 2, 1500), fired(1, 1, 2000)},
                        {record_at(1, 1, 100)})
              .passed);
    // An in-bound-only window fired twice, or below its total.
    CHECK_FALSE(judge_windows(model,
                              {fired(1, 1, 500), fired(1, 1, 1000), fired(1, 2, 1500),
                               fired(1, 2, 1500), fired(1, 1, 2000)},
                              {})
                    .passed);
    CHECK_FALSE(
        judge_windows(
            model, {fired(1, 1, 500), fired(1, 1, 1000), fired(1, 1, 1500), fired(1, 1, 2000)}, {})
            .passed);
    // A within-bounds window below its in-bound records, or counted and side-output.
    CHECK_FALSE(
        judge_windows(model, {fired(1, 1, 500), fired(1, 2, 1500), fired(1, 1, 2000)}, {}).passed);
    CHECK_FALSE(
        judge_windows(model,
                      {fired(1, 1, 500), fired(1, 2, 1000), fired(1, 2, 1500), fired(1, 1, 2000)},
                      {record_at(1, 1, 100)})
            .passed);
}

TEST_CASE("window oracle on count windows: exact results, nothing late", "[window][oracle]") {
    WindowSpec s;
    s.kind = WindowSpec::Kind::count;
    s.size_records = 2;
    s.aggregate = WindowSpec::Aggregate::sum;
    WindowModel model(s);
    model.add(record_at(1, 10, 5), true);
    model.add(record_at(2, 7, 6), true);
    model.add(record_at(1, 20, 8), false);  // in-boundness means nothing to a count window
    model.add(record_at(1, 30, 9), true);   // a rest of one: never fires
    const std::vector<Record> expected{record_at(1, 30, 8)};
    CHECK(judge_windows(model, expected, {}).passed);
    CHECK_FALSE(judge_windows(model, {record_at(1, 30, 8), record_at(1, 30, 8)}, {}).passed);
    CHECK_FALSE(judge_windows(model, {}, {}).passed);
    CHECK_FALSE(judge_windows(model, {record_at(1, 30, 9)}, {}).passed);
    CHECK_FALSE(judge_windows(model, expected, {record_at(1, 20, 8)}).passed);
}

}  // namespace
}  // namespace eosim::oracles
