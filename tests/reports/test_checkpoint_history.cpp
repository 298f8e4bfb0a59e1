// reports' Flink views: the history (checkpoints with their subtasks, summary, status changes,
// exceptions, deployments, back pressure) round-trips through a record's JSON and reaches the
// text report and the HTML page; checkpoints per scenario and the --compare view set scenarios
// side by side with their failed checkpoints counted.
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/checkpoint_compare.h"
#include "reports/history_html.h"
#include "reports/history_text.h"
#include "reports/run_record.h"

namespace eosim::reports {
namespace {

RunRecord history_record(const std::string& scenario, int64_t failed, double failed_alignment_ms) {
    RunRecord r;
    r.scenario = scenario;
    r.seed = 1;
    r.status = RunStatus::passed;
    r.has_timeline = true;
    r.figures.virtual_seconds = 10;
    r.figures.checkpoints_completed = 3;
    r.figures.checkpoints_aborted = failed;
    if (failed > 0) r.figures.checkpoints_aborted_by_reason["CHECKPOINT_EXPIRED"] = failed;
    r.figures.checkpoint_duration_median_ms = 40;
    r.figures.checkpoint_duration_max_ms = 90;
    r.figures.alignment_max_ms = 2.5;
    r.figures.failed_alignment_max_ms = failed_alignment_ms;
    r.figures.persisted_bytes_max = 4096;
    scenarios::CheckpointStats c;
    c.id = 7;
    c.deployment = "v1";
    c.type = "checkpoint";
    c.status = "expired";
    c.failure_reason = "CHECKPOINT_EXPIRED";
    c.failure = "checkpoint expired before completing";
    c.duration_ms = 1000;
    c.max_alignment_ms = failed_alignment_ms;
    c.tasks.push_back({"count", 1, 3.0, failed_alignment_ms, 0.5, -1, 100, 0, false, 0.2});
    r.checkpoints.push_back(c);
    r.checkpoint_summary = scenarios::summarize(r.checkpoints);
    r.status_history = {{0, "CREATED", "v1", "v1"},
                        {0, "RUNNING", "v1", "v1/1 from scratch"},
                        {4, "RESTARTING", "v1", "v1/1 failed"}};
    r.exceptions = {{4, 2001, "v1/1", "RESTARTING", "TaskManager tm1 lost",
                     "fault #0 crash at 3.900s: crashed tm1"}};
    r.deployments = {{"v1", 0, 7, 0, "", "stopped with savepoint 9", 2},
                     {"v2", 7, -1, 9, "savepoint", "", 1}};
    r.back_pressure = {{"source", 0.1, 0.8, 0.1, 1000}, {"sink", 0.9, 0, 0.1, 1000}};
    return r;
}

TEST_CASE("history: a record's history round-trips through JSON", "[reports][history]") {
    const RunRecord r = history_record("a", 2, 900);
    const nlohmann::json j = to_json(r);
    const RunRecord back = run_record_from_json(j);
    CHECK(to_json(back) == j);
    REQUIRE(back.checkpoints.size() == 1);
    CHECK(back.checkpoints[0].tasks.size() == 1);
    CHECK(back.checkpoints[0].failure_reason == "CHECKPOINT_EXPIRED");
    CHECK(back.exceptions[0].root_cause == r.exceptions[0].root_cause);
    CHECK(back.deployments[0].ended == "stopped with savepoint 9");
    CHECK(back.back_pressure[0].backpressured == Approx(0.8));
    CHECK(j["checkpoint_summary"]["failed"]["alignment_ms"]["max"] == 900);
    nlohmann::json bad = j;
    bad["exceptions"] = 3;
    CHECK_THROWS_WITH(run_record_from_json(bad), Catch::Contains("/exceptions: expected an array"));
}

TEST_CASE(
    "history: the text and HTML show failed checkpoints, deployments, exceptions, back pressure",
    "[reports][history]") {
    const RunRecord r = history_record("a", 2, 900);
    std::ostringstream text;
    write_checkpoint_summary(text, r.checkpoint_summary);
    write_deployments(text, r.deployments);
    write_exceptions(text, r.exceptions);
    write_back_pressure(text, r.back_pressure);
    CHECK_THAT(text.str(), Catch::Contains("failed (expired, declined, subsumed, failed) (1)"));
    CHECK_THAT(text.str(), Catch::Contains("900.0 ms"));
    CHECK_THAT(text.str(), Catch::Contains("v2  7.000s - end  restored savepoint 9"));
    CHECK_THAT(text.str(), Catch::Contains("root cause: fault #0 crash"));
    CHECK_THAT(text.str(), Catch::Contains("HIGH"));
    std::ostringstream html;
    write_job_history_html(html, r);
    write_checkpoint_history_html(html, r);
    write_back_pressure_html(html, r);
    CHECK_THAT(html.str(), Catch::Contains("<code>CHECKPOINT_EXPIRED</code>"));
    CHECK_THAT(html.str(), Catch::Contains("<details><summary>1 subtasks</summary>"));
    CHECK_THAT(html.str(), Catch::Contains("not acknowledged"));
    CHECK_THAT(html.str(), Catch::Contains("v1: stopped with savepoint 9"));
}

TEST_CASE(
    "history: checkpoints per scenario and --compare count failed checkpoints and their alignment",
    "[reports][history]") {
    const std::vector<RunRecord> records = {history_record("aligned", 4, 1100),
                                            history_record("unaligned", 0, 0)};
    const std::vector<ScenarioCheckpoints> rows = checkpoints_per_scenario(records);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].failed == 4);
    CHECK(rows[0].failed_by_reason.at("CHECKPOINT_EXPIRED") == 4);
    CHECK(rows[1].failed == 0);
    std::ostringstream compare;
    write_checkpoint_compare(compare, rows);
    const std::string text = compare.str();
    CHECK_THAT(text, Catch::Contains("aligned"));
    CHECK_THAT(text, Catch::Contains("unaligned"));
    CHECK_THAT(text, Catch::Contains("failed: alignment max"));
    CHECK_THAT(text, Catch::Contains("1100.0 ms"));
    CHECK_THAT(text, Catch::Contains("CHECKPOINT_EXPIRED 4"));
    std::ostringstream table;
    write_checkpoint_table(table, rows);
    CHECK_THAT(table.str(), Catch::Contains("checkpoints per scenario"));
}

}  // namespace
}  // namespace eosim::reports
