// The zombie scenarios of the catalogue (zombie-sink-*.json): the TaskManager running sink subtasks
// is paused across a failover and resumes as a zombie; and zombies that write (zombie-writes-
// *.json): a TaskManager cut off from the JobManager only keeps writing while its successor runs.
// With fencing, the zombie's calls to Kafka are refused (fenced) and the output stays exactly-once;
// the same run without fencing makes no fenced call and duplicates. Together they show that
// fencing, not luck, keeps the first one green.
#include <catch2/catch.hpp>

#include <filesystem>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

RunResult run_file(const char* name, uint64_t seed) {
    const Scenario scenario = load_scenario(testing::catalogue_scenario(name));
    RunOptions options;
    options.seed = seed;
    return run_scenario(scenario, options);
}

TEST_CASE("zombie: with fencing the resumed sink's calls are fenced and the output is exactly-once",
          "[scenarios]") {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        INFO("seed " << seed);
        const RunResult fenced = run_file("zombie-sink-fenced", seed);
        CHECK(fenced.expectation_met);
        CHECK(fenced.figures.fenced_calls > 0);
        CHECK(fenced.coverage.count("pause@zombie-resumed") == 1);

        const RunResult unfenced = run_file("zombie-sink-no-fencing", seed);
        CHECK(unfenced.expectation_met);  // the expected violation: duplicates
        CHECK(unfenced.figures.fenced_calls == 0);
    }
}

TEST_CASE(
    "zombie: a TaskManager cut off from the JobManager writes on while its successor runs, and fencing stops it",
    "[scenarios]") {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        INFO("seed " << seed);
        const RunResult fenced = run_file("zombie-writes-fenced", seed);
        INFO(fenced.expectation_message);
        CHECK(fenced.expectation_met);
        CHECK(fenced.figures.restarts >= 1);
        CHECK(fenced.figures.fenced_writes >
              0);  // the zombie wrote after its successor took its ids over
        CHECK(fenced.coverage.count("partition@zombie-writes") == 1);

        const RunResult unfenced = run_file("zombie-writes-no-fencing", seed);
        CHECK(unfenced.expectation_met);  // the expected violation: duplicates
        CHECK(unfenced.figures.fenced_calls == 0);
    }
}

TEST_CASE(
    "zombie: paused at a later pre-commit, after checkpoints completed, it meets a real restore",
    "[scenarios]") {
    const RunResult late = run_file("zombie-sink-fenced-late", 1);
    INFO(late.expectation_message);
    CHECK(late.expectation_met);
    CHECK(late.figures.fenced_calls > 0);
    CHECK(late.figures.checkpoints_completed >= 5);
}

}  // namespace
}  // namespace eosim::scenarios
