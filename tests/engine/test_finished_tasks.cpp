// Tasks that finish early (FLIP-147, engine/runtime/task.h), driven through a whole job in the real
// engine: a count job whose two source subtasks read partitions weighted 4:1, so the short one
// reaches its end offsets seconds before the long one. Each TEST_CASE names the Flink test whose
// behaviour it mirrors at the level of a whole job.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/vocabulary/protocol_points.h"
#include "scenarios/scenario.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using namespace eosim::engine::test;

// The short source subtask (1) reads ~1200 records, the long one (0) ~4800, each at 1 ms a record.
scenarios::Scenario uneven_count_scenario() {
    auto s = count_scenario(6000, 2);
    s.job.vertices[0].record_cost = Duration::millis(1);
    s.inputs[0].rate_per_second = 1'000'000;
    s.inputs[0].partition_weights = {4, 1};
    return s;
}

// A crash of the short source's TaskManager `delay` after that source finished.
sim::FaultSpec crash_after_short_source_finished(Duration delay) {
    sim::FaultSpec f = crash_at_point(std::string(points::kTaskFinished), 1, Duration::millis(500));
    f.trigger.point_vertex = "source";
    f.trigger.point_subtask = 1;
    f.trigger.delay = delay;
    return f;
}

// Flink: the task waits for a checkpoint that completes after its end of data before it finishes,
// and checkpoints triggered after some inputs received EndOfPartition still complete. Here: after
// the short source finished, checkpoints keep completing (without it), and a restore from one of
// them deploys it finished, so exactly once holds.
TEST_CASE(
    "StreamTaskFinalCheckpointsTest.testWaitingForFinalCheckpoint: checkpoints go on after a source finished",
    "[finished][flink]") {
    auto s = uneven_count_scenario();
    s.faults = {crash_after_short_source_finished(Duration::millis(1600))};
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        REQUIRE(result.faults.size() == 1);
        const int64_t crash_ns = result.faults[0].at.ns;
        const int64_t finished_ns = crash_ns - Duration::millis(1600).ns;
        int64_t completed_while_finished = 0;
        for (const auto& e : events(result, "checkpoint.completed")) {
            if (e.at_ns > finished_ns && e.at_ns < crash_ns) ++completed_while_finished;
        }
        CHECK(completed_while_finished >=
              2);  // a checkpoint every 500 ms, the finished source in none
        CHECK(count_events(result, "failover") >= 1);
    }
}

// Flink restores a subtask whose state is FinishedOperatorSubtaskState as finished: it reads
// nothing. The positive twin is above; here the negative control deploys it running, and it reads
// its split again: exactly_once_output sees the duplicates on every seed.
TEST_CASE(
    "CheckpointStateRestoreTest.testRestoreFinishedStateWithoutInFlightData: a finished source read again is caught",
    "[finished][flink]") {
    auto s = uneven_count_scenario();
    s.job.runtime.finished_sources_read_again = true;
    s.faults = {crash_after_short_source_finished(Duration::millis(1600))};
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK_FALSE(verdict(result, "exactly_once_output").passed);
    }
}

// Flink's producer finishes only once every consumer processed its EndOfData (the partition's
// all-data-processed future). Here the count is slow (4 ms a record against two sources at 1 ms),
// so seconds of records queue behind the short source's end of data; checkpointing is unaligned.
// The short source stays running and checkpointed until its consumers processed that backlog, so
// every checkpoint's barriers overtake the backlog and no checkpoint waits for it. Before, the
// source finished at once, the coordinator left it out, and the next checkpoint waited at the count
// for its end of partition, behind the whole backlog (2.0 s in unaligned-swarm seed 41).
TEST_CASE(
    "ResultPartitionTest.testWaitForAllRecordProcessed: a finished source's backlog delays no checkpoint",
    "[finished][flink]") {
    auto s = uneven_count_scenario();
    s.job.vertices[1].record_cost = Duration::millis(4);
    s.job.checkpointing.unaligned = true;
    const auto result = run_scenario(s, RunOptions{3, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK(result.figures.checkpoints_unaligned >= 10);
    // At most the time the count takes for one network buffer (eosim processes a buffer as one
    // step: an end of partition that arrives meanwhile waits for it); before, 4,871 ms.
    const double one_buffer_ms = static_cast<double>(s.job.runtime.buffer_records) * 4.0;
    CHECK(result.figures.alignment_max_ms < one_buffer_ms);
    CHECK(result.figures.checkpoint_duration_max_ms < one_buffer_ms);
}

// Flink's SubtaskCheckpointCoordinatorImpl.checkpointState skips a trigger older than the last
// checkpoint the task took ("Out of order checkpoint barrier"). Guided exploration found a schedule
// (the fixture) where a slow link let checkpoint 4's trigger overtake checkpoint 3's at a source:
// the engine broke its invariant (each checkpoint snapshotted once, in increasing order) and
// aborted. Now the late trigger is skipped and every oracle passes.
TEST_CASE(
    "SubtaskCheckpointCoordinatorImpl out-of-order trigger: a trigger overtaken by a newer one is skipped",
    "[finished][flink]") {
    const auto s = scenarios::load_scenario(std::string(EOSIM_SOURCE_DIR) +
                                            "/tests/engine/fixtures/out-of-order-trigger.json");
    const auto result = run_scenario(s, RunOptions{100157, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK(result.figures.checkpoints_completed >= 10);
}

// Without faults every subtask finishes, one after the other, and then the job.
TEST_CASE("finished tasks: without faults the job finishes", "[finished]") {
    auto s = uneven_count_scenario();
    const auto result = run_scenario(s, RunOptions{7, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK(count_events(result, "job.finished") == 1);
}

}  // namespace
}  // namespace eosim::engine
