// scenarios/job_history.h and scenarios/checkpoint_stats.h, as Flink's web UI shows a job: attempts
// named deployment/attempt, statuses, deployments apart with their savepoints named, checkpoint
// statuses from Flink's failure reasons and a summary over the failed ones apart from the completed
// ones; then whole runs: an upgrade shows v1 and v2, the backpressure trio its failed checkpoints
// and back pressure -- with the trace hashes unchanged by any of it (display only).
#include <algorithm>
#include <regex>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "engine/vocabulary/job_spec.h"
#include "scenarios/checkpoint_stats.h"
#include "scenarios/job_history.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

using engine::CheckpointFailureReason;
using engine::SnapshotKind;
using engine::SnapshotType;

sim::Time at_ms(int64_t ms) { return sim::Time::zero() + sim::Duration::millis(ms); }

TEST_CASE("job history: attempts as deployment/attempt, statuses, deployments and their savepoints",
          "[scenarios][history]") {
    JobHistory h;
    h.restore_started(at_ms(0), 2001, 0, {});  // a JobManager's second incarnation: raw 2001
    h.checkpoint_triggered(at_ms(100), 1, SnapshotType{});
    h.failover(at_ms(500), 2002, "TaskManager tm1 lost");
    h.restore_started(at_ms(600), 2002, 1, {});
    h.checkpoint_triggered(at_ms(900), 4, SnapshotType{SnapshotKind::terminate_savepoint, false});
    h.checkpoint_completed(at_ms(950), 4, {});
    CHECK(h.snapshot_name(4) == "stop-with-savepoint 4");
    CHECK(h.snapshot_name(1) == "checkpoint 1");
    h.job_finished(at_ms(1000));
    h.restore_started(at_ms(1000), kAttemptsPerDeployment + 1, 4, {});
    h.job_finished(at_ms(2000));

    CHECK(h.attempt_name(2001) == "v1/1");
    CHECK(h.attempt_name(2002) == "v1/2");
    CHECK(h.attempt_name(kAttemptsPerDeployment + 1) == "v2/1");
    CHECK(h.attempt_name(77) == "77");  // never seen: the raw number
    REQUIRE(h.exceptions().size() == 1);
    CHECK(h.exceptions()[0].attempt_name == "v1/1");
    CHECK(h.exceptions()[0].status_after == "RESTARTING");
    REQUIRE(h.deployments().size() == 2);
    CHECK(h.deployments()[0].name == "v1");
    CHECK(h.deployments()[0].ended == "stopped with savepoint 4");
    CHECK(h.deployments()[0].attempts == 2);
    CHECK(h.deployments()[1].name == "v2");
    CHECK(h.deployments()[1].restored_from == 4);
    CHECK(h.deployments()[1].ended == "finished");
    std::string statuses;
    for (const JobStatusChange& c : h.status_history())
        statuses += c.deployment + ":" + c.status + " ";
    CHECK(
        statuses ==
        "v1:CREATED v1:RUNNING v1:RESTARTING v1:RUNNING v1:FINISHED v2:CREATED v2:RUNNING v2:FINISHED ");
}

TEST_CASE("job history: a failed job is FAILING then FAILED, a lost leadership SUSPENDED",
          "[scenarios][history]") {
    JobHistory h;
    h.restore_started(at_ms(0), 1, 0, {});
    h.job_suspended(at_ms(10), "lost its leadership");
    h.restore_started(at_ms(20), 2001, 0, {});  // a new JobManager: no failover before it
    h.job_failed(at_ms(30), "restart strategy exhausted");
    std::string statuses;
    for (const JobStatusChange& c : h.status_history()) statuses += c.status + " ";
    CHECK(statuses == "CREATED RUNNING SUSPENDED RUNNING FAILING FAILED ");
    CHECK_THAT(h.status_history()[3].detail, Catch::Contains("a new JobManager recovered the job"));
    REQUIRE(h.exceptions().size() == 2);  // the new JobManager's takeover is a JobManager failover
    CHECK(h.exceptions()[0].job_manager);
    CHECK(h.exceptions()[1].status_after == "FAILED");
    CHECK(h.deployments()[0].ended == "failed: restart strategy exhausted");
}

TEST_CASE(
    "checkpoint stats: Flink's reasons give expired, declined, subsumed, and failed ones are summarised apart",
    "[scenarios][history]") {
    CHECK(checkpoint_status_of(CheckpointFailureReason::checkpoint_expired) == "expired");
    CHECK(checkpoint_status_of(CheckpointFailureReason::checkpoint_declined_task_not_ready) ==
          "declined");
    CHECK(checkpoint_status_of(CheckpointFailureReason::checkpoint_subsumed) == "subsumed");
    CHECK(checkpoint_status_of(CheckpointFailureReason::io_exception) == "failed");

    CheckpointStatsTracker t;
    t.checkpoint_triggered(at_ms(0), 1, SnapshotType{});
    engine::TaskCheckpointStats task;
    task.checkpoint_id = 1;
    task.vertex = "count";
    task.first_barrier_at = at_ms(20);
    task.alignment = sim::Duration::millis(900);
    t.task_checkpoint_stats(at_ms(925), task);  // 5 ms after the last barrier: the sync part
    t.checkpoint_aborted(at_ms(1000), 1, CheckpointFailureReason::checkpoint_expired,
                         "expired before completing");
    t.checkpoint_triggered(at_ms(2000), 2, SnapshotType{SnapshotKind::savepoint, false});
    task.checkpoint_id = 2;
    task.first_barrier_at = at_ms(2001);
    task.alignment = sim::Duration::millis(2);
    t.task_checkpoint_stats(at_ms(2003), task);
    t.task_checkpoint_acknowledged(at_ms(2010), 2, "count", 0);
    t.checkpoint_completed(at_ms(2012), 2, {});

    const auto& c = t.checkpoints();
    REQUIRE(c.size() == 2);
    CHECK(c[0].status == "expired");
    CHECK(c[0].failed());
    CHECK(c[0].failure_reason == "CHECKPOINT_EXPIRED");
    CHECK(c[0].tasks[0].start_delay_ms == Approx(20));
    CHECK(c[0].tasks[0].sync_ms == Approx(5));
    CHECK(c[0].tasks[0].async_ms == -1);  // never acknowledged
    CHECK(c[1].type == "savepoint");
    CHECK(c[1].tasks[0].async_ms == Approx(7));
    const CheckpointStatsSummary s = summarize(c);
    CHECK(s.completed_summary.count == 1);
    CHECK(s.failed_summary.count == 1);
    CHECK(s.completed_summary.alignment_ms.max == Approx(2));
    CHECK(s.failed_summary.alignment_ms.max == Approx(900));  // what a completed-only summary hid
    CHECK(s.alignment_max_ms == Approx(2));
}

TEST_CASE("the upgrade scenario's run tells v1 and v2 apart and names the savepoint",
          "[scenarios][history][slow]") {
    const Scenario scenario =
        load_scenario(testing::catalogue_scenario("savepoint-upgrade-rescale"));
    RunOptions options;
    options.seed = 1;
    const RunResult r = run_scenario(scenario, options);
    REQUIRE(r.deployments.size() == 3);  // v1, then v2 and v3 each from its predecessor's savepoint
    CHECK(r.deployments[0].name == "v1");
    CHECK_THAT(r.deployments[0].ended, Catch::StartsWith("stopped with savepoint "));
    CHECK(r.deployments[1].name == "v2");
    CHECK(r.deployments[1].restored_kind == "savepoint");
    CHECK(r.deployments[0].ended ==
          "stopped with savepoint " + std::to_string(r.deployments[1].restored_from));
    CHECK(r.deployments[2].name == "v3");
    CHECK(r.deployments[2].ended == "finished");
    CHECK(std::any_of(r.checkpoints.begin(), r.checkpoints.end(), [](const CheckpointStats& c) {
        return c.type == "stop-with-savepoint" && c.deployment == "v1" && c.status == "completed";
    }));
    CHECK(std::any_of(r.timeline.begin(), r.timeline.end(), [](const TimelineEvent& e) {
        return e.what == "job.finished" && e.detail.find("v1 stopped with savepoint") == 0;
    }));
    for (const TimelineEvent& e : r.timeline) {
        if (e.what == "restore") CHECK_THAT(e.detail, Catch::Matches("attempt v[123]/[0-9]+ .*"));
    }
}

TEST_CASE(
    "the backpressure trio: failed checkpoints and back pressure are shown, the trace hash unchanged",
    "[scenarios][history][slow]") {
    const Scenario aligned =
        load_scenario(testing::catalogue_scenario("backpressure-aligned-timeouts"));
    RunOptions options;
    options.seed = 1;
    const RunResult r = run_scenario(aligned, options);
    CHECK(r.checkpoint_summary.failed_summary.count > 0);
    CHECK(r.checkpoint_summary.failed_summary.alignment_ms.max >
          r.checkpoint_summary.completed_summary.alignment_ms.max);
    CHECK(r.figures.checkpoints_failed == r.checkpoint_summary.failed_summary.count);
    REQUIRE_FALSE(r.back_pressure.empty());
    CHECK(std::any_of(r.back_pressure.begin(), r.back_pressure.end(),
                      [](const VertexBackPressure& v) { return std::string(v.level()) != "OK"; }));
    for (const VertexBackPressure& v : r.back_pressure)
        CHECK(v.busy + v.backpressured + v.idle == Approx(1));
    REQUIRE_FALSE(r.exceptions.empty());
    CHECK_THAT(r.exceptions.back().reason, Catch::Contains("CHECKPOINT_EXPIRED"));
    // Sampling back pressure and naming things reads only: a trace log does not change the hash.
    std::ostringstream log;
    RunOptions logged = options;
    logged.trace_log = &log;
    CHECK(run_scenario(aligned, logged).trace_hash == r.trace_hash);
    CHECK_THAT(log.str(), Catch::Contains("\"node_name\":\"jobmanager\""));
    CHECK_THAT(log.str(), Catch::Contains("\"what\":\"checkpoint.triggered 1\""));
    CHECK(std::regex_search(log.str(), std::regex("\"task\":\"[^\"]+-[0-9]+ v1/[0-9]+\"")));
}

}  // namespace
}  // namespace eosim::scenarios
