// reports: run records round-trip through JSON; summaries count per scenario whatever the order of
// the records; JUnit XML escapes anything and is well-formed (xmllint, when installed); the
// timeline layout puts faults, checkpoints, transactions and oracle verdicts in their lanes, and
// the SVG, HTML page and Chrome trace drawn from it carry them.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <catch2/catch.hpp>

#include "reports/chrome_trace.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/run_record.h"
#include "reports/suite_summary.h"
#include "reports/timeline_model.h"
#include "reports/timeline_svg.h"
#include "reports/xml_text.h"

namespace eosim::reports {
namespace {

using scenarios::TimelineEvent;

constexpr int64_t kSecond = 1'000'000'000;

RunRecord sample_record() {
    RunRecord r;
    r.scenario = "count-eos";
    r.file = "scenarios/count-eos.json";
    r.seed = 7;
    r.status = RunStatus::failed;
    r.reason = "exactly_once_output violated: key 3 <dup> & \"more\"";
    r.expectation_message = "expected every oracle to pass; violated: exactly_once_output";
    r.trace_hash = "00000000deadbeef";
    r.job_finished = true;
    r.verdicts = {{"exactly_once_output", false, "key 3 <dup> & \"more\""},
                  {"liveness", true, "ok"}};
    r.figures.virtual_seconds = 10;
    r.figures.events = 1234;
    r.figures.fenced_calls = 2;
    r.figures.absorbed_duplicates = 5;
    r.faults = {
        FaultRecord{
            2 * kSecond, 4 * kSecond, "crash", 0, {"tm1"}, "crashed tm1, restart at 4.000s", false},
        FaultRecord{
            5 * kSecond, 6 * kSecond, "partition", 1, {"tm0", "jobmanager"}, "partitioned", false},
        FaultRecord{
            7 * kSecond, 7 * kSecond, "transaction_abort", 2, {}, "aborted 2 transactions", false}};
    r.fault_schedule = nlohmann::json::array({{{"kind", "crash"}, {"at", "2s"}}});
    r.has_timeline = true;
    r.timeline = {
        TimelineEvent{1 * kSecond, -1, "checkpoints", "checkpoint.triggered", "checkpoint 1"},
        TimelineEvent{1 * kSecond + 5, -1, "transactions", "txn.begun", "sink-0-2"},
        TimelineEvent{1 * kSecond + 100, -1, "transactions", "txn.precommitted", "sink-0-1"},
        TimelineEvent{1 * kSecond + 200'000'000, -1, "checkpoints", "checkpoint.completed",
                      "checkpoint 1"},
        TimelineEvent{1 * kSecond + 300'000'000, -1, "transactions", "txn.committed", "sink-0-1"},
        TimelineEvent{2 * kSecond, -1, "checkpoints", "checkpoint.triggered", "checkpoint 2"},
        TimelineEvent{3 * kSecond, -1, "job", "failover", "attempt 2 after: tm1 lost"},
        TimelineEvent{3 * kSecond + 1, -1, "job", "restore", "attempt 2 restores checkpoint 1"},
        TimelineEvent{3 * kSecond + 2, -1, "transactions", "txn.aborted-lingering", "sink-0-2"},
        TimelineEvent{8 * kSecond, -1, "checkpoints", "checkpoint.triggered", "checkpoint 3"},
        TimelineEvent{8 * kSecond + 1, -1, "checkpoints", "checkpoint.aborted",
                      "checkpoint 3: timeout"},
        TimelineEvent{9 * kSecond, -1, "transactions", "txn.begun", "sink-1-4"},
        TimelineEvent{10 * kSecond, -1, "job", "job.finished", "done"},
    };
    r.reproduce = "eosim run scenarios/count-eos.json --seed 7";
    r.wall_seconds = 0.25;
    return r;
}

RunRecord passed_record(const std::string& scenario, uint64_t seed, bool negative_control) {
    RunRecord r;
    r.scenario = scenario;
    r.seed = seed;
    r.status = RunStatus::passed;
    r.expectation_met = true;
    r.wall_seconds = 0.5;
    if (negative_control) {
        r.expect.pass = false;
        r.expect.violation = "exactly_once_output";
        r.verdicts = {{"exactly_once_output", false, "duplicates"}};
    }
    return r;
}

TEST_CASE("run record: JSON round trip keeps everything", "[reports]") {
    const RunRecord r = sample_record();
    const nlohmann::json j = to_json(r);
    const RunRecord back = run_record_from_json(j);
    CHECK(to_json(back) == j);
    CHECK(back.faults[1].nodes == std::vector<std::string>{"tm0", "jobmanager"});
    CHECK(back.timeline.size() == r.timeline.size());
    CHECK(back.status == RunStatus::failed);
    CHECK(back.figures.fenced_calls == 2);
    CHECK(back.figures.absorbed_duplicates == 5);

    RunRecord no_timeline = r;
    no_timeline.has_timeline = false;
    CHECK_FALSE(to_json(no_timeline).contains("timeline"));
    CHECK_FALSE(run_record_from_json(to_json(no_timeline)).has_timeline);

    const RunRecord error = make_error_record("x", "x.json", 3, {}, "eosim run x.json --seed 3",
                                              "aborted (SIGABRT)", "bad byte \xff here");
    const RunRecord error_back = run_record_from_json(to_json(error));
    CHECK(error_back.status == RunStatus::error);
    CHECK(error_back.stderr_tail == "bad byte \xEF\xBF\xBD here");
    CHECK_THROWS_AS(run_record_from_json(nlohmann::json{{"seed", 1}}), RecordError);
    CHECK_THROWS_AS(run_record_from_json(nlohmann::json{{"scenario", "x"}, {"seed", "one"}}),
                    RecordError);
}

TEST_CASE("run record: a fired fault's effect ends at its restart or the end of its period",
          "[reports]") {
    sim::FaultSpec crash;
    crash.kind = sim::FaultKind::crash;
    crash.restart_delay = sim::Duration::seconds(2);
    sim::FiredFault fired{sim::Time{kSecond}, sim::FaultKind::crash, 0, {"tm0"}, "crashed", false};
    CHECK(fault_end_ns(crash, fired) == 3 * kSecond);
    crash.restart = false;
    CHECK(fault_end_ns(crash, fired) == -1);
    sim::FaultSpec partition;
    partition.kind = sim::FaultKind::partition;
    partition.duration = sim::Duration::millis(500);
    CHECK(fault_end_ns(partition, fired) == kSecond + 500'000'000);
    fired.skipped = true;
    CHECK(fault_end_ns(partition, fired) == kSecond);
    sim::FaultSpec abort;
    abort.kind = sim::FaultKind::transaction_abort;
    fired.skipped = false;
    CHECK(fault_end_ns(abort, fired) == kSecond);
    CHECK(to_json(sample_record())["fault_schedule"][0]["at"] == "2s");
}

TEST_CASE("suite summary: per scenario, independent of record order", "[reports]") {
    std::vector<RunRecord> records;
    for (uint64_t seed = 1; seed <= 5; ++seed)
        records.push_back(passed_record("b-eos", seed, false));
    for (uint64_t seed = 1; seed <= 3; ++seed)
        records.push_back(passed_record("a-dup", seed, true));
    records.push_back(sample_record());
    records.back().scenario = "b-eos";
    records.back().seed = 9;
    RunRecord error =
        make_error_record("b-eos", "b.json", 10, {}, "", "timed out after 60s (killed)", "");
    records.push_back(error);

    const SuiteSummary summary = summarize(records);
    std::vector<RunRecord> shuffled = records;
    std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(42));
    CHECK(to_json(summarize(shuffled)) == to_json(summary));

    REQUIRE(summary.scenarios.size() == 2);
    const ScenarioSummary& dup = summary.scenarios[0];
    CHECK(dup.scenario == "a-dup");
    CHECK(dup.runs == 3);
    CHECK(dup.violations_found == 3);
    CHECK(dup.expectation == "violation of exactly_once_output");
    const ScenarioSummary& eos = summary.scenarios[1];
    CHECK(eos.runs == 7);
    CHECK(eos.passed == 5);
    CHECK(eos.failed == 2);
    CHECK(eos.errors == 1);
    CHECK(seed_ranges(eos.seeds) == "1..5, 9..10");
    CHECK(summary.total.runs == 10);
    CHECK(summary.total.failed == 2);

    std::ostringstream table;
    write_summary_table(table, summary);
    CHECK_THAT(table.str(), Catch::Contains("a-dup"));
    CHECK_THAT(table.str(), Catch::Contains("total"));
    CHECK(seed_ranges({1, 3, 5, 7, 9, 11}, 4) == "6 seeds in 1..11");
    CHECK(seed_ranges({}) == "-");
}

TEST_CASE(
    "suite summary: a negative control whose violation never appeared says NOT FOUND, the table fits 120 columns",
    "[reports][suite_table]") {
    std::vector<RunRecord> records;
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        RunRecord quiet = passed_record("kafka-commit-faults-short-txn-timeout", seed, true);
        quiet.expect.every_seed = false;
        quiet.verdicts = {{"exactly_once_output", true, "17000 committed records, 17000 expected"}};
        records.push_back(quiet);
        records.push_back(passed_record("checkpoint-ids-after-jobmanager-crash", seed, false));
        RunRecord failure = passed_record("savepoint-retention-discards-negative", seed, false);
        failure.expect.job_failure =
            "Cannot map checkpoint/savepoint state for operator count-per-key to the new program";
        records.push_back(failure);
    }
    const std::map<std::string, std::vector<std::string>> sometimes = {
        {"kafka-commit-faults-short-txn-timeout", {"oracle:exactly_once_output"}}};
    const SuiteSummary summary = summarize(records, &sometimes);
    REQUIRE(summary.scenarios.size() == 3);
    CHECK(scenario_result(summary.scenarios[1], true) == "NOT FOUND");
    CHECK(scenario_result(summary.scenarios[1], false) == "none yet");
    CHECK(scenario_result(summary.scenarios[0], true) == "ok");
    CHECK(to_json(summary)["scenarios"][1]["result"] == "NOT FOUND");

    std::ostringstream table;
    write_summary_table(table, summary);
    std::istringstream lines(table.str());
    std::string line;
    bool not_found_row = false;
    while (std::getline(lines, line)) {
        INFO(line);
        CHECK(line.size() <= 120);
        if (line.starts_with("kafka-commit-faults-short-txn-timeout")) {
            not_found_row = true;
            CHECK_THAT(line, Catch::Contains("may violate exactly_once_output"));
            CHECK_THAT(line, Catch::Contains("50/50"));
            CHECK_THAT(line, Catch::Contains("NOT FOUND"));
        }
    }
    CHECK(not_found_row);
    CHECK_THAT(table.str(), Catch::StartsWith("seeds 1..50 for every scenario\n"));
    CHECK_THAT(table.str(), Catch::Contains("job fails: \"Cannot map check...\""));
}

TEST_CASE("suite summary: a failed job with a violation beside it counts its violations found",
          "[reports][suite_table]") {
    std::vector<RunRecord> records;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        RunRecord r = passed_record("failed-job-committed-prefix-alo", seed, true);
        r.expect.job_failure = "restart strategy exhausted";
        records.push_back(r);
    }
    RunRecord quiet = passed_record("failed-job-committed-prefix-alo", 4, true);
    quiet.expect.job_failure = "restart strategy exhausted";
    quiet.verdicts = {{"exactly_once_output", true, "no duplicates"}};
    records.push_back(quiet);
    const SuiteSummary summary = summarize(records);
    REQUIRE(summary.scenarios.size() == 1);
    CHECK(summary.scenarios[0].violations_found == 3);
    CHECK(scenario_result(summary.scenarios[0], true) == "ok");
    CHECK(run_outcome(records[0]) == "JOB FAILED AND VIOLATION FOUND, AS EXPECTED");
    CHECK(run_outcome(quiet) == "JOB FAILED, AS EXPECTED");
    RunRecord failed_only = passed_record("upgrade-remove-operator-refused", 1, false);
    failed_only.expect.job_failure = "Cannot map";
    CHECK_FALSE(expected_violation_found(failed_only));
}

TEST_CASE("xml text: markup escaped, control characters and bad UTF-8 replaced", "[reports]") {
    CHECK(xml_escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;");
    CHECK(xml_escape(std::string("x\x01y\tz", 5)) == "x?y\tz");
    CHECK(valid_utf8("caf\xc3\xa9") == "caf\xc3\xa9");
    CHECK(valid_utf8("\xc3") == "\xEF\xBF\xBD");
    CHECK(valid_utf8("\xed\xa0\x80") ==
          "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate is not UTF-8
}

TEST_CASE(
    "junit: one testcase per run, failures with the oracle's message and the command, well-formed",
    "[reports]") {
    std::vector<RunRecord> records = {
        passed_record("a-dup", 1, true), sample_record(),
        make_error_record("count-eos", "x.json", 8, {}, "eosim run x.json --seed 8",
                          "aborted (SIGABRT)", std::string("\x01\xff <oops> ]]>", 13))};
    std::ostringstream xml;
    write_junit(xml, "suite \"demo\"", records);
    const std::string text = xml.str();
    CHECK_THAT(
        text,
        Catch::Contains(
            "<testsuites name=\"suite &quot;demo&quot;\" tests=\"3\" failures=\"1\" errors=\"1\""));
    CHECK_THAT(text, Catch::Contains("<testcase name=\"seed 7\" classname=\"eosim.count-eos\""));
    CHECK_THAT(
        text,
        Catch::Contains(
            "<failure message=\"exactly_once_output violated: key 3 &lt;dup&gt; &amp; &quot;more&quot;\""));
    CHECK_THAT(text, Catch::Contains("reproduce:  eosim run scenarios/count-eos.json --seed 7"));
    CHECK_THAT(text, Catch::Contains("<error message=\"aborted (SIGABRT)\" type=\"run-error\">"));

    const char* xmllint = ::access("/usr/bin/xmllint", X_OK) == 0 ? "/usr/bin/xmllint" : nullptr;
    if (xmllint == nullptr) {
        WARN("skipped the well-formedness check: xmllint is not installed");
        return;
    }
    const std::filesystem::path file = std::filesystem::temp_directory_path() /
                                       ("eosim-junit-" + std::to_string(::getpid()) + ".xml");
    std::ofstream(file) << text;
    const std::string command = std::string(xmllint) + " --noout " + file.string() + " 2>&1";
    const int status = std::system(command.c_str());
    std::filesystem::remove(file);
    CHECK(status == 0);
}

TEST_CASE("timeline model: faults, checkpoints, transactions and verdicts in their lanes",
          "[reports]") {
    const TimelineModel model = build_timeline_model(sample_record());
    std::vector<std::string> labels;
    for (const TimelineLane& lane : model.lanes) labels.push_back(lane.label);
    CHECK(labels == std::vector<std::string>{"tm1", "network", "kafka", "checkpoints", "job",
                                             "txn sink-0", "txn sink-1", "oracles"});
    CHECK(model.end_ns == 10 * kSecond);
    auto bars = [&](const std::string& style) {
        return std::count_if(model.bars.begin(), model.bars.end(),
                             [&](const TimelineBar& b) { return b.style == style; });
    };
    auto marks = [&](const std::string& style) {
        return std::count_if(model.marks.begin(), model.marks.end(),
                             [&](const TimelineMark& m) { return m.style == style; });
    };
    CHECK(bars("fault-crash") == 1);
    CHECK(bars("fault-partition") == 1);
    CHECK(marks("fault-transaction_abort") == 1);
    CHECK(bars("checkpoint-completed") == 1);
    CHECK(bars("checkpoint-abandoned") == 1);  // checkpoint 2, dropped by the failover
    CHECK(bars("checkpoint-aborted") == 1);
    CHECK(bars("txn-aborted") == 1);  // sink-0-2, begun then aborted at recovery
    CHECK(bars("txn-open") == 1);     // sink-1-4, open at the end
    CHECK(marks("txn-precommitted") == 1);
    CHECK(marks("txn-committed") == 1);  // sink-0-1 was begun before the timeline starts
    CHECK(marks("failover") == 1);
    CHECK(marks("restore") == 1);
    CHECK(marks("job-finished") == 1);
    CHECK(marks("oracle-failed") == 1);
    const auto crash = std::find_if(model.bars.begin(), model.bars.end(),
                                    [](const TimelineBar& b) { return b.style == "fault-crash"; });
    CHECK(crash->start_ns == 2 * kSecond);
    CHECK(crash->end_ns == 4 * kSecond);
}

TEST_CASE("timeline svg, html page and chrome trace carry the timeline", "[reports]") {
    const RunRecord r = sample_record();
    const std::string svg = timeline_svg(build_timeline_model(r));
    CHECK_THAT(svg, Catch::StartsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    CHECK_THAT(svg, Catch::Contains("crashed tm1, restart at 4.000s"));
    CHECK_THAT(svg, Catch::Contains(">txn sink-0</text>"));
    CHECK_THAT(svg, Catch::Contains("checkpoint 1 triggered at 1.000s, completed"));
    CHECK_THAT(svg, Catch::Contains("exactly_once_output fired: key 3 &lt;dup&gt;"));
    CHECK_THAT(svg, Catch::Contains("crash (until restart)"));  // the legend

    HtmlReport report;
    report.title = "eosim suite demo";
    report.records = {passed_record("a-dup", 1, true), r};
    report.summary = summarize(report.records);
    std::ostringstream html;
    write_html_report(html, report);
    const std::string page = html.str();
    CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>"));
    CHECK_THAT(page, Catch::Contains("1 of 2 runs did not meet their expectations"));
    CHECK_THAT(page, Catch::Contains("<svg"));
    CHECK_THAT(page, Catch::Contains("href=\"runs/count-eos.seed-7.json\""));
    CHECK(page.find("<script") == std::string::npos);
    CHECK(page.find("http://") ==
          page.find("http://www.w3.org/2000/svg"));  // nothing fetched from the network
    CHECK(run_file_stem(r) == "runs/count-eos.seed-7");

    const nlohmann::json trace = chrome_trace(r);
    size_t complete = 0;
    size_t instant = 0;
    for (const nlohmann::json& e : trace["traceEvents"]) {
        if (e["ph"] == "X") ++complete;
        if (e["ph"] == "i") ++instant;
    }
    CHECK(complete > 0);
    CHECK(instant > 0);
    CHECK(trace["metadata"]["seed"] == 7);
}

}  // namespace
}  // namespace eosim::reports
