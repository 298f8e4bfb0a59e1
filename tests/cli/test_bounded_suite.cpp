// A suite stays small when everything fails: 200 runs whose workers each print a multi-megabyte
// record (a hung run's timeline) give a results file and a suite process of bounded size.
#include <sys/resource.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/address_sanitizer.h"
#include "reports/run_record.h"
#include "tests/cli/test_support.h"

namespace eosim::cli {
namespace {

using testing::kCliFixtures;
using testing::kEosim;
using testing::TempDir;

// A failed run's record with a 2 000-event timeline, 64 KB messages and 500 fired faults (kept
// small so the test stays quick; the figures for 9 MB records are in tests/README.md).
std::string huge_record() {
    reports::RunRecord r;
    r.scenario = "@SCENARIO@";
    r.seed = 4242424242u;
    r.status = reports::RunStatus::failed;
    r.reason = "exactly_once_output: " + std::string(1 << 16, 'x');
    r.expect = scenarios::Expectation{};
    r.trace_hash = "0123456789abcdef";
    r.verdicts.push_back({"exactly_once_output", false, std::string(1 << 16, 'm')});
    for (int i = 0; i < 500; ++i) {
        r.faults.push_back(reports::FaultRecord{
            i * 1000, i * 1000 + 10, "crash", 0, {"tm0"}, "crashed tm0", false});
    }
    r.has_timeline = true;
    for (int i = 0; i < 2'000; ++i) {
        // Connector events: what a thinned timeline leaves out (essential ones it keeps:
        // test_timeline_thinning.cpp).
        r.timeline.push_back(scenarios::TimelineEvent{
            int64_t{i} * 1000, -1, "upsert sink-0", "sink.batch",
            "a detail long enough to weigh what a real event weighs " + std::to_string(i)});
    }
    return reports::to_json(r).dump() + "\n";
}

TEST_CASE(
    "suite: 200 runs that each print a huge record keep the results file and the suite's memory small",
    "[cli][suite][bounded][heavy]") {
    TempDir dir;
    const std::string record = huge_record();
    REQUIRE(record.size() > 400'000);
    testing::write_text(dir / "huge.json", record);
    ::setenv("EOSIM_HUGE_RECORD", (dir / "huge.json").c_str(), 1);
    const std::filesystem::path results = dir / "results.jsonl";
    const testing::Finished f = testing::run_to_end(
        {kEosim.string(), "suite", (kCliFixtures / "quick.suite.json").string(), "--seeds",
         "1..100", "--jobs", "2", "--progress", "none", "--results", results.string(), "--report",
         (dir / "report").string(), "--worker-command",
         (kCliFixtures / "huge-record-worker.sh").string()});
    INFO(f.out.substr(0, 2000) << f.err.substr(0, 2000));
    CHECK(f.exit_code == 1);

    std::ifstream in(results);
    std::string line;
    size_t runs = 0;
    size_t with_timeline = 0;
    size_t largest_without_timeline = 0;
    while (std::getline(in, line)) {
        const nlohmann::json j = nlohmann::json::parse(line);
        if (!j.contains("seed")) continue;  // the header
        ++runs;
        CHECK(j["status"] == "failed");
        if (j.contains("timeline")) {
            ++with_timeline;
            CHECK(j["timeline"].size() == reports::kTimelineEventsMax);
            CHECK(j["timeline_events_cut"] ==
                  2'000 - static_cast<int64_t>(reports::kTimelineEventsMax));
            CHECK(line.size() < 200'000);
        } else {
            largest_without_timeline = std::max(largest_without_timeline, line.size());
        }
        CHECK(j["faults"].size() == reports::kRecordFaultsMax);
    }
    CHECK(runs == 200);
    CHECK(with_timeline <= 32);
    CHECK(largest_without_timeline < reports::kRecordBytesMax);
    const auto file_bytes = std::filesystem::file_size(results);
    rusage usage{};
    ::getrusage(RUSAGE_CHILDREN,
                &usage);  // the largest child waited for: the suite (or an earlier one)
    WARN("200 runs of " << record.size() << " bytes each: results file " << file_bytes
                        << " bytes, largest record without "
                           "a timeline "
                        << largest_without_timeline << " bytes, max RSS of a child "
                        << usage.ru_maxrss << " KB");
    CHECK(file_bytes < 8'000'000);
    // AddressSanitizer's shadow memory and quarantine inflate every process's RSS several times
    // over (539 MB measured for this suite there), so the bound holds only without it; the file
    // size bound above still holds in every build.
    constexpr long kMaxRssKb = eosim::cli::kAddressSanitizer ? 1024 * 1024 : 150 * 1024;
    CHECK(usage.ru_maxrss < kMaxRssKb);
    std::filesystem::remove_all(dir / "report");
}

}  // namespace
}  // namespace eosim::cli
