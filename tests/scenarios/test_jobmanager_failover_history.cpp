// JobManager failovers in the history (scenarios/job_history.h, scenarios/checkpoint_stats.h): the
// checkpoints a lost JobManager had in flight end as failed, "lost with the JobManager"; a new
// JobManager taking over without a told loss ends them too; a restored checkpoint no JobManager
// completed is flagged; failovers are exceptions (with their root cause) counted apart from
// restarts, in the text and JSON reports. Then the catalogue pairs: the failover scenario and its
// untold negative control, the failed job judged on its committed prefix and its at-least-once
// twin.
#include <algorithm>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/run_report.h"
#include "scenarios/checkpoint_stats.h"
#include "scenarios/job_history.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

sim::Time failover_at_ms(int64_t ms) { return sim::Time::zero() + sim::Duration::millis(ms); }

// The history and the checkpoint statistics, told the same things in the run's order.
struct FailoverObserved {
    JobHistory history;
    CheckpointStatsTracker stats{&history};
    template <typename F>
    void tell(F f) {
        f(static_cast<engine::RunObserver&>(history));
        f(static_cast<engine::RunObserver&>(stats));
    }
    const CheckpointStats& checkpoint(int64_t id) const {
        return *std::find_if(stats.checkpoints().begin(), stats.checkpoints().end(),
                             [id](const CheckpointStats& c) { return c.id == id; });
    }
};

TEST_CASE("a lost JobManager's checkpoints in flight end as failed, lost with the JobManager",
          "[scenarios][history][jobmanager]") {
    FailoverObserved o;
    o.tell([](engine::RunObserver& r) { r.restore_started(failover_at_ms(0), 1001, 0, {}); });
    o.tell([](engine::RunObserver& r) { r.checkpoint_triggered(failover_at_ms(100), 1, {}); });
    o.tell([](engine::RunObserver& r) { r.checkpoint_completed(failover_at_ms(150), 1, {}); });
    o.tell([](engine::RunObserver& r) { r.checkpoint_triggered(failover_at_ms(300), 2, {}); });
    o.tell([](engine::RunObserver& r) {
        r.job_manager_lost(failover_at_ms(310), 1001, "the JobManager on jobmanager crashed");
    });
    o.tell([](engine::RunObserver& r) { r.restore_started(failover_at_ms(2000), 3001, 1, {}); });
    o.tell([](engine::RunObserver& r) { r.job_finished(failover_at_ms(5000)); });
    const CheckpointStats& lost = o.checkpoint(2);
    CHECK(lost.status == "failed");
    CHECK(lost.failure_reason == "CHECKPOINT_COORDINATOR_SHUTDOWN");
    CHECK(lost.failure == "lost with the JobManager: the JobManager on jobmanager crashed");
    CHECK(lost.duration_ms == Approx(10));
    CHECK_FALSE(lost.restored_uncompleted);
    // Counted once, as a JobManager failover, not as a restart; the exception says why.
    CHECK(o.history.job_manager_failovers() == 1);
    REQUIRE(o.history.exceptions().size() == 1);
    const JobException& e = o.history.exceptions()[0];
    CHECK(e.job_manager);
    CHECK(e.status_after == "SUSPENDED");
    CHECK(e.reason == "JobManager lost: the JobManager on jobmanager crashed");
    CHECK(e.attempt_name == "v1/1");
    // A task failover afterwards is an exception too, but no JobManager failover.
    o.tell([](engine::RunObserver& r) {
        r.failover(failover_at_ms(5100), 3002, "TaskManager tm1 lost");
    });
    CHECK(o.history.job_manager_failovers() == 1);
    CHECK_FALSE(o.history.exceptions().back().job_manager);
}

TEST_CASE(
    "a new leader taking over before the old one learns: its checkpoints end, the late loss names the cause",
    "[scenarios][history][jobmanager]") {
    FailoverObserved o;
    o.tell([](engine::RunObserver& r) { r.restore_started(failover_at_ms(0), 1001, 0, {}); });
    o.tell([](engine::RunObserver& r) { r.checkpoint_triggered(failover_at_ms(100), 4, {}); });
    o.tell([](engine::RunObserver& r) {
        r.restore_started(failover_at_ms(3000), 2001, 0, {});
    });  // no loss told yet
    CHECK(o.checkpoint(4).status == "failed");
    CHECK(o.checkpoint(4).failure ==
          "lost with the JobManager: a new JobManager took the job over");
    REQUIRE(o.history.exceptions().size() == 1);
    CHECK(o.history.exceptions()[0].reason.find("the previous one's loss not yet seen") !=
          std::string::npos);
    o.tell([](engine::RunObserver& r) { r.checkpoint_triggered(failover_at_ms(3100), 5, {}); });
    // The frozen leader wakes and learns it lost: the takeover's exception learns why, nothing else
    // changes.
    o.tell([](engine::RunObserver& r) {
        r.job_manager_lost(failover_at_ms(4000), 1001,
                           "the JobManager on jobmanager lost its leadership: session expired");
    });
    CHECK(o.history.job_manager_failovers() == 1);
    CHECK(o.history.exceptions()[0].reason ==
          "JobManager lost: the JobManager on jobmanager lost its leadership: session expired");
    CHECK(o.checkpoint(5).status == "in_progress");  // the new leader's
}

TEST_CASE("a restored checkpoint that no JobManager completed is flagged",
          "[scenarios][history][jobmanager]") {
    FailoverObserved o;
    o.tell([](engine::RunObserver& r) { r.restore_started(failover_at_ms(0), 1001, 0, {}); });
    o.tell([](engine::RunObserver& r) { r.checkpoint_triggered(failover_at_ms(100), 7, {}); });
    o.tell([](engine::RunObserver& r) {
        r.job_manager_lost(failover_at_ms(120), 1001, "the JobManager on jobmanager crashed");
    });
    o.tell([](engine::RunObserver& r) {
        r.restore_started(failover_at_ms(2000), 2001, 7, {});
    });  // found in storage
    CHECK(o.checkpoint(7).restored_uncompleted);
    CHECK(o.history.restored_uncompleted() == std::vector<int64_t>{7});
    CHECK(o.history.status_history().back().detail.find(
              "checkpoint 7 was never completed by a JobManager") != std::string::npos);
    // A completed one restored is not.
    FailoverObserved plain;
    plain.tell([](engine::RunObserver& r) { r.restore_started(failover_at_ms(0), 1001, 0, {}); });
    plain.tell([](engine::RunObserver& r) { r.checkpoint_triggered(failover_at_ms(100), 7, {}); });
    plain.tell([](engine::RunObserver& r) { r.checkpoint_completed(failover_at_ms(110), 7, {}); });
    plain.tell([](engine::RunObserver& r) {
        r.job_manager_lost(failover_at_ms(120), 1001, "the JobManager on jobmanager crashed");
    });
    plain.tell(
        [](engine::RunObserver& r) { r.restore_started(failover_at_ms(2000), 2001, 7, {}); });
    CHECK_FALSE(plain.checkpoint(7).restored_uncompleted);
    CHECK(plain.history.restored_uncompleted().empty());
}

RunResult run_failover_scenario(const std::string& name, uint64_t seed = 1) {
    RunOptions options;
    options.seed = seed;
    options.strict_faults = true;
    return run_scenario(load_scenario(testing::catalogue_scenario(name)), options);
}

TEST_CASE(
    "the JobManager failover scenario: failovers in the exceptions and figures, no checkpoint left in progress",
    "[scenarios][history][jobmanager][slow]") {
    const RunResult r = run_failover_scenario("jobmanager-failover-history");
    CHECK(r.expectation_met);
    CHECK(r.job_finished);
    CHECK(r.figures.jobmanager_failovers == 2);
    CHECK(r.figures.restarts == 0);
    const auto jm = std::count_if(r.exceptions.begin(), r.exceptions.end(),
                                  [](const JobException& e) { return e.job_manager; });
    CHECK(jm == 2);
    for (const JobException& e : r.exceptions) CHECK_FALSE(e.root_cause.empty());
    CHECK(std::none_of(r.checkpoints.begin(), r.checkpoints.end(),
                       [](const CheckpointStats& c) { return c.status == "in_progress"; }));
    CHECK(std::count_if(r.checkpoints.begin(), r.checkpoints.end(), [](const CheckpointStats& c) {
              return c.failure.find("lost with the JobManager") == 0;
          }) >= 2);
    std::ostringstream text;
    reports::write_run_report(
        text, load_scenario(testing::catalogue_scenario("jobmanager-failover-history")), r,
        "eosim run");
    CHECK(text.str().find("JM failovers") != std::string::npos);
    CHECK(text.str().find("(JobManager failover) JobManager lost: ") != std::string::npos);
    const nlohmann::json j = reports::to_json(r);
    CHECK(j.dump().find("\"jobmanager_failovers\":2") != std::string::npos);
    // Negative control: the engine keeps the losses to itself; checkpoint_history fires.
    const RunResult untold = run_failover_scenario("jobmanager-failover-history-untold");
    CHECK(untold.expectation_met);
    const auto fired = std::find_if(untold.verdicts.begin(), untold.verdicts.end(),
                                    [](const OracleVerdict& v) { return !v.passed; });
    REQUIRE(fired != untold.verdicts.end());
    CHECK(fired->oracle == "checkpoint_history");
    CHECK(fired->message.find("never ended in the history") != std::string::npos);
}

TEST_CASE("a failed job is judged on its committed prefix, its at-least-once twin is caught there",
          "[scenarios][failed_job][slow]") {
    const RunResult r = run_failover_scenario("failed-job-committed-prefix");
    CHECK(r.expectation_met);
    for (const OracleVerdict& v : r.verdicts) CHECK(v.passed);
    const auto eo = std::find_if(r.verdicts.begin(), r.verdicts.end(), [](const OracleVerdict& v) {
        return v.oracle == "exactly_once_output";
    });
    REQUIRE(eo != r.verdicts.end());
    CHECK(eo->message.find("of the failed job (the input it never read is not judged)") !=
          std::string::npos);
    const RunResult alo = run_failover_scenario("failed-job-committed-prefix-alo");
    CHECK(alo.expectation_met);
    const auto fired = std::find_if(alo.verdicts.begin(), alo.verdicts.end(),
                                    [](const OracleVerdict& v) { return !v.passed; });
    REQUIRE(fired != alo.verdicts.end());
    CHECK(fired->oracle == "exactly_once_output");
    CHECK(fired->message.find("0 missing") !=
          std::string::npos);  // nothing read is missing: the duplicates fire it
}

}  // namespace
}  // namespace eosim::scenarios

namespace eosim::scenarios {
namespace {

// A CDC copy (its model reads the source table at the end) listing `oracles`, expecting `expect`.
std::string failed_cdc_copy(const std::string& oracles, const std::string& expect) {
    nlohmann::json document = testing::smallest_cdc_copy();
    document["oracles"] = nlohmann::json::parse(oracles);
    document["expect"] = nlohmann::json::parse(expect);
    return document.dump();
}

TEST_CASE(
    "loader: a failed job's expectation, its negative control, and the oracles that cannot judge it",
    "[loader][failed_job]") {
    const Scenario copy = load_scenario_text(
        failed_cdc_copy(R"(["mirror", "no_key_backwards", "liveness", "no_leaks"])",
                        R"({"job_failure": "restart strategy exhausted"})"),
        "copy.json");
    CHECK(copy.expect.pass);
    CHECK(copy.expect.job_failure == "restart strategy exhausted");
    const Scenario control = load_scenario_text(
        failed_cdc_copy(R"(["mirror", "liveness"])",
                        R"({"job_failure": "exhausted", "violation": "mirror"})"),
        "control.json");
    CHECK_FALSE(control.expect.pass);
    CHECK(control.expect.violation == "mirror");
    CHECK(control.expect.job_failure == "exhausted");
    try {
        load_scenario_text(failed_cdc_copy(R"(["exactly_once_output", "mirror"])",
                                           R"({"job_failure": "exhausted"})"),
                           "bad.json");
        FAIL("a CDC job's exactly_once_output cannot judge a failed job");
    } catch (const ScenarioError& error) {
        CHECK(error.json_path() == "/expect/job_failure");
        CHECK_THAT(
            error.what(),
            Catch::Contains(
                "oracle \"exactly_once_output\" listed in /oracles cannot judge a job that fails"));
        CHECK_THAT(error.what(), Catch::Contains("list mirror to judge a failed CDC copy"));
    }
}

}  // namespace
}  // namespace eosim::scenarios
