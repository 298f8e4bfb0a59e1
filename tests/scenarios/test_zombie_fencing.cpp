// The zombie scenarios (scenarios/zombie-sink-*.json): the TaskManager running sink subtasks is
// paused across a failover and resumes as a zombie. With fencing, the zombie's calls to Kafka are
// refused (fenced) and the output stays exactly-once; the same run without fencing makes no fenced
// call and duplicates. Together they show that fencing, not luck, keeps the first one green.
#include <catch2/catch.hpp>

#include <filesystem>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::scenarios {
namespace {

RunResult run_file(const char* name, uint64_t seed) {
    const Scenario scenario = load_scenario(std::filesystem::path(EOSIM_SOURCE_DIR) / "scenarios" / name);
    RunOptions options;
    options.seed = seed;
    return run_scenario(scenario, options);
}

TEST_CASE("zombie: with fencing the resumed sink's calls are fenced and the output is exactly-once", "[scenarios]") {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        INFO("seed " << seed);
        const RunResult fenced = run_file("zombie-sink-fenced.json", seed);
        CHECK(fenced.expectation_met);
        CHECK(fenced.figures.fenced_calls > 0);
        CHECK(fenced.coverage.count("pause@zombie-resumed") == 1);

        const RunResult unfenced = run_file("zombie-sink-no-fencing.json", seed);
        CHECK(unfenced.expectation_met);  // the expected violation: duplicates
        CHECK(unfenced.figures.fenced_calls == 0);
    }
}

}  // namespace
}  // namespace eosim::scenarios
