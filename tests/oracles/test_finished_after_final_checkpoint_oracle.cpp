// The FLIP-147 contract oracle (oracles/finished_after_final_checkpoint_oracle.h): a task that
// reached its end of data finishes only after a later checkpoint completed; a completed
// stop-with-savepoint counts, an intermediate savepoint does not; a restore forgets the tasks of
// the attempt before. Then in runs: the correct engine passes, the engine whose tasks finish at
// their end of data (the negative control, runtime.tasks_finish_before_final_checkpoint) is caught.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "oracles/finished_after_final_checkpoint_oracle.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::oracles {
namespace {

using engine::SnapshotKind;
using engine::SnapshotType;

sim::Time flip147_at(int64_t ms) { return sim::Time::zero() + sim::Duration::millis(ms); }

void flip147_complete(FinishedAfterFinalCheckpointOracle& oracle, int64_t id,
                      SnapshotType type = {}) {
    oracle.checkpoint_triggered(flip147_at(id * 100), id, type);
    oracle.checkpoint_completed(flip147_at(id * 100 + 50), id, {});
}

}  // namespace

TEST_CASE(
    "FLIP-147 contract: a task finishes only after a checkpoint after its end of data completed",
    "[oracle][flip147]") {
    FinishedAfterFinalCheckpointOracle oracle;
    flip147_complete(oracle, 1);
    oracle.end_of_data(flip147_at(160), "source", 0, 1);
    oracle.end_of_data(flip147_at(170), "source", 1, 1);
    flip147_complete(oracle, 2);
    oracle.finished(flip147_at(300), "source", 0);  // after checkpoint 2: fine
    CHECK(oracle.verdict().passed);
    oracle.end_of_data(flip147_at(310), "sink", 0, 2);
    oracle.finished(flip147_at(320), "sink", 0);  // checkpoint 2 is not after its end of data
    const Verdict verdict = oracle.verdict();
    CHECK_FALSE(verdict.passed);
    CHECK(verdict.message.find("task sink-0 finished at 0.320s") != std::string::npos);
    CHECK(verdict.message.find("after checkpoint 2") != std::string::npos);
    CHECK(verdict.message.find("1 of 2 finishing tasks") == 0);
}

TEST_CASE(
    "FLIP-147 contract: a completed stop-with-savepoint counts, an intermediate savepoint never",
    "[oracle][flip147]") {
    FinishedAfterFinalCheckpointOracle oracle;
    flip147_complete(oracle, 1);
    oracle.end_of_data(flip147_at(150), "count", 0, 1);
    flip147_complete(oracle, 2, SnapshotType{SnapshotKind::savepoint});
    oracle.finished(flip147_at(260), "count", 0);
    CHECK_FALSE(oracle.verdict().passed);

    FinishedAfterFinalCheckpointOracle stopped;
    stopped.checkpoint_triggered(flip147_at(100), 1,
                                 SnapshotType{SnapshotKind::terminate_savepoint, true});
    stopped.end_of_data(flip147_at(120), "source", 0,
                        1);  // drain: end of data after the final savepoint's barrier
    stopped.finished(flip147_at(130), "source", 0);  // the savepoint has not completed yet
    CHECK_FALSE(stopped.verdict().passed);
    FinishedAfterFinalCheckpointOracle drained;
    drained.checkpoint_triggered(flip147_at(100), 1,
                                 SnapshotType{SnapshotKind::terminate_savepoint, true});
    drained.end_of_data(flip147_at(120), "source", 0, 1);
    drained.checkpoint_completed(flip147_at(150), 1, {});
    drained.finished(flip147_at(160), "source", 0);
    CHECK(drained.verdict().passed);
}

TEST_CASE("FLIP-147 contract: a task without end of data in its attempt is not judged",
          "[oracle][flip147]") {
    FinishedAfterFinalCheckpointOracle oracle;
    oracle.end_of_data(flip147_at(100), "source", 0, 0);
    oracle.restore_started(flip147_at(200), 2, 0, {});
    oracle.finished(flip147_at(250), "source", 0);  // deployed finished after the restore
    const Verdict verdict = oracle.verdict();
    CHECK(verdict.passed);
    CHECK(verdict.message.find("0 tasks") == 0);
}

TEST_CASE(
    "FLIP-147 contract in runs: tasks over uneven splits pass, tasks that finish early are caught",
    "[oracle][flip147][.slow]") {
    const scenarios::Scenario correct =
        scenarios::load_scenario(testing::catalogue_scenario("finished-splits-aligned"));
    const scenarios::Scenario early =
        scenarios::load_scenario(testing::catalogue_scenario("finished-splits-finish-early"));
    for (uint64_t seed : {1u, 2u}) {
        scenarios::RunOptions options;
        options.seed = seed;
        const scenarios::RunResult passed = scenarios::run_scenario(correct, options);
        CHECK(passed.expectation_met);
        const scenarios::RunResult caught = scenarios::run_scenario(early, options);
        REQUIRE(caught.verdicts.size() == 1);
        CHECK_FALSE(caught.verdicts[0].passed);
        CHECK(caught.expectation_met);
    }
}

}  // namespace eosim::oracles
