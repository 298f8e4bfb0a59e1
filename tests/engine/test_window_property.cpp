// The window property: for random inputs (keys, rates, values, event-time disorder within the
// watermark bound, so every record is in-bound) and random watermark strategies and window specs
// (tumbling, sliding, count; count or sum; allowed lateness), the engine's fault-free output of a
// Kafka -> keyBy -> window -> exactly-once Kafka job equals the reference model's exactly: the
// window oracle (every window fired once with its total, nothing late; count windows exactly) and
// the exactly-once output oracle (the multiset of results) both pass. Few, small cases: ctest stays
// fast; RC_PARAMS="max_success=N" runs more.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <cstdlib>
#include <sstream>
#include <string>

#include "tests/engine/scenario_fixtures.h"
#include "tests/prop_with_cases.h"

namespace eosim::engine {
namespace {

constexpr int kDefaultCases = 6;

// Kafka (`partitions`) -> keyBy -> window -> exactly-once Kafka sink, parallelism 2.
// Time windows: the input's timestamps are out of order by at most `disorder_ms` (no late share)
// and the source's watermark strategy allows `bound_ms` >= that, so every record is in-bound and
// the firings are determined.
scenarios::Scenario window_scenario(const WindowSpec& window, int64_t records, int64_t keys,
                                    int64_t rate, int64_t disorder_ms, int64_t bound_ms) {
    scenarios::Scenario s = test::count_scenario(records, 2);
    if (window.is_time_window()) {
        s.job.vertices[0].watermarks = WatermarkSpec{sim::Duration::millis(bound_ms), std::nullopt};
        s.inputs[0].event_time = sim::external::EventTimeSpec{sim::Duration::millis(disorder_ms), 0,
                                                              sim::Duration::zero()};
    }
    s.name = "test-window";
    VertexSpec& w = s.job.vertices[1];
    w.id = "window";
    w.kind = OperatorKind::window;
    w.window = window;
    s.job.vertices[2].inputs = {{"window", EdgeKind::forward}};
    s.inputs[0].keys = keys;
    s.inputs[0].rate_per_second = rate;
    s.oracles = {"window_output", "exactly_once_output", "liveness"};
    return s;
}

WindowSpec random_window() {
    WindowSpec w;
    w.kind = *rc::gen::element(WindowSpec::Kind::tumbling, WindowSpec::Kind::sliding,
                               WindowSpec::Kind::count);
    w.aggregate = *rc::gen::element(WindowSpec::Aggregate::count, WindowSpec::Aggregate::sum);
    w.size = sim::Duration::millis(*rc::gen::inRange<int64_t>(50, 1001));
    w.slide = w.kind == WindowSpec::Kind::sliding
                  ? sim::Duration::millis(std::max<int64_t>(
                        1, w.size.millis_count() / *rc::gen::inRange<int64_t>(1, 5)))
                  : w.size;
    w.allowed_lateness = sim::Duration::millis(*rc::gen::element<int64_t>(0, 0, 100, 500));
    w.size_records = *rc::gen::inRange<int64_t>(1, 8);
    return w;
}

std::string describe(const WindowSpec& w) {
    return std::string(to_string(w.kind)) + " " + to_string(w.aggregate) + " size " +
           std::to_string(w.size.millis_count()) + "ms slide " +
           std::to_string(w.slide.millis_count()) + "ms lateness " +
           std::to_string(w.allowed_lateness.millis_count()) + "ms records " +
           std::to_string(w.size_records);
}

TEST_CASE(
    "window property: fault-free, in-bound input, the engine's windows equal the model's exactly",
    "[window][window_property]") {
    int runs = 0;
    testing::prop_with_cases(
        "random inputs, watermark strategies and window specs", kDefaultCases, [&runs] {
            ++runs;
            const WindowSpec window = random_window();
            const int64_t records = *rc::gen::inRange<int64_t>(100, 500);
            const int64_t keys = *rc::gen::inRange<int64_t>(1, 12);
            const int64_t rate = *rc::gen::inRange<int64_t>(200, 3000);
            const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1'000'000);
            const int64_t disorder_ms = *rc::gen::inRange<int64_t>(0, 300);
            const int64_t bound_ms = disorder_ms + *rc::gen::inRange<int64_t>(0, 200);
            scenarios::Scenario s =
                window_scenario(window, records, keys, rate, disorder_ms, bound_ms);
            RC_LOG() << "seed " << seed << "; " << describe(window) << "; " << records
                     << " records, " << keys << " keys, " << rate << "/s; disorder " << disorder_ms
                     << "ms, watermark bound " << bound_ms << "ms\n";
            const auto result = scenarios::run_scenario(s, scenarios::RunOptions{seed, nullptr});
            RC_LOG() << test::describe(result);
            RC_ASSERT(result.job_finished);
            RC_ASSERT(result.expectation_met);
            RC_ASSERT(result.figures.records_out > 0 || records < window.size_records);
        });
    CHECK(runs >= kDefaultCases);
}

}  // namespace
}  // namespace eosim::engine
