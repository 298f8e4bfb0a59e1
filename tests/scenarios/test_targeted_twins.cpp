// The catalogue's scenarios for bug classes the default suite barely saw, each with the targeted
// twin it is built to catch (scenarios/sensitivity.h): the scenario meets its expectation and the
// twin, the same scenario with the slip planted, does not.
// - txn-busy-past-timeout (a negative control): the broker aborts a transaction kept busy past the
//   timeout; with kafka.timer_per_write it never does and the expected loss vanishes;
// - final-commit-refused: the final checkpoint's commits refused for a while; with
//   sink.sink.settled_early the sinks' tasks stop before the retried commits;
// - finished-splits-aligned: with tasks.finish_early tasks finish before their final checkpoint;
// - stop-with-savepoint-crash-retained-one: with checkpointing.retention_discards_savepoints
//   retention deletes the first final savepoint's files once the second completed;
// - window-unaligned-restore-watermark: with tasks.watermark_max_on_restore a keyed window restored
//   from unaligned checkpoints takes the highest subtask watermark and in-bound records come late.
#include <catch2/catch.hpp>

#include <string>

#include "cli/sensitivity_check.h"
#include "cli/suite_plan.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/sensitivity.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

RunResult run_targeted(const Scenario& scenario, uint64_t seed) {
    RunOptions options;
    options.seed = seed;
    options.strict_faults = true;
    return run_scenario(scenario, options);
}

bool targeted_oracle_fired(const RunResult& result, const std::string& oracle) {
    for (const OracleVerdict& verdict : result.verdicts) {
        if (verdict.oracle == oracle && !verdict.passed) return true;
    }
    return false;
}

}  // namespace

TEST_CASE(
    "targeted twins: a busy transaction past the timeout loses the job's output, the per-write timer hides it",
    "[sensitivity][targeted]") {
    const auto file = testing::catalogue_scenario("txn-busy-past-timeout");
    const Scenario scenario = load_scenario(file);
    const Scenario twin = load_twin(file, "kafka.timer_per_write");
    CHECK(twin.name == "txn-busy-past-timeout+kafka.timer_per_write");
    for (uint64_t seed : {1u, 2u}) {
        const RunResult correct = run_targeted(scenario, seed);
        CHECK(correct.expectation_met);
        CHECK(targeted_oracle_fired(correct, "exactly_once_output"));
        const RunResult slipped = run_targeted(twin, seed);
        CHECK_FALSE(slipped.expectation_met);
        CHECK_FALSE(targeted_oracle_fired(slipped, "exactly_once_output"));
    }
}

TEST_CASE(
    "targeted twins: the final checkpoint's refused commits are retried before the tasks finish",
    "[sensitivity][targeted]") {
    const auto file = testing::catalogue_scenario("final-commit-refused");
    const Scenario scenario = load_scenario(file);
    const Scenario settled_early = load_twin(file, "sink.sink.settled_early");
    for (uint64_t seed : {1u, 2u}) {
        CHECK(run_targeted(scenario, seed).expectation_met);
        const RunResult open_commit = run_targeted(settled_early, seed);
        CHECK_FALSE(open_commit.expectation_met);
        CHECK(targeted_oracle_fired(open_commit, "exactly_once_output"));
    }
}

TEST_CASE(
    "targeted twins: tasks finishing early and a final savepoint lost to retention are caught",
    "[sensitivity][targeted]") {
    const auto splits = testing::catalogue_scenario("finished-splits-aligned");
    const auto retained = testing::catalogue_scenario("stop-with-savepoint-crash-retained-one");
    for (uint64_t seed : {1u, 2u}) {
        CHECK(run_targeted(load_scenario(retained), seed).expectation_met);
        CHECK(targeted_oracle_fired(run_targeted(load_twin(splits, "tasks.finish_early"), seed),
                                    "finished_after_final_checkpoint"));
        CHECK(targeted_oracle_fired(
            run_targeted(load_twin(retained, "checkpointing.retention_discards_savepoints"), seed),
            "storage"));
    }
}

TEST_CASE(
    "targeted twins: a window restored from unaligned checkpoints takes the lowest subtask watermark",
    "[sensitivity][targeted]") {
    const auto file = testing::catalogue_scenario("window-unaligned-restore-watermark");
    const Scenario scenario = load_scenario(file);
    const Scenario highest = load_twin(file, "tasks.watermark_max_on_restore");
    for (uint64_t seed : {1u, 2u}) {
        const RunResult correct = run_targeted(scenario, seed);
        CHECK(correct.expectation_met);
        CHECK_FALSE(targeted_oracle_fired(correct, "window_output"));
        CHECK(targeted_oracle_fired(run_targeted(highest, seed), "window_output"));
    }
}

TEST_CASE("targeted twins: the sensitivity check runs a negative control's targeted twins only",
          "[sensitivity][targeted]") {
    const cli::SuitePlan plan = cli::load_suite_plan(
        testing::catalogue_scenario("txn-busy-past-timeout"), std::string("1..2"));
    const reports::SensitivityTable table = cli::plan_sensitivity(plan);
    REQUIRE(table.twins.size() == 1);
    CHECK(table.twins[0].twin == "kafka.timer_per_write");
    CHECK(table.twins[0].seeds == 2);
    CHECK(table.twins[0].not_applicable.empty());
}

}  // namespace eosim::scenarios
