// The example sinks of examples/ built in-tree: examples/file-sink's own tests run here as they do
// against the installed package (its sources are compiled into this test), and the buggy variant
// of examples/file-sink-buggy must be caught at the contract level within the default number of
// cases, with a counterexample of a handful of steps, and inside jobs.
#include <catch2/catch.hpp>

#include <cctype>
#include <string>

#include "examples/file-sink/file_sink.cpp"
#include "examples/file-sink/register_file_sink.cpp"
#include "examples/file-sink/test_file_sink.cpp"
#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"
#include "tests/testkit/replayed_jobs.h"

// The buggy variant, registered here as examples/file-sink-buggy does (a line of its own: the
// registration macro names its variable after the line).
EOSIM_REGISTER_SINK(file_sink_example::file_sink_kind("buggy_file", true));

namespace eosim::testkit {
namespace {

// The numbered steps of the shrunk run in a report ("  3. ..."), the counterexample's length.
int steps_in(const std::string& report) {
    int steps = 0;
    for (size_t at = report.find("\n  1. "); at != std::string::npos;
         at = report.find("\n  ", at + 1)) {
        if (at + 3 < report.size() && std::isdigit(static_cast<unsigned char>(report[at + 3])))
            ++steps;
    }
    return steps;
}

TEST_CASE("file sink example: the buggy variant (commit at pre-commit) is caught in a few steps",
          "[testkit]") {
    ContractOptions options;
    options.sink = "buggy_file";
    options.options = {{"path", "out/"}};
    const auto result = check_sink_contract(options);  // the default number of cases
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("no completed checkpoint covers it") != std::string::npos);
    CHECK(steps_in(result.report) <= 5);
}

TEST_CASE(
    "file sink example: without faults and zombies the correct sink passes and the buggy one fails",
    "[testkit]") {
    // The slip needs neither faults nor zombies to show; the correct sink passes the reduced
    // command set too.
    ContractOptions options;
    options.sink = "file";
    options.outside_faults = false;
    options.zombies = false;
    options.cases = 100;
    CHECK(check_sink_contract(options).passed);
    options.sink = "buggy_file";
    CHECK_FALSE(check_sink_contract(options).passed);
}

TEST_CASE(
    "file sink example: no_leaks reports the in-progress uploads a dead incarnation leaves open",
    "[testkit]") {
    // The example leaves them to the store's lifecycle (file_sink.h): the check, when asked for,
    // says so.
    ContractOptions options;
    options.sink = "file";
    options.oracles = {"exactly_once_output", "visibility", "no_leaks"};
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("multipart upload(s) are still open (a leak)") != std::string::npos);
    options.oracles.clear();  // by default not judged, but counted in the fault paths
    const auto counted = check_sink_contract(options);
    CHECK(counted.passed);
    CHECK(counted.report.find("left open at the end: multipart uploads") != std::string::npos);
}

TEST_CASE(
    "file sink example: the buggy variant is caught inside jobs too (duplicates after a failover)",
    "[testkit]") {
    testing::TempDir dir;
    JobOptions options;
    options.sink = "buggy_file";
    options.options = {{"path", "out/"}};
    options.cases = 20;
    options.shrink = false;
    options.output_dir = (dir / "failures").string();
    const auto result = check_sink_in_jobs_and_replay(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("exactly_once_output") != std::string::npos);
    CHECK(std::filesystem::exists(result.scenario_file));
}

}  // namespace
}  // namespace eosim::testkit
