// The property of the acceptance: for random fault schedules (kafka-count-eos-swarm.json of
// the catalogue, its faults drawn per seed in swarm mode, with rapidcheck choosing the count and
// the share of point-triggered faults, and the input cut to 1500 records so the whole thing stays
// quick, also under ASan), the same seed gives the same trace hash twice, and the exactly-once
// scenario never fails. ~20 cases by default; RC_PARAMS="max_success=N" overrides.
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "scenarios/fault_json.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

using sim::Duration;

constexpr int kSwarmCases = 20;

Scenario small_swarm() {
    Scenario s = load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm"));
    REQUIRE(s.random_faults);
    REQUIRE(s.expect.pass);
    s.inputs.at(0).records = 1500;  // 1.5 s of input at 1000 per second
    s.random_faults->window_from = Duration::millis(200);
    s.random_faults->window_to = Duration::millis(2500);
    s.random_faults->quiet_after = Duration::seconds(3);
    return s;
}

std::string describe_run(const RunResult& r) {
    std::string text = "trace hash " + std::to_string(r.trace_hash) + "; ";
    for (const OracleVerdict& v : r.verdicts) {
        if (!v.passed) text += std::string(v.oracle) + ": " + v.message + "; ";
    }
    if (r.fault_draw) {
        text += describe_draw(*r.fault_draw) + ":";
        for (const sim::FaultSpec& f : r.fault_draw->faults) text += " " + describe_fault(f);
    }
    return text;
}

TEST_CASE("swarm property: same seed same trace hash, exactly-once never fails",
          "[swarm_property]") {
    const Scenario base = small_swarm();
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    const char* env = std::getenv("RC_PARAMS");
    if (env == nullptr || std::string(env).find("max_success") == std::string::npos)
        params.maxSuccess = kSwarmCases;
    rc::detail::TestMetadata metadata;
    metadata.id = metadata.description = "random schedules of kafka-count-eos-swarm";
    const auto result = rc::detail::checkTestable(
        [&base](uint64_t seed) {
            Scenario s = base;
            s.random_faults->count_min = *rc::gen::inRange(1, 8);
            s.random_faults->count_max = s.random_faults->count_min + *rc::gen::inRange(0, 5);
            s.random_faults->point_triggers.ratio =
                sim::Ratio{static_cast<uint64_t>(*rc::gen::inRange(0, 3)), 2};
            RunOptions options;
            options.seed = seed;
            options.max_events = 5'000'000;
            const RunResult first = run_scenario(s, options);
            const RunResult second = run_scenario(s, options);
            RC_LOG() << "seed " << seed << ": " << describe_run(first);
            RC_ASSERT(first.trace_hash == second.trace_hash);
            RC_ASSERT(first.fault_draw.has_value());
            RC_ASSERT(first.expectation_met);
            RC_ASSERT(first.job_finished);
        },
        metadata, params);
    if (!result.is<rc::detail::SuccessResult>()) {
        std::ostringstream message;
        rc::detail::printResultMessage(result, message);
        INFO(message.str());
        FAIL();
    }
}

}  // namespace
}  // namespace eosim::scenarios
