// The engine property: kafka-count-eos.json of the catalogue (Kafka -> keyBy -> count -> 2PC Kafka,
// parallelism 4), with its input cut to 2000 records and its faults replaced by 1-3 crashes of
// random TaskManagers at random virtual times within the input's duration and random restart
// delays of 0.1-3 s, meets its expectation (every oracle passes) for every such schedule and seed,
// and the same seed gives the same trace hash twice. Crashes in the first 50 ms, where the
// property's random times rarely fall, are also run one by one.
//
// Runs 30 cases by default (the suite also runs under ASan); RC_PARAMS="max_success=N" overrides.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/engine/scenario_fixtures.h"
#include "tests/prop_with_cases.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;

constexpr int kEngineCases = 30;
constexpr int64_t kInputRecords = 2000;  // at 1000 per second: 2 s of input

std::filesystem::path scenario_file() { return testing::catalogue_scenario("kafka-count-eos"); }

struct Crash {
    std::string node;
    int64_t at_ms;
    int64_t restart_delay_ms;
};

std::string describe_crashes(const std::vector<Crash>& crashes) {
    std::string text;
    for (const Crash& c : crashes) {
        text += "crash " + c.node + " at " + std::to_string(c.at_ms) + "ms, restart after " +
                std::to_string(c.restart_delay_ms) + "ms; ";
    }
    return text;
}

TEST_CASE("engine property: the shipped scenario loads and passes as shipped, with a smaller input",
          "[engine_property]") {
    scenarios::Scenario s = scenarios::load_scenario(scenario_file());
    REQUIRE(s.inputs.size() == 1);
    REQUIRE(s.expect.pass);
    s.inputs[0].records = kInputRecords;
    s.faults.clear();
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(test::describe(result));
    CHECK(result.expectation_met);
    CHECK(result.job_finished);
    CHECK(result.figures.records_in == kInputRecords);
}

// The property was once reported failing with seed 1 and a crash of tm1 at 0 ms restarted after
// 100 ms (the run ended at 0.105 s without the job finishing); that did not reproduce here. The
// first 50 ms cover every step of the start: at 0 the TaskManager's registration is still in
// flight (and is dropped with the crash), at 1-3 ms it arrives, at about 5 ms the JobManager has
// recovered and deploys (to a dead node, when the crash came after the registration), at 10 ms the
// tasks have just started, later they run. The restarted TaskManager registers again as a new
// instance; the job must finish with exactly-once output whatever the instant and seed.
TEST_CASE(
    "engine property: a TaskManager crash in the first 50 ms, restarted after 100 ms, still finishes exactly once",
    "[engine_property]") {
    const scenarios::Scenario shipped = scenarios::load_scenario(scenario_file());
    for (const char* node : {"tm1", "tm0"}) {
        for (int64_t at_ms : {0, 1, 2, 3, 5, 10, 20, 30, 50}) {
            for (uint64_t seed = 1; seed <= 5; ++seed) {
                scenarios::Scenario s = shipped;
                s.inputs[0].records = kInputRecords;
                s.faults = {test::crash_at(node, Duration::millis(at_ms), Duration::millis(100))};
                const auto result = run_scenario(s, RunOptions{seed, nullptr});
                INFO(node << " crashed at " << at_ms << " ms; " << test::describe(result));
                CHECK(result.expectation_met);
                CHECK(result.job_finished);
                CHECK(result.figures.records_out == kInputRecords);
            }
        }
    }
}

TEST_CASE(
    "engine property: random TaskManager crashes never break exactly-once, and runs are deterministic",
    "[engine_property]") {
    const scenarios::Scenario shipped = scenarios::load_scenario(scenario_file());
    testing::prop_with_cases(
        "1-3 crashes of tm0/tm1 within the input, restart delays 0.1-3s", kEngineCases, [&shipped] {
            const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1'000'000);
            const int crash_count = *rc::gen::inRange(1, 4);
            std::vector<Crash> crashes;
            for (int i = 0; i < crash_count; ++i) {
                crashes.push_back(
                    Crash{*rc::gen::element<std::string>("tm0", "tm1"),
                          *rc::gen::inRange<int64_t>(
                              0, kInputRecords * 1000 / shipped.inputs[0].rate_per_second),
                          *rc::gen::inRange<int64_t>(100, 3001)});
            }
            scenarios::Scenario s = shipped;
            s.inputs[0].records = kInputRecords;
            s.faults.clear();
            for (const Crash& c : crashes) {
                s.faults.push_back(test::crash_at(c.node, Duration::millis(c.at_ms),
                                                  Duration::millis(c.restart_delay_ms)));
            }
            RC_LOG() << "seed " << seed << "; " << describe_crashes(crashes) << "\n";

            const auto first = run_scenario(s, RunOptions{seed, nullptr});
            RC_LOG() << test::describe(first);
            RC_ASSERT(first.expectation_met);
            RC_ASSERT(first.job_finished);

            const auto second = run_scenario(s, RunOptions{seed, nullptr});
            RC_ASSERT(second.trace_hash == first.trace_hash);
            RC_ASSERT(second.figures.events == first.figures.events);
            RC_ASSERT(second.figures.checkpoints_completed == first.figures.checkpoints_completed);
            RC_ASSERT(second.figures.restarts == first.figures.restarts);
        });
}

}  // namespace
}  // namespace eosim::engine
