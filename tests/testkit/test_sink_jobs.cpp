// The job-level check (testkit/sink_jobs.h): the Kafka exactly-once sink passes drawn jobs under
// swarm faults; its at-least-once mode is caught by the exactly-once oracle (negative control), the
// failing run is shrunk and written as a standalone scenario file that the eosim CLI loads and
// that fails again with the same seed; only failing scenario files are left behind.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/shrinker.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"
#include "tests/testkit/replayed_jobs.h"

namespace eosim::testkit {
namespace {

JobOptions kafka_jobs(const std::string& guarantee, const std::filesystem::path& dir) {
    JobOptions o;
    o.sink = "kafka";
    o.options = {{"topic", "output"}, {"guarantee", guarantee}};
    o.cases = 15;
    o.runs_per_case = 2;
    o.output_dir = dir.string();
    return o;
}

TEST_CASE("sink jobs: the Kafka exactly-once sink passes drawn jobs under swarm faults",
          "[testkit]") {
    testing::TempDir dir;
    const auto result = check_sink_in_jobs_and_replay(kafka_jobs("exactly_once", dir / "failures"));
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.runs == 30);
    CHECK(result.faults_injected >= 30);  // the faults reached the jobs
    CHECK(result.restarts >= 10);
    CHECK_FALSE(std::filesystem::exists(dir / "failures"));  // nothing failed, nothing left
}

TEST_CASE("sink jobs: at-least-once Kafka is caught, shrunk and written as a replayable scenario",
          "[testkit]") {
    testing::TempDir dir;
    auto options = kafka_jobs("at_least_once", dir / "failures");
    options.eosim_command = "my-eosim";
    const auto result = check_sink_in_jobs_and_replay(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("exactly_once_output") != std::string::npos);
    CHECK(result.report.find("my-eosim run " + result.scenario_file + " --seed " +
                             std::to_string(result.failing_seed)) != std::string::npos);
    // The headline is the shrunk run's (the file replays it); the figures before shrinking follow.
    CHECK(result.report.find("the run in the file: ") < result.report.find("before shrinking: "));
    CHECK(result.report.find(".shrunk.json") != std::string::npos);
    CHECK(result.reproducer_replays);
    CHECK(result.failed_oracles.front() == "exactly_once_output");
    REQUIRE(std::filesystem::exists(result.scenario_file));
    // The file stands alone: loaded and run again with the seed, it fails the same way.
    const auto scenario = scenarios::load_scenario(result.scenario_file);
    CHECK_FALSE(scenario.random_faults.has_value());
    const auto rerun =
        scenarios::run_scenario(scenario, scenarios::RunOptions{result.failing_seed, nullptr});
    CHECK_FALSE(scenarios::run_outcome_met(rerun));
}

TEST_CASE(
    "sink jobs: with at-least-once checkpointing drawn too, exactly-once Kafka still passes its oracles",
    "[testkit]") {
    testing::TempDir dir;
    auto options = kafka_jobs("exactly_once", dir / "failures");
    options.modes_at_least_once = true;
    options.seed = 7;
    const auto result = check_sink_in_jobs_and_replay(options);
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.jobs_at_least_once >= 1);
}

TEST_CASE("sink jobs: an at-least-once sink is testable: Kafka at-least-once loses nothing",
          "[testkit]") {
    testing::TempDir dir;
    auto options = kafka_jobs("at_least_once", dir / "failures");
    options.guarantee = Guarantee::at_least_once;
    options.cases = 8;
    const auto result = check_sink_in_jobs_and_replay(options);
    INFO(result.report);
    CHECK(result.passed);
}

TEST_CASE("sink jobs: chosen fault kinds fire and are reported, and a point never hit fails",
          "[testkit]") {
    testing::TempDir dir;
    auto options = kafka_jobs("exactly_once", dir / "failures");
    options.cases = 6;
    options.faults = {
        {"kafka_commit_errors", 3}, {"kafka_commit_outcome_unknown", 3}, {"crash", 1}};
    const auto result = check_sink_in_jobs_and_replay(options);
    INFO(result.report);
    CHECK(result.passed);
    CHECK(result.faults_fired.at("kafka_commit_errors") > 0);
    CHECK(result.faults_fired.at("kafka_commit_outcome_unknown") > 0);
    CHECK_FALSE(result.faults_fired.contains("partition"));
    CHECK(result.report.find("Kafka commits answered with an error") != std::string::npos);
    // A point the sink declares and never announces fails when asked for:
    // test_announced_points.cpp.
}

TEST_CASE("sink jobs: a fault kind that does not apply to the sink is refused", "[testkit]") {
    JobOptions options;
    options.faults = {{"system_unavailable", 1}};  // the Kafka sink asked for no outside system
    CHECK_THROWS_WITH(check_sink_in_jobs_and_replay(options),
                      Catch::Contains("not a fault kind that applies"));
}

TEST_CASE("sink jobs: an unknown sink kind is refused before any run", "[testkit]") {
    JobOptions options;
    options.sink = "no_such_sink";
    CHECK_THROWS_WITH(check_sink_in_jobs_and_replay(options), Catch::Contains("registered:"));
}

}  // namespace
}  // namespace eosim::testkit
