// CheckpointCoordinator (engine/checkpoint_coordinator.h), driven through a whole small job in the
// real engine (scenarios::run_scenario): ids strictly increase across failovers; without faults
// checkpoints complete at about the interval; a storage failure aborts checkpoints and fails the job
// over only past tolerable_failures; a timeout shorter than any checkpoint aborts them all; a
// failover aborts the checkpoints still pending.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "engine/runtime/protocol_points.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::OracleKind;
using scenarios::RunOptions;
using scenarios::run_scenario;
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
        // Every completed and every aborted checkpoint was triggered, and completions are increasing too.
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

TEST_CASE("coordinator: without faults checkpoints complete at about the interval", "[coordinator]") {
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
    // Consecutive triggers are at least the interval apart, and not much more.
    const auto triggered = events(result, "checkpoint.triggered");
    for (size_t i = 1; i < triggered.size(); ++i) {
        const int64_t gap_ns = triggered[i].at_ns - triggered[i - 1].at_ns;
        CHECK(gap_ns >= Duration::millis(500).ns);
        CHECK(gap_ns <= Duration::millis(800).ns);
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
    CHECK(fast_result.figures.checkpoints_completed >= 3 * slow_result.figures.checkpoints_completed);
}

TEST_CASE("coordinator: a storage failure aborts checkpoints, with no tolerable failures the job fails over", "[coordinator]") {
    auto s = count_scenario(4000);
    s.job.checkpointing.tolerable_failures = 0;
    s.faults = {timed_fault(sim::FaultKind::storage_failure, Duration::millis(1200), Duration::seconds(2))};
    const auto result = run_scenario(s, RunOptions{11, nullptr});
    INFO(describe(result));
    CHECK(result.figures.checkpoints_aborted >= 1);
    CHECK(result.figures.restarts >= 1);
    CHECK(count_events(result, "failover") >= 1);
    const auto failovers = events(result, "failover");
    REQUIRE_FALSE(failovers.empty());
    CHECK(failovers.front().detail.find("consecutive failed checkpoints") != std::string::npos);
    // Recovery: exactly-once still holds and the job finishes.
    CHECK(result.expectation_met);
    CHECK(result.job_finished);
}

TEST_CASE("coordinator: a storage failure within tolerable_failures aborts checkpoints without a failover", "[coordinator]") {
    auto s = count_scenario(4000);
    s.job.checkpointing.tolerable_failures = 1000;
    s.faults = {timed_fault(sim::FaultKind::storage_failure, Duration::millis(1200), Duration::seconds(2))};
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
    for (const auto& e : events(result, "checkpoint.completed")) completed_after |= e.at_ns > Duration::millis(3200).ns;
    CHECK(completed_after);
    CHECK(result.expectation_met);
    CHECK(result.job_finished);
}

TEST_CASE("coordinator: checkpoints that cannot finish within the timeout are aborted", "[coordinator]") {
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
    CHECK_FALSE(verdict(result, OracleKind::liveness).passed);
}

TEST_CASE("coordinator: a timeout with no tolerable failures fails over until the restart strategy gives up", "[coordinator]") {
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
    const auto& liveness = verdict(result, OracleKind::liveness);
    CHECK_FALSE(liveness.passed);
    CHECK(liveness.message.find("failed for good") != std::string::npos);
}

TEST_CASE("coordinator: min_pause spaces a checkpoint's trigger from the previous completion", "[coordinator]") {
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
TEST_CASE("coordinator: every triggered checkpoint ends completed or aborted, also across a failover", "[coordinator]") {
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

TEST_CASE("coordinator: a failover during a metadata write restores what a JobManager restart would", "[coordinator]") {
    // Regression (tests/engine/fixtures/checkpoint-settling-seed3457.json): the metadata of a fully
    // acknowledged checkpoint landed while the attempt failed over. Its write decides: it counts
    // as completed, the next attempt restores it, and a later JobManager crash restores the same.
    const scenarios::Scenario scenario = scenarios::load_scenario(
        std::filesystem::path(EOSIM_SOURCE_DIR) / "tests/engine/fixtures/checkpoint-settling-seed3457.json");
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
