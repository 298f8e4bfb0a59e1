// cli::results_file: a header and one JSON line per run; records read back as written; an
// incomplete last line (a suite killed mid-write) is ignored with a warning.
#include <catch2/catch.hpp>

#include "cli/results_file.h"
#include "tests/cli/test_support.h"

namespace eosim::cli {
namespace {

using testing::TempDir;

reports::RunRecord record(const std::string& scenario, uint64_t seed, reports::RunStatus status) {
    reports::RunRecord r;
    r.scenario = scenario;
    r.file = scenario + ".json";
    r.seed = seed;
    r.status = status;
    r.expectation_met = status == reports::RunStatus::passed;
    r.reason = status == reports::RunStatus::passed ? "" : "it broke \xff with a bad byte";
    r.trace_hash = "00000000000000ff";
    r.reproduce = "eosim run " + r.file + " --seed " + std::to_string(seed);
    return r;
}

ResultsHeader header() {
    return ResultsHeader{"demo", nlohmann::json{{"scenarios", nlohmann::json::array()}},
                         Shard{2, 3}, 7};
}

TEST_CASE("results file: header and records read back as written", "[cli]") {
    TempDir dir;
    const auto path = dir / "r.jsonl";
    {
        ResultsWriter writer(path, header(), {record("a", 1, reports::RunStatus::passed)});
        writer.append(record("a", 2, reports::RunStatus::failed));
        writer.append(record("b", 1, reports::RunStatus::error));
    }
    const ResultsFile file = read_results_file(path);
    CHECK(file.header.suite == "demo");
    CHECK(file.header.shard == Shard{2, 3});
    CHECK(file.header.shard_runs == 7);
    REQUIRE(file.records.size() == 3);
    CHECK(file.records[1].seed == 2);
    CHECK(file.records[1].status == reports::RunStatus::failed);
    CHECK(file.records[1].reason == "it broke \xEF\xBF\xBD with a bad byte");  // made valid UTF-8
    CHECK(file.records[2].status == reports::RunStatus::error);
    CHECK(file.warnings.empty());
}

TEST_CASE("results file: a new writer starts the file afresh with what it keeps", "[cli]") {
    TempDir dir;
    const auto path = dir / "r.jsonl";
    {
        ResultsWriter writer(path, header(), {});
        writer.append(record("a", 1, reports::RunStatus::passed));
        writer.append(record("a", 2, reports::RunStatus::passed));
    }
    { ResultsWriter writer(path, header(), {record("a", 2, reports::RunStatus::passed)}); }
    const ResultsFile file = read_results_file(path);
    REQUIRE(file.records.size() == 1);
    CHECK(file.records[0].seed == 2);
}

TEST_CASE("results file: an incomplete last line is ignored, garbage in the middle skipped",
          "[cli]") {
    TempDir dir;
    const auto path = dir / "r.jsonl";
    {
        ResultsWriter writer(path, header(), {});
        writer.append(record("a", 1, reports::RunStatus::passed));
    }
    std::string text = testing::read_text(path);
    testing::write_text(path, text + "not json\n" + text.substr(text.find('\n') + 1) +
                                  "{\"scenario\": \"a\", \"se");
    const ResultsFile file = read_results_file(path);
    CHECK(file.records.size() == 2);
    REQUIRE(file.warnings.size() == 2);
    CHECK_THAT(file.warnings[0], Catch::Contains("not JSON"));
    CHECK_THAT(file.warnings[1], Catch::Contains("incomplete"));
}

TEST_CASE("results file: other files are refused", "[cli]") {
    TempDir dir;
    testing::write_text(dir / "empty.jsonl", "");
    testing::write_text(dir / "other.jsonl", "{\"hello\": 1}\n");
    CHECK_THROWS_AS(read_results_file(dir / "empty.jsonl"), ResultsError);
    CHECK_THROWS_AS(read_results_file(dir / "other.jsonl"), ResultsError);
    CHECK_THROWS_AS(read_results_file(dir / "missing.jsonl"), ResultsError);
}

}  // namespace
}  // namespace eosim::cli
