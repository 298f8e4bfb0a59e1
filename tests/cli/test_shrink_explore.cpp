// `eosim explore` and `eosim shrink` on the negative control alo-sink-swarm.json of the catalogue
// (the at-least-once sink under swarm faults): explore finds seeds where exactly_once_output fires
// and prints them with a reproduce command; shrink turns one into a scenario of at most 3 faults
// whose written file fires the same oracle with the same outcome and the same trace hash.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/explore_command.h"
#include "cli/run_command.h"
#include "cli/shrink_command.h"
#include "oracles/oracle.h"
#include "scenarios/fault_json.h"
#include "scenarios/run/planned_faults.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/shrinker.h"
#include "sim/invariant.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"
#include "tests/test_oracle.h"

namespace eosim::cli {
namespace {

using eosim::testing::TempDir;

const std::filesystem::path kAloSwarm = testing::catalogue_scenario("alo-sink-swarm");

// The first seed in 1..20 where the negative control shows its violation.
uint64_t first_failing_seed(const scenarios::Scenario& s) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        scenarios::RunOptions options;
        options.seed = seed;
        const scenarios::RunResult r = scenarios::run_scenario(s, options);
        if (scenarios::failure_of(r)) return seed;
    }
    FAIL("no seed in 1..20 fires an oracle");
    return 0;
}

// Runs `eosim shrink FILE --seed SEED` writing into `out_file`; requires success and the
// written file verified; returns what it printed.
std::string shrink_verified(const std::filesystem::path& file, uint64_t seed,
                            const std::filesystem::path& out_file) {
    ShrinkCommand command;
    command.file = file.string();
    command.seed = seed;
    command.out = out_file.string();
    std::ostringstream out;
    std::ostringstream err;
    const int code = shrink_command(command, out, err);
    INFO(out.str() << err.str());
    REQUIRE(code == 0);
    CHECK_THAT(out.str(), Catch::Contains("verified"));
    return out.str();
}

TEST_CASE("explore: prints the seeds where an oracle fired, with the command that reproduces them",
          "[cli][explore]") {
    ExploreCommand command;
    command.file = kAloSwarm.string();
    command.seeds = "1..6";
    command.jobs = 2;
    std::ostringstream out;
    std::ostringstream err;
    const int code = explore_command(command, out, err);
    INFO(out.str() << err.str());
    CHECK(code == 0);  // a negative control whose violation was found: success
    const std::regex line(
        R"(seed=(\d+) oracle=exactly_once_output  reproduce: eosim run \S+alo-sink-swarm\.json --seed \1)");
    const std::string text = out.str();
    CHECK(std::distance(std::sregex_iterator(text.begin(), text.end(), line),
                        std::sregex_iterator()) >= 1);
    CHECK_THAT(text, Catch::Contains("explored 6 seeds (1..6)"));
    CHECK_THAT(text, Catch::Contains("coverage over 6 runs"));
    CHECK_THAT(text, Catch::Contains("oracle:exactly_once_output"));
}

TEST_CASE("explore: bad input", "[cli][explore]") {
    ExploreCommand command;
    command.file = kAloSwarm.string();
    command.seeds = "3..1";
    std::ostringstream out;
    std::ostringstream err;
    CHECK(explore_command(command, out, err) == 2);
    command.seeds = std::nullopt;
    command.file = "no-such-file.json";
    CHECK(explore_command(command, out, err) == 2);
}

TEST_CASE("explore: bad strategy options are refused with what was expected", "[cli][explore]") {
    auto refused = [](ExploreCommand command, const std::string& expected) {
        command.file = kAloSwarm.string();
        command.seeds = "1..2";
        std::ostringstream out;
        std::ostringstream err;
        CHECK(explore_command(command, out, err) == 2);
        CHECK_THAT(err.str(), Catch::Contains(expected));
    };
    ExploreCommand c;
    c.strategy = "random";
    refused(c, "--strategy: expected swarm, pct or guided, found \"random\"");
    c = ExploreCommand{};
    c.strategy = "pct";
    c.pct_depth = 65;
    refused(c, "--pct-depth: expected 1..64, found 65");
    c = ExploreCommand{};
    c.pct_depth = 2;  // swarm
    refused(c, "only with --strategy pct");
    c = ExploreCommand{};
    c.strategy = "guided";
    c.guided_batch = 0;
    refused(c, "--guided-batch: expected 1..1024");
    c = ExploreCommand{};
    c.guided_batch = 4;  // swarm
    refused(c, "--guided-batch: only with --strategy guided");
}

TEST_CASE("explore: guided stops after the generation of its first catch", "[cli][explore]") {
    TempDir dir;
    ExploreCommand command;
    command.file = kAloSwarm.string();
    command.seeds = "1..40";
    command.jobs = 2;
    command.strategy = "guided";
    command.guided_batch = 4;
    command.until_first = true;
    command.out_dir = dir.path().string();
    std::ostringstream out;
    std::ostringstream err;
    CHECK(explore_command(command, out, err) == 0);
    const std::string text = out.str();
    INFO(text);
    CHECK_THAT(text, Catch::Contains("first catch: run 1"));  // the control fires on every seed
    CHECK_THAT(text, Catch::Contains("explored 4 runs"));     // one generation, then stopped
}

TEST_CASE("run: --pct-depth replays a pct run, and bad PCT options are refused", "[cli][explore]") {
    RunCommand command;
    command.file = kAloSwarm.string();
    command.pct_depth = 65;
    std::ostringstream out;
    std::ostringstream err;
    CHECK(run_command(command, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("--pct-depth: expected 1..64, found 65"));
    command.pct_depth = 0;
    command.pct_steps = 100;
    CHECK(run_command(command, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("--pct-steps: needs --pct-depth"));
    command.pct_depth = 2;
    command.pct_steps = 0;
    std::ostringstream ok;
    run_command(command, ok, err);
    CHECK_THAT(ok.str(), Catch::Contains("--pct-depth 2"));  // in the reproduce command
}

TEST_CASE(
    "shrink: a pct run shrinks with its depth, and the written file reproduces it with the depth",
    "[cli][shrink]") {
    TempDir dir;
    ShrinkCommand command;
    command.file = kAloSwarm.string();
    command.out = (dir.path() / "min.json").string();
    command.pct_depth = 65;
    std::ostringstream out;
    std::ostringstream err;
    CHECK(shrink_command(command, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("--pct-depth: expected 1..64, found 65"));
    // The first seed where the control fires under pct at depth 2.
    scenarios::Scenario scenario = scenarios::load_scenario(kAloSwarm);
    scenario.world.network.priority_delivery.depth = 2;
    command.seed = first_failing_seed(scenario);
    command.pct_depth = 2;
    std::ostringstream shrunk;
    CHECK(shrink_command(command, shrunk, err) ==
          0);  // 0: the written file, run with the depth, reproduces it
    CHECK_THAT(shrunk.str(),
               Catch::Contains("--seed " + std::to_string(command.seed) + " --pct-depth 2"));
    CHECK_THAT(shrunk.str(), Catch::Contains("verified"));
}

TEST_CASE("shrink: the at-least-once control shrinks to at most 3 faults and the file reproduces",
          "[cli][shrink]") {
    const scenarios::Scenario scenario = scenarios::load_scenario(kAloSwarm);
    const uint64_t seed = first_failing_seed(scenario);
    TempDir dir;
    const std::filesystem::path min = dir.path() / "min.json";
    CHECK_THAT(shrink_verified(kAloSwarm, seed, min), Catch::Contains("replays"));

    // The written file stands alone: an explicit schedule of at most 3 faults, no random section,
    // and with the same seed the same oracle fires with the same outcome as the original run.
    std::ifstream in(min);
    const nlohmann::json doc = nlohmann::json::parse(in);
    REQUIRE(doc["faults"]["schedule"].is_array());
    CHECK(doc["faults"]["schedule"].size() <= 3);
    CHECK_FALSE(doc["faults"].contains("random"));
    const scenarios::Scenario minimal = scenarios::load_scenario(min);
    CHECK_FALSE(minimal.random_faults);
    scenarios::RunOptions options;
    options.seed = seed;
    const scenarios::RunResult original = scenarios::run_scenario(scenario, options);
    const scenarios::RunResult replay = scenarios::run_scenario(minimal, options);
    const auto before = scenarios::failure_of(original);
    const auto after = scenarios::failure_of(replay);
    REQUIRE(before);
    REQUIRE(after);
    CHECK(after->oracle == before->oracle);
    CHECK(after->oracle == "exactly_once_output");
    CHECK(scenarios::run_outcome_met(replay) == scenarios::run_outcome_met(original));
}

// upgrade-add-sink-alo-dup's violation needs only that v2 (the program with the at-least-once audit
// sink) runs through its faults, which are aimed at points, not times: v2 can start much earlier
// than the file's 4 s, and the shrunk file says so.
TEST_CASE(
    "shrink: a later deployment moves earlier when the failure allows, and the file reproduces",
    "[cli][shrink]") {
    const std::filesystem::path file = testing::catalogue_scenario("upgrade-add-sink-alo-dup");
    TempDir dir;
    const std::filesystem::path min = dir.path() / "min.json";
    CHECK_THAT(shrink_verified(file, 1, min), Catch::Contains("deployment  v2 at 4s -> "));

    std::ifstream in(min);
    const nlohmann::json doc = nlohmann::json::parse(in);
    const scenarios::Scenario minimal = scenarios::load_scenario(min);
    REQUIRE(minimal.deployments.size() == 1);
    CHECK(minimal.deployments[0].at < sim::Duration::seconds(4));
    CHECK(doc["deployments"][0]["at"].get<std::string>() != "4s");
    scenarios::RunOptions options;
    options.seed = 1;
    const auto failure = scenarios::failure_of(scenarios::run_scenario(minimal, options));
    REQUIRE(failure);
    CHECK(failure->oracle == "exactly_once_output");

    // Unless it reached the first millisecond, one millisecond earlier no longer shows it: the
    // search settled on an edge.
    if (minimal.deployments[0].at > sim::Duration::millis(1)) {
        scenarios::Scenario earlier = minimal;
        earlier.deployments[0].at = earlier.deployments[0].at - sim::Duration::millis(1);
        const auto earlier_failure =
            scenarios::failure_of(scenarios::run_scenario(earlier, options));
        CHECK_FALSE((earlier_failure && earlier_failure->oracle == "exactly_once_output"));
    }
}

TEST_CASE("shrink: a seed where nothing fires is bad input", "[cli][shrink]") {
    ShrinkCommand command;
    command.file = testing::catalogue_scenario("kafka-count-eos").string();
    command.seed = 1;
    TempDir dir;
    command.out = (dir.path() / "min.json").string();
    std::ostringstream out;
    std::ostringstream err;
    CHECK(shrink_command(command, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("no oracle fired"));
    CHECK_FALSE(std::filesystem::exists(command.out));
}

// An oracle that breaks an engine invariant at the job's first failover: a stand-in for an engine
// slip that only a fault brings out.
class BreaksAtFailover final : public oracles::Oracle {
public:
    const char* name() const override { return "test_breaks_at_failover"; }
    void failover(sim::Time, int64_t, const std::string&) override {
        EOSIM_INVARIANT(false, "the test's slip at a failover");
    }
    oracles::Verdict verdict() const override { return {true, "never judged"}; }
};

// kafka-count-eos-swarm (swarm faults) with that oracle, written into `dir`.
std::filesystem::path breaking_at_failover(const TempDir& dir) {
    testing::register_test_oracle<BreaksAtFailover>(
        "test_breaks_at_failover", "breaks an engine invariant at the first failover");
    nlohmann::json document;
    std::ifstream(testing::catalogue_scenario("kafka-count-eos-swarm")) >> document;
    document["oracles"].push_back("test_breaks_at_failover");
    return dir.write("breaking.json", document.dump());
}

TEST_CASE("shrink: the fault plan known without a run is the one the run follows",
          "[cli][shrink]") {
    const scenarios::Scenario scenario =
        scenarios::load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm"));
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        scenarios::RunOptions options;
        options.seed = seed;
        const scenarios::RunResult run = scenarios::run_scenario(scenario, options);
        REQUIRE(run.fault_draw);
        std::vector<sim::FaultSpec> followed = scenario.faults;
        followed.insert(followed.end(), run.fault_draw->faults.begin(),
                        run.fault_draw->faults.end());
        CHECK(scenarios::faults_to_json(scenarios::fault_plan(scenario, seed)) ==
              scenarios::faults_to_json(followed));
    }
}

TEST_CASE(
    "shrink: a run that breaks an engine invariant shrinks to the faults that break it, and the file breaks it again",
    "[cli][shrink]") {
    TempDir dir;
    const std::filesystem::path file = breaking_at_failover(dir);
    const scenarios::Scenario scenario = scenarios::load_scenario(file);
    uint64_t seed = 0;
    for (uint64_t s = 1; s <= 10 && seed == 0; ++s) {
        scenarios::RunOptions options;
        options.seed = s;
        if (!scenarios::replay_run(scenario, options).invariant_broken.empty()) seed = s;
    }
    REQUIRE(seed != 0);
    // explore names that seed for shrinking.
    ExploreCommand explore;
    explore.file = file.string();
    explore.seeds = "1.." + std::to_string(seed);
    explore.jobs = 2;
    std::ostringstream explored;
    std::ostringstream explore_err;
    CHECK(explore_command(explore, explored, explore_err) ==
          1);  // a broken invariant is never expected
    CHECK_THAT(explored.str(),
               Catch::Contains("shrink the broken invariant: eosim shrink " + file.string() +
                               " --seed " + std::to_string(seed) + "\n"));
    const std::filesystem::path min = dir.path() / "min.json";
    const std::string printed = shrink_verified(file, seed, min);
    CHECK_THAT(printed, Catch::Contains(
                            "target      engine invariant broken: the test's slip at a failover"));

    // One fault makes a failover; the written file stands alone and breaks the same invariant.
    const scenarios::Scenario minimal = scenarios::load_scenario(min);
    CHECK_FALSE(minimal.random_faults);
    CHECK(minimal.faults.size() == 1);
    scenarios::RunOptions options;
    options.seed = seed;
    const scenarios::Replay replay = scenarios::replay_run(minimal, options);
    CHECK_FALSE(replay.result);
    CHECK_THAT(replay.invariant_broken,
               Catch::StartsWith("invariant broken: the test's slip at a failover"));
    // Without the fault the job never fails over: the invariant holds and the run ends.
    scenarios::Scenario quiet = minimal;
    quiet.faults.clear();
    const scenarios::Replay quiet_run = scenarios::replay_run(quiet, options);
    CHECK(quiet_run.invariant_broken.empty());
    CHECK(quiet_run.result);
}

}  // namespace
}  // namespace eosim::cli
