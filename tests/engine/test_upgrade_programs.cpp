// Upgrades that change the program, verification jobs, and HA with deployments (scenarios'
// "deployments" with job_vertices / verification, and high_availability): each runs the shipped
// scenario file and then changes one thing. The verification oracle's negative control is a
// deliberately broken reader of the throw-away topic (tests/oracles/test_verification_output_oracle.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::OracleKind;
using scenarios::RunOptions;
using scenarios::run_scenario;
using namespace eosim::engine::test;

scenarios::Scenario shipped(const std::string& name) {
    return scenarios::load_scenario(std::string(EOSIM_SOURCE_DIR) + "/scenarios/" + name + ".json");
}

TEST_CASE("upgrade program: a program that drops the count runs with allow_non_restored_state, and the model drops it too",
          "[upgrade]") {
    auto s = shipped("upgrade-remove-operator-refused");
    s.deployments[0].allow_non_restored_state = true;
    s.oracles = {OracleKind::exactly_once_output, OracleKind::state_after_restore, OracleKind::visibility};
    s.expect = scenarios::Expectation{};
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.job_finished);
    CHECK(result.expectation_met);  // v2 forwards the raw records: the model's v2 segment does too
}

TEST_CASE("upgrade verification: the verification job's output is checked, the real sink stays exactly once", "[upgrade]") {
    const auto s = shipped("upgrade-verification-job");
    for (uint64_t seed : {1, 2}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(verdict(result, OracleKind::verification_output).message.find("1 verification job") == 0);
        CHECK(count_events(result, "job.finished") == 3);  // v1, the verification job, v2
        CHECK(result.figures.savepoints_stored == 2);      // v1's final one and the verification job's own
    }
}

TEST_CASE("upgrade HA: the standby restores the savepoint after v2's leader crashed during the restore", "[upgrade][ha]") {
    const auto s = shipped("upgrade-ha-jobmanager-failover");
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK(result.coverage.count("crash@point:task.restoring") == 1);
    CHECK(result.figures.leaderships == 2);  // v2's first leader, then the standby
    // Both of v2's restores were from the savepoint (nothing was stored yet), each checked.
    CHECK(std::stoi(verdict(result, OracleKind::state_after_restore).message) >= 2);
}

}  // namespace
}  // namespace eosim::engine
