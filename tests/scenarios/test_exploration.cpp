// The exploration strategies of `eosim explore` (scenarios/exploration.h): every strategy
// is a function of the seeds (same seeds, same runs, same trace hashes, whatever the thread count);
// pct changes the runs and replays from the seed and depth; guided keeps an input in its corpus
// exactly when the input's coverage grew, and a guided catch replays bit for bit from its written
// scenario file and seed. The run shape and the schedule mutator are checked on their own.
#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "oracles/oracle.h"
#include "scenarios/exploration.h"
#include "scenarios/run_shape.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/schedule_mutator.h"
#include "sim/invariant.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"
#include "tests/test_oracle.h"

namespace eosim::scenarios {
namespace {

std::vector<uint64_t> exploration_seeds(uint64_t first, size_t count) {
    std::vector<uint64_t> seeds;
    for (size_t i = 0; i < count; ++i) seeds.push_back(first + i);
    return seeds;
}

std::vector<uint64_t> exploration_hashes(const ExploreReport& report) {
    std::vector<uint64_t> hashes;
    for (const ExploreRun& run : report.runs) hashes.push_back(run.trace_hash);
    return hashes;
}

ExploreReport explore_with_strategy(const Scenario& scenario, ExploreStrategy strategy, size_t runs,
                                    size_t jobs) {
    ExploreOptions options;
    options.strategy = strategy;
    options.jobs = jobs;
    options.guided_batch = 4;
    return explore_scenario(scenario, exploration_seeds(1, runs), false, options, {});
}

TEST_CASE("explore: the same seeds and strategy give the same runs, whatever the thread count",
          "[scenarios][explore]") {
    const Scenario scenario = load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm"));
    for (const ExploreStrategy strategy :
         {ExploreStrategy::swarm, ExploreStrategy::pct, ExploreStrategy::guided}) {
        INFO(to_string(strategy));
        const ExploreReport one = explore_with_strategy(scenario, strategy, 12, 1);
        const ExploreReport two = explore_with_strategy(scenario, strategy, 12, 2);
        REQUIRE(one.runs.size() == 12);
        CHECK(exploration_hashes(one) == exploration_hashes(two));
        CHECK(one.coverage_keys == two.coverage_keys);
        CHECK(one.corpus_size == two.corpus_size);
    }
}

TEST_CASE(
    "explore: swarm runs are the seeds' own runs, pct runs differ and replay from seed and depth",
    "[scenarios][explore]") {
    const Scenario scenario = load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm"));
    const ExploreReport swarm = explore_with_strategy(scenario, ExploreStrategy::swarm, 4, 2);
    const ExploreReport pct = explore_with_strategy(scenario, ExploreStrategy::pct, 4, 2);
    for (size_t i = 0; i < 4; ++i) {
        RunOptions options;
        options.seed = swarm.runs[i].seed;
        CHECK(run_scenario(scenario, options).trace_hash == swarm.runs[i].trace_hash);
        CHECK(pct.runs[i].seed == swarm.runs[i].seed);
        CHECK(pct.runs[i].trace_hash != swarm.runs[i].trace_hash);
        sim::PriorityDeliveryOptions depth;
        depth.depth = 3;
        CHECK(run_scenario(with_priority_delivery(scenario, depth), options).trace_hash ==
              pct.runs[i].trace_hash);
    }
}

TEST_CASE("explore: guided keeps an input exactly when its coverage grew", "[scenarios][explore]") {
    const Scenario scenario = load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm"));
    const ExploreReport report = explore_with_strategy(scenario, ExploreStrategy::guided, 24, 2);
    REQUIRE(report.runs.size() == 24);
    size_t grew = 0;
    size_t keys = 0;
    size_t mutants = 0;
    for (const ExploreRun& run : report.runs) {
        CHECK(run.coverage_keys_after ==
              keys + run.new_keys);  // new keys are exactly what the total grew by
        keys = run.coverage_keys_after;
        grew += run.new_keys > 0 ? 1 : 0;
        if (run.schedule) ++mutants;
    }
    CHECK(report.corpus_size == grew);
    CHECK(report.coverage_keys == keys);
    CHECK(grew >= 1);
    CHECK(grew < report.runs.size());  // later runs that add nothing stay out
    CHECK(mutants >= 8);               // after the first generation most inputs are mutants
}

TEST_CASE("explore: a guided catch replays bit for bit from its written file and seed",
          "[scenarios][explore]") {
    const auto path = testing::catalogue_scenario("alo-sink-swarm");
    const Scenario scenario = load_scenario(path);
    const ExploreReport report = explore_with_strategy(scenario, ExploreStrategy::guided, 16, 2);
    const auto caught =
        std::find_if(report.runs.begin(), report.runs.end(),
                     [](const ExploreRun& run) { return run.schedule && !run.fired.empty(); });
    REQUIRE(caught != report.runs.end());
    std::ifstream in(path);
    const nlohmann::ordered_json original = nlohmann::ordered_json::parse(in);
    testing::TempDir dir;
    const auto written = dir.path() / "caught.json";
    std::ofstream(written) << guided_scenario_document(original, *caught, path.string()).dump(2);
    const Scenario replay = load_scenario(written);
    RunOptions options;
    options.seed = caught->seed;
    const RunResult again = run_scenario(replay, options);
    CHECK(again.trace_hash == caught->trace_hash);
    std::vector<std::string> fired;
    for (const OracleVerdict& v : again.verdicts) {
        if (!v.passed) fired.push_back(v.oracle);
    }
    CHECK(fired == caught->fired);
}

// An oracle that breaks an engine invariant when the job finishes: a stand-in for an engine slip.
class InvariantBreakingOracle final : public oracles::Oracle {
public:
    const char* name() const override { return "test_breaks_an_invariant"; }
    void job_finished(sim::Time) override {
        EOSIM_INVARIANT(!breaks_, "the test's stand-in for an engine slip");
    }
    oracles::Verdict verdict() const override { return {true, "never judged"}; }

private:
    bool breaks_ = true;
};

TEST_CASE("explore: a run that breaks an engine invariant is reported as such and the others go on",
          "[scenarios][explore]") {
    testing::register_test_oracle<InvariantBreakingOracle>("test_breaks_an_invariant",
                                                           "breaks an engine invariant at the end");
    nlohmann::json document;
    std::ifstream(testing::catalogue_scenario("kafka-count-eos-swarm")) >> document;
    testing::TempDir dir;
    // Positive twin: the scenario as it is breaks nothing.
    const ExploreReport clean =
        explore_with_strategy(load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm")),
                              ExploreStrategy::swarm, 3, 2);
    REQUIRE(clean.runs.size() == 3);
    for (const ExploreRun& run : clean.runs) CHECK(run.invariant_broken.empty());

    document["oracles"].push_back("test_breaks_an_invariant");
    const Scenario breaking = load_scenario(dir.write("breaking.json", document.dump()));
    const ExploreReport report = explore_with_strategy(breaking, ExploreStrategy::swarm, 3, 2);
    REQUIRE(report.runs.size() == 3);  // every run, each stopped by its broken invariant
    for (const ExploreRun& run : report.runs) {
        CHECK_THAT(run.invariant_broken,
                   Catch::StartsWith("invariant broken: the test's stand-in for an engine slip"));
        CHECK_FALSE(run.outcome_met);
    }
}

TEST_CASE("explore: the run shape is the trigrams of the job's and each transaction's events",
          "[scenarios][explore]") {
    RunShapeObserver shape;
    const engine::SnapshotType checkpoint{};
    shape.checkpoint_triggered({}, 1, checkpoint);
    shape.transaction_event({}, "sink-0-1", "precommitted");
    shape.checkpoint_completed({}, 1, {});
    shape.transaction_event({}, "sink-0-1", "committed");
    shape.checkpoint_triggered({}, 2, checkpoint);
    shape.failover({}, 2, "crash");
    const std::set<std::string>& keys = shape.keys();
    CHECK(keys.count("job:^>T>C") == 1);
    CHECK(keys.count("job:T>C>T") == 1);
    CHECK(keys.count("job:C>T>F") == 1);
    CHECK(keys.count("txn:^>precommitted>committed") == 1);
    CHECK(keys.count("txn@job:T>precommitted") == 1);
    CHECK(keys.count("txn@job:C>committed") == 1);
    CHECK(keys.size() == 6);
}

TEST_CASE(
    "explore: a schedule mutant is a function of the seed, changes the schedule and keeps it valid",
    "[scenarios][explore]") {
    const Scenario scenario = load_scenario(testing::catalogue_scenario("kafka-count-eos-swarm"));
    REQUIRE(scenario.random_faults);
    sim::Prng draw(42);
    const std::vector<sim::FaultSpec> faults =
        draw_random_faults(*scenario.random_faults, draw).faults;
    int changed = 0;
    for (uint64_t seed = 1; seed <= 30; ++seed) {
        sim::Prng a(seed);
        sim::Prng b(seed);
        const ScheduleMutant one = mutate_schedule(faults, scenario.random_faults, a);
        const ScheduleMutant two = mutate_schedule(faults, scenario.random_faults, b);
        CHECK(one.how == two.how);
        CHECK(one.faults.size() == two.faults.size());
        CHECK_FALSE(one.how.empty());
        changed += one.faults.size() != faults.size() || one.how.find("shift") != std::string::npos
                       ? 1
                       : 0;
        // A mutant runs to the end of the job (its faults stay within the quiet period).
        if (seed <= 3) {
            RunOptions options;
            options.seed = seed;
            const RunResult r = run_scenario(with_explicit_schedule(scenario, one.faults), options);
            CHECK(r.job_finished);
        }
    }
    CHECK(changed >= 10);
}

// A splice never copies a crash without restart: with the donor's only such crash, no mutant holds
// more of them than its parent (guided over jobmanager-ha-lost-watch spliced the leader's permanent
// crash onto the second JobManager: both gone for good, no job can finish).
TEST_CASE("schedule mutator: a splice copies no crash without restart", "[explore]") {
    sim::FaultSpec forever;
    forever.kind = sim::FaultKind::crash;
    forever.restart = false;
    forever.nodes = {"jobmanager"};
    forever.trigger.at = sim::Time::zero() + sim::Duration::seconds(3);
    sim::FaultSpec pause;
    pause.kind = sim::FaultKind::pause;
    pause.nodes = {"tm0"};
    pause.trigger.at = sim::Time::zero() + sim::Duration::seconds(2);
    const std::vector<sim::FaultSpec> parent = {pause};
    const std::vector<sim::FaultSpec> donor = {forever, pause};
    int spliced = 0;
    for (uint64_t seed = 1; seed <= 300; ++seed) {
        sim::Prng prng(seed);
        const ScheduleMutant mutant = mutate_schedule(parent, std::nullopt, prng, &donor);
        if (mutant.how.find("splice") != std::string::npos) ++spliced;
        for (const sim::FaultSpec& f : mutant.faults)
            CHECK((f.kind != sim::FaultKind::crash || f.restart));
    }
    CHECK(spliced >= 30);  // the splices happened, copying the pause
}

}  // namespace
}  // namespace eosim::scenarios
