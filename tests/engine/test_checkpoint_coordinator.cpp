// CheckpointCoordinator (engine/checkpoint_coordinator.h), driven through a whole small job in the
// real engine (scenarios::run_scenario): ids strictly increase across failovers; without faults
// checkpoints complete at about the interval; a storage failure aborts checkpoints and fails the
// job over only past tolerable_failures; a timeout shorter than any checkpoint aborts them all; a
// failover aborts the checkpoints still pending.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/vocabulary/protocol_points.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using namespace eosim::engine::test;

TEST_CASE("coordinator: checkpoint ids strictly increase across failovers", "[coordinator]") {
    auto s = count_scenario(3000);
    s.faults = {crash_at("tm1", Duration::millis(1300), Duration::millis(500)),
                crash_at("tm0", Duration::millis(4200), Duration::millis(300))};
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.figures.restarts >= 1);
        CHECK(count_events(result, "failover") == result.figures.restarts);
        const auto triggered = events(result, "checkpoint.triggered");
        REQUIRE(triggered.size() >= 4);
        int64_t last = 0;
        for (const auto& e : triggered) {
            const int64_t id = checkpoint_id_of(e);
            CHECK(id > last);
            last = id;
        }
        // Every completed and every aborted checkpoint was triggered, and completions are
        // increasing too.
        int64_t last_completed = 0;
        for (const auto& e : events(result, "checkpoint.completed")) {
            const int64_t id = checkpoint_id_of(e);
            CHECK(id > last_completed);
            CHECK(id <= last);
            last_completed = id;
        }
        // A restore after a failover names a checkpoint that completed before it.
        for (const auto& e : events(result, "restore")) {
            const auto pos = e.detail.find("restores checkpoint ");
            if (pos == std::string::npos) continue;
            const int64_t restored = std::stoll(e.detail.substr(pos + 20));
            bool completed_before = false;
            for (const auto& c : events(result, "checkpoint.completed")) {
                if (checkpoint_id_of(c) == restored && c.at_ns <= e.at_ns) completed_before = true;
            }
            CHECK(completed_before);
        }
    }
}

// Flink's CheckpointIDCounter only moves forward: checkpoint 1 completed, checkpoint 2
// was triggered (announced) but no task wrote state for it, and the JobManager crashed. The
// recovered JobManager must not trigger 2 again: the id counter is durable before a trigger goes
// out. Before the fix the triggered sequence was 1, 2, 2.
TEST_CASE("coordinator: after a JobManager crash in the trigger window the ids go on 1, 2, 3",
          "[coordinator][issue18]") {
    auto s = count_scenario(3000);
    s.job.checkpointing.max_concurrent = 2;
    s.faults = {crash_at_point(std::string(points::kCheckpointTriggered), 2, Duration::millis(500),
                               {"jobmanager"})};
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        std::vector<int64_t> ids;
        for (const auto& e : events(result, "checkpoint.triggered"))
            ids.push_back(checkpoint_id_of(e));
        REQUIRE(ids.size() >= 3);
        CHECK(std::vector<int64_t>(ids.begin(), ids.begin() + 3) == std::vector<int64_t>{1, 2, 3});
        for (size_t i = 1; i < ids.size(); ++i) CHECK(ids[i] > ids[i - 1]);
    }
}

TEST_CASE("coordinator: without faults checkpoints complete at about the interval",
          "[coordinator]") {
    auto s = count_scenario(3000);
    const auto result = run_scenario(s, RunOptions{7, nullptr});
    INFO(describe(result));
    REQUIRE(result.expectation_met);
    REQUIRE(result.job_finished);
    CHECK(result.figures.restarts == 0);
    CHECK(result.figures.checkpoints_aborted == 0);
    // The input takes 3 s of virtual time: with a 500 ms interval that is about 6 checkpoints, plus
    // the one that finishes the job after the end of the input.
    const double expected = result.figures.virtual_seconds / 0.5;
    CHECK(result.figures.checkpoints_completed >= static_cast<int64_t>(expected * 0.6));
    CHECK(result.figures.checkpoints_completed <= static_cast<int64_t>(expected) + 1);
    CHECK(count_events(result, "checkpoint.completed") == result.figures.checkpoints_completed);
    CHECK(count_events(result, "checkpoint.triggered") == result.figures.checkpoints_completed);
    // The periodic trigger fires at a fixed rate (Flink's scheduleAtFixedRate); a checkpoint is
    // triggered once its id is durable, one storage write (1-5 ms) later. So consecutive triggers
    // are the interval apart, give or take the difference of two write latencies.
    const auto triggered = events(result, "checkpoint.triggered");
    for (size_t i = 1; i < triggered.size(); ++i) {
        const int64_t gap_ns = triggered[i].at_ns - triggered[i - 1].at_ns;
        CHECK(gap_ns >= Duration::millis(496).ns);
        CHECK(gap_ns <= Duration::millis(504).ns);
    }
}

TEST_CASE("coordinator: the interval sets the checkpoint rate", "[coordinator]") {
    auto slow = count_scenario(3000);
    slow.job.checkpointing.interval = Duration::millis(1000);
    auto fast = count_scenario(3000);
    fast.job.checkpointing.interval = Duration::millis(200);
    const auto slow_result = run_scenario(slow, RunOptions{3, nullptr});
    const auto fast_result = run_scenario(fast, RunOptions{3, nullptr});
    INFO(describe(slow_result) << describe(fast_result));
    REQUIRE(slow_result.expectation_met);
    REQUIRE(fast_result.expectation_met);
    CHECK(fast_result.figures.checkpoints_completed >=
          3 * slow_result.figures.checkpoints_completed);
}

TEST_CASE(
    "coordinator: a storage failure aborts checkpoints, with no tolerable failures the job fails over",
    "[coordinator]") {
    auto s = count_scenario(4000);
    s.job.checkpointing.tolerable_failures = 0;
    s.faults = {
        timed_fault(sim::FaultKind::storage_failure, Duration::millis(1200), Duration::seconds(2))};
    const auto result = run_scenario(s, RunOptions{11, nullptr});
    INFO(describe(result));
    CHECK(result.figures.checkpoints_aborted >= 1);
    CHECK(result.figures.restarts >= 1);
    CHECK(count_events(result, "failover") >= 1);
    const auto failovers = events(result, "failover");
    REQUIRE_FALSE(failovers.empty());
    CHECK(failovers.front().detail.find("consecutive failed checkpoints") != std::string::npos);
    // Flink's CheckpointFailureManager's text, which a Flink user's job_failure greps for.
    CHECK(
        failovers.front().detail.find(
            "Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to ") !=
        std::string::npos);
    // Recovery: exactly-once still holds and the job finishes.
    CHECK(result.expectation_met);
    CHECK(result.job_finished);
}

TEST_CASE(
    "coordinator: a storage failure within tolerable_failures aborts checkpoints without a failover",
    "[coordinator]") {
    auto s = count_scenario(4000);
    s.job.checkpointing.tolerable_failures = 1000;
    s.faults = {
        timed_fault(sim::FaultKind::storage_failure, Duration::millis(1200), Duration::seconds(2))};
    const auto result = run_scenario(s, RunOptions{11, nullptr});
    INFO(describe(result));
    CHECK(result.figures.checkpoints_aborted >= 2);
    CHECK(result.figures.restarts == 0);
    CHECK(count_events(result, "failover") == 0);
    // Every abort falls inside the failure window (plus the time a pending write needs to fail).
    for (const auto& e : events(result, "checkpoint.aborted")) {
        CHECK(e.at_ns >= Duration::millis(1200).ns);
        CHECK(e.at_ns <= Duration::millis(3200).ns + Duration::seconds(1).ns);
    }
    // Checkpoints complete again after the window, and the job finishes with exactly-once output.
    bool completed_after = false;
    for (const auto& e : events(result, "checkpoint.completed"))
        completed_after |= e.at_ns > Duration::millis(3200).ns;
    CHECK(completed_after);
    CHECK(result.expectation_met);
    CHECK(result.job_finished);
}

TEST_CASE("coordinator: checkpoints that cannot finish within the timeout are aborted",
          "[coordinator]") {
    auto s = count_scenario(2000);
    s.job.checkpointing.timeout = Duration::millis(1);
    s.job.checkpointing.tolerable_failures = 1000000;
    s.time_limit = Duration::seconds(8);  // the job cannot finish without a completed checkpoint
    const auto result = run_scenario(s, RunOptions{5, nullptr});
    INFO(describe(result));
    CHECK(result.figures.checkpoints_completed == 0);
    CHECK(result.figures.checkpoints_aborted >= 5);
    CHECK(result.figures.restarts == 0);
    CHECK_FALSE(result.job_finished);
    const auto aborted = events(result, "checkpoint.aborted");
    REQUIRE_FALSE(aborted.empty());
    for (const auto& e : aborted) CHECK(e.detail.find("expired") != std::string::npos);
    // Each checkpoint is aborted 1 ms after its trigger.
    const auto triggered = events(result, "checkpoint.triggered");
    for (const auto& a : aborted) {
        const int64_t id = checkpoint_id_of(a);
        for (const auto& t : triggered) {
            if (checkpoint_id_of(t) == id) CHECK(a.at_ns - t.at_ns == Duration::millis(1).ns);
        }
    }
    // The liveness oracle notices that the job never finished.
    CHECK_FALSE(verdict(result, "liveness").passed);
}

TEST_CASE(
    "coordinator: a timeout with no tolerable failures fails over until the restart strategy gives up",
    "[coordinator]") {
    auto s = count_scenario(2000);
    s.job.checkpointing.timeout = Duration::millis(1);
    s.job.checkpointing.tolerable_failures = 0;
    s.job.restart.max_attempts = 3;
    s.job.restart.delay = Duration::millis(100);
    const auto result = run_scenario(s, RunOptions{5, nullptr});
    INFO(describe(result));
    CHECK(result.figures.checkpoints_completed == 0);
    CHECK(count_events(result, "failover") == 3);
    CHECK(count_events(result, "job.failed") == 1);
    CHECK_FALSE(result.job_finished);
    const auto& liveness = verdict(result, "liveness");
    CHECK_FALSE(liveness.passed);
    CHECK(liveness.message.find("failed for good") != std::string::npos);
}

TEST_CASE("coordinator: min_pause spaces a checkpoint's trigger from the previous completion",
          "[coordinator]") {
    auto s = count_scenario(3000);
    s.job.checkpointing.interval = Duration::millis(100);
    s.job.checkpointing.min_pause = Duration::millis(700);
    const auto result = run_scenario(s, RunOptions{9, nullptr});
    INFO(describe(result));
    REQUIRE(result.expectation_met);
    const auto completed = events(result, "checkpoint.completed");
    const auto triggered = events(result, "checkpoint.triggered");
    REQUIRE(completed.size() >= 2);
    for (const auto& t : triggered) {
        // The latest completion before this trigger is at least min_pause before it.
        int64_t latest = -1;
        for (const auto& c : completed) {
            if (c.at_ns <= t.at_ns) latest = c.at_ns;
        }
        if (latest >= 0) CHECK(t.at_ns - latest >= Duration::millis(700).ns);
    }
}

// A failover abandons the checkpoints still pending: they are reported as aborted (Flink fails
// them too), so the timeline never shows a checkpoint that was triggered and simply vanished, and
// checkpoints_aborted counts them.
TEST_CASE(
    "coordinator: every triggered checkpoint ends completed or aborted, also across a failover",
    "[coordinator]") {
    auto s = count_scenario(3000);
    s.faults = {crash_at_point(std::string(points::kSinkPrecommitted), 3, Duration::millis(500))};
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    REQUIRE(result.figures.restarts >= 1);
    for (const auto& t : events(result, "checkpoint.triggered")) {
        const int64_t id = checkpoint_id_of(t);
        bool ended = false;
        for (const char* what : {"checkpoint.completed", "checkpoint.aborted"}) {
            for (const auto& e : events(result, what)) ended |= checkpoint_id_of(e) == id;
        }
        INFO("checkpoint " << id);
        CHECK(ended);
    }
    CHECK(result.figures.checkpoints_aborted == count_events(result, "checkpoint.aborted"));
    bool aborted_by_failover = false;
    for (const auto& e : events(result, "checkpoint.aborted")) {
        aborted_by_failover |= e.detail.find("attempt failed") != std::string::npos;
    }
    CHECK(aborted_by_failover);
}

TEST_CASE(
    "coordinator: a failover during a metadata write restores what a JobManager restart would",
    "[coordinator]") {
    // Regression (tests/engine/fixtures/checkpoint-settling-seed3457.json): the metadata of a fully
    // acknowledged checkpoint landed while the attempt failed over. Its write decides: it counts
    // as completed, the next attempt restores it, and a later JobManager crash restores the same.
    const scenarios::Scenario scenario =
        scenarios::load_scenario(std::filesystem::path(EOSIM_SOURCE_DIR) /
                                 "tests/engine/fixtures/checkpoint-settling-seed3457.json");
    scenarios::RunOptions options;
    options.seed = 3457;
    const scenarios::RunResult result = scenarios::run_scenario(scenario, options);
    std::string verdicts;
    for (const scenarios::OracleVerdict& v : result.verdicts) verdicts += v.message + "\n";
    INFO(verdicts);
    CHECK(result.expectation_met);
    CHECK(result.job_finished);
}

}  // namespace
}  // namespace eosim::engine

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using namespace eosim::engine::test;

// A job with many aborts of every kind the coordinator produces without a JobManager crash: a
// storage outage (state uploads fail: declines; id and metadata writes fail), slow storage (some
// checkpoints expire, newer ones complete first and subsume older ones), a Kafka write failure
// (a sink declines and fails: a failover aborts the pending checkpoints).
scenarios::Scenario many_aborts_scenario() {
    auto s = count_scenario(7000);
    s.job.checkpointing.interval = Duration::millis(100);
    s.job.checkpointing.max_concurrent = 3;
    s.job.checkpointing.timeout = Duration::millis(300);
    s.job.checkpointing.tolerable_failures = 1000000;
    // Short storage outages: uploads (or id or metadata writes) that complete in one fail.
    for (int64_t at_ms : {1000, 1230, 1470, 1710, 1950}) {
        s.faults.push_back(timed_fault(sim::FaultKind::storage_failure, Duration::millis(at_ms),
                                       Duration::millis(40)));
    }
    sim::FaultSpec slow =
        timed_fault(sim::FaultKind::storage_slow, Duration::millis(2500), Duration::millis(1500));
    slow.multiplier = 100;  // 100-500 ms per operation: some uploads outlast the timeout
    s.faults.push_back(slow);
    s.faults.push_back(timed_fault(sim::FaultKind::kafka_write_failure, Duration::millis(5000),
                                   Duration::millis(100)));
    return s;
}

// Flink: CheckpointCoordinatorTest's testTriggerAndDeclineCheckpointSimple,
// testCheckpointTimeoutIsolated, testSuccessfulCheckpointSubsumesOlderPendingCheckpoints and
// testStateCleanupForLateOrUnknownMessages: every aborted checkpoint's acknowledged state, and
// state acknowledged late, is discarded; storage ends with exactly the retained checkpoints' files.
TEST_CASE("coordinator: after many aborts storage holds exactly the retained checkpoints' files",
          "[coordinator][issue18]") {
    const auto s = many_aborts_scenario();
    std::map<std::string, int64_t> reasons;  // over every seed
    for (uint64_t seed : {1, 2, 3, 4}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        const auto& f = result.figures;
        std::string listed;
        for (const auto& [reason, count] : f.checkpoints_aborted_by_reason) {
            listed += reason + " " + std::to_string(count) + "; ";
            reasons[reason] += count;
        }
        INFO(listed);
        REQUIRE(result.expectation_met);
        REQUIRE(result.job_finished);
        CHECK(f.checkpoints_aborted >= 4);
        CHECK(f.restarts >= 1);
        CHECK(f.checkpoint_files_discarded > 0);
        CHECK(f.checkpoint_bytes_discarded > 0);
        // Exactly the retained checkpoints: 3 checkpoints of 6 tasks' state and a _metadata each
        // (files whose deletion is under way as the run ends are not counted).
        CHECK(f.checkpoint_files_unretained == 0);
        CHECK(f.checkpoint_bytes_unretained == 0);
        CHECK(f.checkpoint_files_retained == 3 * (6 + 1));
    }
    // The runs had aborts of every kind: expired, subsumed, declined (a failed upload, a failed
    // pre-commit), failed trigger writes.
    for (const char* reason :
         {"CHECKPOINT_EXPIRED", "CHECKPOINT_SUBSUMED", "CHECKPOINT_ASYNC_EXCEPTION",
          "CHECKPOINT_DECLINED", "IO_EXCEPTION"}) {
        INFO(reason);
        CHECK(reasons[reason] > 0);
    }
}

// The negative control of the storage figure: a JobManager that crashes takes its pending
// checkpoints with it, and nobody deletes their acknowledged state (Flink neither): the figure sees
// it.
TEST_CASE(
    "coordinator: state of checkpoints pending at a JobManager crash is left, and the figure shows it",
    "[coordinator][issue18]") {
    auto s = count_scenario(3000);
    s.job.checkpointing.interval = Duration::millis(100);
    s.job.checkpointing.max_concurrent = 3;
    s.world.storage.latency = sim::LinkLatency{Duration::millis(20), Duration::millis(60)};
    s.faults = {crash_at_point(std::string(points::kCheckpointAcknowledged), 3,
                               Duration::millis(500), {"jobmanager"})};
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    REQUIRE(result.expectation_met);
    CHECK(result.figures.checkpoint_files_unretained > 0);
}

// Flink: CheckpointCoordinatorTest's abortPendingCheckpoints on a failover
// (testAbortPendingCheckpointsWithTriggerValidation and the task-side notifyCheckpointAborted): the
// pending checkpoints end as CHECKPOINT_COORDINATOR_SUSPEND and the tasks are told.
TEST_CASE("coordinator: a failover aborts pending checkpoints as suspended and tells the tasks",
          "[coordinator][issue18]") {
    auto s = count_scenario(3000);
    s.faults = {crash_at_point(std::string(points::kSinkPrecommitted), 3, Duration::millis(500))};
    std::ostringstream trace;
    const auto result = run_scenario(s, RunOptions{1, &trace});
    INFO(describe(result));
    REQUIRE(result.expectation_met);
    int64_t suspended_ns = -1;
    for (const auto& e : events(result, "checkpoint.aborted")) {
        if (e.detail.find("CHECKPOINT_COORDINATOR_SUSPEND") != std::string::npos)
            suspended_ns = e.at_ns;
    }
    REQUIRE(suspended_ns >= 0);
    // Every abort in the timeline names its reason.
    for (const auto& e : events(result, "checkpoint.aborted"))
        CHECK(e.detail.find("CHECKPOINT_") != std::string::npos);
    // The run had no other abort, so every notifyCheckpointAborted in the trace is the failover's.
    CHECK(count_events(result, "checkpoint.aborted") == 1);
    CHECK(trace.str().find("checkpoint.notify_aborted") != std::string::npos);
}

// The storage figure's function on a hand-made store: retained = metadata + the state it names.
TEST_CASE("checkpoint storage: retained and unretained files of a store", "[coordinator]") {
    JobSpec job;
    job.name = "j";
    job.vertices = {VertexSpec{}};
    job.vertices[0].id = "v";
    CompletedCheckpoint c;
    c.id = 4;
    c.handles[{0, 0}] = "checkpoints/j/chk-4/v-0-a1";
    std::map<std::string, std::string> blobs{
        {"checkpoints/j/chk-4/_metadata", serialize_checkpoint_metadata(c)},
        {"checkpoints/j/chk-4/v-0-a1", "12345"},
        {"checkpoints/j/chk-5/v-0-a1", "123"},   // an aborted checkpoint's state
        {"checkpoints/j/chk-6/v-0-a1", "1234"},  // being deleted
        {checkpoint_id_counter_key(job, 6), "6"},
        {"checkpoints/other/chk-1/_metadata", "{}"},
    };
    const auto use = checkpoint_storage_use(
        job, blobs, [](const std::string& key) { return key.find("chk-6") != std::string::npos; });
    CHECK(use.retained.files == 2);
    CHECK(use.unretained.files == 1);
    CHECK(use.unretained.bytes == 3);
    CHECK(checkpoint_id_counter_value(checkpoint_id_counter_key(job, 6)) == 6);
    CHECK(checkpoint_id_counter_value("checkpoints/j/chk-6/_metadata") == 0);
    CHECK(checkpoint_id_of(state_key(job, 12, TaskKey{3001, 0, 0})) == 12);
    CHECK(state_key(job, 12, TaskKey{3001, 0, 0}) != state_key(job, 12, TaskKey{3002, 0, 0}));
}

// What a recovering JobManager reads from a listing: the highest durable id (the counter may be
// ahead of every checkpoint file: an id triggered but never written), the newest metadata, and the
// older completed checkpoints with their files (for retention).
TEST_CASE(
    "checkpoint storage: a listing gives the highest durable id, the latest and the older checkpoints",
    "[coordinator]") {
    JobSpec job;
    job.name = "j";
    const std::vector<std::string> keys{
        "checkpoints/j/checkpoint-id-counter/00000000000000000007",
        "checkpoints/j/checkpoint-id-counter/00000000000000000009",
        "checkpoints/j/chk-10/_metadata",  // 10 sorts before 2..9 as text
        "checkpoints/j/chk-10/v-0-a1001",
        "checkpoints/j/chk-3/_metadata",
        "checkpoints/j/chk-3/v-0-a1001",
        "checkpoints/j/chk-3/v-1-a1001",
        "checkpoints/j/chk-6/v-0-a1001",  // never completed
        "checkpoints/j/chk-8/_metadata",
        "checkpoints/j/chk-8/v-0-a1001",
    };
    const StoredCheckpoints found = read_checkpoint_listing(keys);
    CHECK(found.highest_id == 10);
    CHECK(found.latest_metadata_key == "checkpoints/j/chk-10/_metadata");
    REQUIRE(found.older_completed.size() == 2);
    CHECK(found.older_completed[0].id == 3);
    CHECK(found.older_completed[0].handles.size() == 2);
    CHECK(found.older_completed[0].metadata_key == "checkpoints/j/chk-3/_metadata");
    CHECK(found.older_completed[1].id == 8);
    // The counter ahead of every file: checkpoint 12 was triggered, nothing written for it yet.
    const StoredCheckpoints ahead =
        read_checkpoint_listing({"checkpoints/j/checkpoint-id-counter/00000000000000000012",
                                 "checkpoints/j/chk-11/_metadata"});
    CHECK(ahead.highest_id == 12);
    CHECK(ahead.counter_key == "checkpoints/j/checkpoint-id-counter/00000000000000000012");
    CHECK(ahead.older_completed.empty());
}

}  // namespace
}  // namespace eosim::engine
