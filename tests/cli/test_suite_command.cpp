// eosim suite / merge / run, end to end with the real binary as the worker:
// - a run that aborts, hangs or prints garbage (a fixture worker) is a failed run with its seed and
//   the reason, and every other run of the suite completes;
// - a suite killed half-way and resumed runs exactly the runs its results file lacks;
// - shards 1/3, 2/3 and 3/3 run exactly the runs of the unsharded suite, and merging their results
//   gives the unsharded summary (and coverage table); a missing shard makes the merge fail (exit 1,
//   stderr), its runs errors in the JUnit file and the HTML report, as are the runs an interrupted
//   shard lacks;
// - the JUnit file is valid (xmllint, against tests/cli/fixtures/junit.xsd) when xmllint is there;
// - `eosim run --chrome-trace` writes trace events; a run cut at its event limit fails.
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/results_file.h"
#include "cli/suite_command.h"
#include "tests/cli/test_support.h"

namespace eosim::cli {
namespace {

using nlohmann::json;
using testing::kCliFixtures;
using testing::kEosim;
using testing::TempDir;

using RunKey = std::pair<std::string, uint64_t>;

SuiteCommand quick_suite(const std::string& seeds, const std::filesystem::path& results) {
    SuiteCommand c;
    c.path = (kCliFixtures / "quick.suite.json").string();
    c.seeds = seeds;
    c.jobs = 2;
    c.results_path = results.string();
    c.progress = "none";
    c.worker_command = kEosim.string();
    c.command_line = "eosim suite quick.suite.json (test)";
    return c;
}

std::map<RunKey, reports::RunRecord> records_of(const std::filesystem::path& results) {
    std::map<RunKey, reports::RunRecord> out;
    for (reports::RunRecord& r : read_results_file(results).records) {
        const RunKey key{r.scenario, r.seed};
        CHECK(out.count(key) == 0);  // every run once
        out[key] = std::move(r);
    }
    return out;
}

std::set<RunKey> keys_of(const std::map<RunKey, reports::RunRecord>& records) {
    std::set<RunKey> keys;
    for (const auto& [key, record] : records) keys.insert(key);
    return keys;
}

// The summary without wall times, which differ from run to run.
json without_wall_times(json j) {
    if (j.is_object()) {
        j.erase("wall_seconds");
        for (auto& [key, value] : j.items()) value = without_wall_times(value);
    } else if (j.is_array()) {
        for (auto& value : j) value = without_wall_times(value);
    }
    return j;
}

size_t occurrences(const std::string& text, const std::string& part) {
    size_t n = 0;
    for (size_t at = text.find(part); at != std::string::npos;
         at = text.find(part, at + part.size()))
        ++n;
    return n;
}

void check_junit(const std::filesystem::path& junit) {
    const std::string xmllint = testing::xmllint();
    if (xmllint.empty()) {
        WARN(
            "skipped the JUnit validity check: xmllint is not installed (apt-get install libxml2-utils)");
        return;
    }
    const testing::Finished lint = testing::run_to_end(
        {xmllint, "--noout", "--schema", (kCliFixtures / "junit.xsd").string(), junit.string()});
    INFO(lint.err);
    CHECK(lint.exit_code == 0);
}

TEST_CASE("suite: runs that abort, hang or print garbage fail with their seed, the rest completes",
          "[cli][suite]") {
    TempDir dir;
    ::setenv("EOSIM_REAL_BINARY", kEosim.c_str(), 1);
    SuiteCommand c = quick_suite("1..8", dir / "results.jsonl");
    c.worker_command = (kCliFixtures / "abort-or-hang-worker.sh").string();
    c.timeout = "2s";
    c.junit_path = (dir / "junit.xml").string();
    c.report_dir = (dir / "report").string();
    std::ostringstream out;
    std::ostringstream err;
    CHECK(suite_command(c, out, err) == 1);
    INFO(out.str() << err.str());

    const auto records = records_of(dir / "results.jsonl");
    REQUIRE(records.size() == 16);
    for (const auto& [key, r] : records) {
        INFO(key.first << " seed " << key.second << ": " << r.reason);
        switch (key.second) {
            case 3:
                CHECK(r.status == reports::RunStatus::error);
                CHECK_THAT(r.reason, Catch::StartsWith("aborted (SIGABRT)"));
                CHECK_THAT(r.stderr_tail, Catch::Contains("aborting on purpose"));
                break;
            case 5:
                CHECK(r.status == reports::RunStatus::error);
                CHECK_THAT(r.reason, Catch::StartsWith("timed out after 2s"));
                break;
            case 7:
                CHECK(r.status == reports::RunStatus::error);
                CHECK_THAT(r.reason, Catch::StartsWith("printed no valid result"));
                break;
            default: CHECK(r.status == reports::RunStatus::passed);
        }
        CHECK_THAT(r.reproduce, Catch::EndsWith("--seed " + std::to_string(key.second)));
    }
    CHECK_THAT(out.str(), Catch::Contains("ERROR  quick-eos seed 3: aborted (SIGABRT)"));
    CHECK_THAT(out.str(), Catch::Contains("ERROR  quick-dup seed 5: timed out after 2s"));

    const std::string junit = testing::read_text(dir / "junit.xml");
    CHECK_THAT(junit, Catch::Contains("<testcase name=\"seed 3\" classname=\"eosim.quick-eos\""));
    CHECK_THAT(junit, Catch::Contains("<error message=\"aborted (SIGABRT)"));
    CHECK_THAT(junit, Catch::Contains("eosim run "));
    check_junit(dir / "junit.xml");

    const std::string html = testing::read_text(dir / "report/index.html");
    CHECK_THAT(html, Catch::Contains("6 of 16 runs did not meet their expectations"));
    CHECK_THAT(html, Catch::Contains("timed out after 2s"));
    CHECK(std::filesystem::exists(dir / "report/runs/quick-eos.seed-3.json"));
    CHECK(std::filesystem::exists(
        dir / "report/runs/quick-eos.seed-1.trace.json"));  // the first seed is drawn
}

TEST_CASE("suite: killed half-way and resumed, it runs only what is missing", "[cli][suite]") {
    TempDir dir;
    const auto results = dir / "results.jsonl";
    ::setenv("EOSIM_REAL_BINARY", kEosim.c_str(), 1);
    ::setenv("EOSIM_WORKER_LOG", (dir / "first.log").c_str(), 1);
    ::setenv("EOSIM_WORKER_DELAY", "0.05", 1);
    {
        testing::Process suite(
            {kEosim.string(), "suite", (kCliFixtures / "quick.suite.json").string(), "--seeds",
             "1..12", "--jobs", "1", "--results", results.string(), "--progress", "none",
             "--worker-command", (kCliFixtures / "logging-worker.sh").string()},
            dir / "out", dir / "err");
        REQUIRE(suite.started());
        const bool some_done = testing::wait_until(
            [&] { return testing::lines_of(testing::read_text(results)).size() >= 1 + 5; },
            std::chrono::seconds(60));
        REQUIRE(some_done);
        suite.kill(SIGKILL);
        suite.wait();
    }
    const std::set<RunKey> first = keys_of(records_of(results));
    INFO(first.size() << " runs finished before the kill");
    REQUIRE(first.size() >= 5);
    REQUIRE(first.size() < 24);

    ::setenv("EOSIM_WORKER_LOG", (dir / "second.log").c_str(), 1);
    ::setenv("EOSIM_WORKER_DELAY", "0", 1);
    SuiteCommand c = quick_suite("1..12", results);
    c.worker_command = (kCliFixtures / "logging-worker.sh").string();
    c.resume = true;
    std::ostringstream out;
    std::ostringstream err;
    CHECK(suite_command(c, out, err) == 0);
    ::unsetenv("EOSIM_WORKER_LOG");
    ::unsetenv("EOSIM_WORKER_DELAY");

    // The second run started exactly the runs the results file lacked.
    std::set<RunKey> rerun;
    for (const std::string& line : testing::lines_of(testing::read_text(dir / "second.log"))) {
        const std::string file = line.substr(0, line.find(' '));
        const std::string name = std::filesystem::path(file).stem().string();
        CHECK(rerun.insert({name, std::stoull(line.substr(line.find(' ') + 1))}).second);
    }
    const std::set<RunKey> all = keys_of(records_of(results));
    CHECK(all.size() == 24);
    for (const RunKey& key : all) CHECK((first.count(key) + rerun.count(key)) == 1);
    CHECK_THAT(out.str(), Catch::Contains(std::to_string(first.size()) + " already done"));
}

TEST_CASE("suite: shards run exactly the unsharded runs, and their merge gives the same summary",
          "[cli][suite]") {
    TempDir dir;
    SuiteCommand whole = quick_suite("1..5", dir / "whole.jsonl");
    whole.report_dir = (dir / "whole").string();
    std::ostringstream out;
    std::ostringstream err;
    REQUIRE(suite_command(whole, out, err) == 0);
    const auto unsharded = records_of(dir / "whole.jsonl");
    REQUIRE(unsharded.size() == 10);

    std::map<RunKey, reports::RunRecord> sharded;
    std::vector<std::string> shard_files;
    for (int i = 1; i <= 3; ++i) {
        const auto file = dir / ("shard-" + std::to_string(i) + ".jsonl");
        SuiteCommand shard = quick_suite("1..5", file);
        shard.shard = std::to_string(i) + "/3";
        REQUIRE(suite_command(shard, out, err) == 0);
        for (auto& [key, record] : records_of(file))
            CHECK(sharded.emplace(key, record).second);  // disjoint
        shard_files.push_back(file.string());
    }
    CHECK(keys_of(sharded) == keys_of(unsharded));
    for (const auto& [key, record] : unsharded)
        CHECK(sharded.at(key).trace_hash == record.trace_hash);

    MergeCommand merge;
    merge.inputs = shard_files;
    merge.report_dir = (dir / "merged").string();
    merge.junit_path = (dir / "merged.xml").string();
    merge.results_path = (dir / "merged.jsonl").string();
    CHECK(merge_command(merge, out, err) == 0);
    const json whole_summary = json::parse(testing::read_text(dir / "whole/summary.json"));
    const json merged_summary = json::parse(testing::read_text(dir / "merged/summary.json"));
    CHECK(without_wall_times(merged_summary) == without_wall_times(whole_summary));
    CHECK(keys_of(records_of(dir / "merged.jsonl")) == keys_of(unsharded));
    check_junit(dir / "merged.xml");
    CHECK_THAT(testing::read_text(dir / "merged.xml"),
               Catch::Contains("errors=\"0\"") && !Catch::Contains("no result"));

    SECTION(
        "--coverage prints the same coverage table for the merged shards as for the whole suite") {
        // The table: from its header to the first empty line.
        const auto table = [](const std::string& text) {
            const size_t start = text.find("coverage over ");
            return start == std::string::npos
                       ? std::string()
                       : text.substr(start, text.find("\n\n", start) - start);
        };
        MergeCommand merged_shards;
        merged_shards.inputs = shard_files;
        merged_shards.coverage = true;
        std::ostringstream shards_out;
        CHECK(merge_command(merged_shards, shards_out, err) == 0);
        MergeCommand merged_whole;
        merged_whole.inputs = {(dir / "whole.jsonl").string()};
        merged_whole.coverage = true;
        std::ostringstream whole_out;
        CHECK(merge_command(merged_whole, whole_out, err) == 0);
        CHECK_THAT(table(shards_out.str()),
                   Catch::StartsWith("coverage over 10 runs") && Catch::Contains("crash@any"));
        CHECK(table(shards_out.str()) == table(whole_out.str()));
    }
    SECTION(
        "a missing shard fails the merge: its runs are errors in the JUnit file and the report, said on stderr") {
        const size_t shard_2_runs = records_of(shard_files[1]).size();
        REQUIRE(shard_2_runs == 3);  // runs 2, 5 and 8 of 10
        MergeCommand partial;
        partial.inputs = {shard_files[0], shard_files[2]};
        partial.junit_path = (dir / "partial.xml").string();
        partial.report_dir = (dir / "partial").string();
        partial.results_path = (dir / "partial.jsonl").string();
        std::ostringstream partial_out;
        std::ostringstream partial_err;
        CHECK(merge_command(partial, partial_out, partial_err) == 1);
        CHECK_THAT(partial_err.str(),
                   Catch::Contains(
                       "error: 3 of the plan's 10 runs have no result (shards not given: 2/3)"));
        CHECK_THAT(partial_out.str(), !Catch::Contains("have no result ("));
        const std::string junit = testing::read_text(dir / "partial.xml");
        CHECK_THAT(junit, Catch::Contains("tests=\"10\" failures=\"0\" errors=\"3\""));
        CHECK(
            occurrences(
                junit,
                "<error message=\"no result: shard 2/3 was not merged (its results file was not given)\"") ==
            3);
        for (const auto& [key, record] : records_of(shard_files[1])) {
            const std::string testcase = "<testcase name=\"seed " + std::to_string(key.second) +
                                         "\" classname=\"eosim." + key.first + "\"";
            const size_t at = junit.find(testcase);
            REQUIRE(at != std::string::npos);
            CHECK(junit.find("<error message=\"no result: shard 2/3", at) <
                  junit.find("</testcase>", at));
        }
        check_junit(dir / "partial.xml");
        const std::string html = testing::read_text(dir / "partial/index.html");
        CHECK_THAT(html, Catch::Contains(
                             "3 of the plan&#39;s 10 runs have no result (shards not given: 2/3)"));
        CHECK(occurrences(html, "no result: shard 2/3 was not merged") >= 3);
        CHECK(records_of(dir / "partial.jsonl").size() ==
              7);  // the merged results hold only results
        // The same with shard 2's file given, but cut after its first run (an interrupted shard).
        const std::vector<std::string> lines =
            testing::lines_of(testing::read_text(shard_files[1]));
        REQUIRE(lines.size() == 4);
        testing::write_text(dir / "cut.jsonl", lines[0] + "\n" + lines[1] + "\n");
        partial.inputs = {shard_files[0], (dir / "cut.jsonl").string(), shard_files[2]};
        std::ostringstream cut_err;
        CHECK(merge_command(partial, partial_out, cut_err) == 1);
        CHECK_THAT(cut_err.str(),
                   Catch::Contains("error: 2 of the plan's 10 runs have no result;"));
        CHECK(occurrences(
                  testing::read_text(dir / "partial.xml"),
                  "<error message=\"no result: shard 2/3&#39;s results file lacks this run") == 2);
    }
    SECTION("TEST_SHARD_INDEX / TEST_TOTAL_SHARDS pick the same shard as --shard") {
        ::setenv("TEST_SHARD_INDEX", "1", 1);
        ::setenv("TEST_TOTAL_SHARDS", "3", 1);
        SuiteCommand from_env = quick_suite("1..5", dir / "env.jsonl");
        CHECK(suite_command(from_env, out, err) == 0);
        ::unsetenv("TEST_SHARD_INDEX");
        ::unsetenv("TEST_TOTAL_SHARDS");
        CHECK(keys_of(records_of(dir / "env.jsonl")) == keys_of(records_of(shard_files[1])));
    }
}

TEST_CASE("suite: bad input exits 2 with a message", "[cli][suite]") {
    TempDir dir;
    std::ostringstream out;
    std::ostringstream err;
    SuiteCommand c = quick_suite("1..2", dir / "r.jsonl");
    c.path = (dir / "missing").string();
    CHECK(suite_command(c, out, err) == 2);
    c = quick_suite("2..1", dir / "r.jsonl");
    CHECK(suite_command(c, out, err) == 2);
    c = quick_suite("1..2", dir / "r.jsonl");
    c.shard = "4/3";
    CHECK(suite_command(c, out, err) == 2);
    c = quick_suite("1..2", dir / "r.jsonl");
    c.timeout = "soon";
    CHECK(suite_command(c, out, err) == 2);
    CHECK_THAT(err.str(), Catch::Contains("error: "));
}

TEST_CASE("run: --chrome-trace writes trace events, a run cut at its event limit fails",
          "[cli][suite]") {
    TempDir dir;
    const auto trace = dir / "trace.json";
    const testing::Finished run =
        testing::run_to_end({kEosim.string(), "run", (kCliFixtures / "quick-eos.json").string(),
                             "--seed", "2", "--chrome-trace", trace.string()});
    CHECK(run.exit_code == 0);
    const json events = json::parse(testing::read_text(trace));
    REQUIRE(events.contains("traceEvents"));
    std::set<std::string> names;
    for (const json& e : events["traceEvents"]) {
        CHECK(e.contains("ph"));
        CHECK(e.contains("pid"));
        if (e["ph"] == "X") CHECK(e["dur"].get<double>() >= 0);
        if (e["ph"] != "M") names.insert(e["name"].get<std::string>());
    }
    CHECK(names.count("fault-crash") == 1);
    CHECK(names.count("checkpoint-completed") == 1);
    CHECK(names.count("txn-committed") == 1);

    const testing::Finished cut =
        testing::run_to_end({kEosim.string(), "run", (kCliFixtures / "quick-eos.json").string(),
                             "--json", "--max-events", "500"});
    CHECK(cut.exit_code == 1);
    const json record = json::parse(cut.out);
    CHECK(record["status"] == "failed");
    CHECK_THAT(record["reason"].get<std::string>(),
               Catch::StartsWith("cut at the event limit (500 events)"));
}

TEST_CASE("run: --json-history says when the timeline and checkpoint details are printed",
          "[cli][suite]") {
    const auto json_of = [](const std::vector<std::string>& extra) {
        std::vector<std::string> argv = {kEosim.string(), "run",
                                         (kCliFixtures / "quick-eos.json").string(), "--json"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        const testing::Finished run = testing::run_to_end(argv);
        return json::parse(run.out);
    };
    const json all = json_of({});
    const json passed = json_of({"--json-history", "failing"});
    const json failed = json_of({"--json-history", "failing", "--max-events", "500"});
    const json none = json_of({"--json-history", "none", "--max-events", "500"});
    REQUIRE(all["status"] == "passed");
    for (const char* key : {"timeline", "checkpoints", "status_history", "exceptions"}) {
        CHECK(all.contains(key));
        CHECK_FALSE(passed.contains(key));  // passed: the suite would not keep it
        CHECK(failed.contains(key));        // failed: kept for the report
        CHECK_FALSE(none.contains(key));
    }
    // What a suite keeps of every run is the same either way.
    CHECK(passed["trace_hash"] == all["trace_hash"]);
    CHECK(passed["checkpoint_summary"] == all["checkpoint_summary"]);
    CHECK(passed["verdicts"] == all["verdicts"]);
    REQUIRE(failed["status"] == "failed");
}

}  // namespace
}  // namespace eosim::cli
