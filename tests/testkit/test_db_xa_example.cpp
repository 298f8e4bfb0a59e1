// The database XA example built in-tree: examples/db-xa-sink's own tests run here as they do
// against the installed package (its sources are compiled into this test; it passes at the contract
// level and inside jobs), and its buggy twin (examples/db-xa-sink-buggy) must be caught at both
// levels.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "examples/db-xa-sink/db_xa_sink.cpp"
#include "examples/db-xa-sink/register_db_xa_sink.cpp"
#include "examples/db-xa-sink/test_db_xa_sink.cpp"
#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"
#include "tests/testkit/replayed_jobs.h"

// The buggy variants, registered as examples/*-buggy do (a line each: the macro names its variable
// after the line).
EOSIM_REGISTER_SINK(db_xa_example::db_xa_kind("buggy_db_xa",
                                              db_xa_example::DbXaSlip::roll_back_restored));

namespace eosim::testkit {
namespace {

TEST_CASE("db xa example: the XA sink that rolls back restored transactions is caught losing them",
          "[testkit]") {
    ContractOptions options;
    options.sink = "buggy_db_xa";
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("MISSING") != std::string::npos);
}

TEST_CASE("db xa example: the XA sink that rolls back restored transactions is caught inside jobs",
          "[testkit]") {
    testing::TempDir dir;
    JobOptions options;
    options.sink = "buggy_db_xa";
    options.cases = 10;
    options.shrink = false;
    options.output_dir = (dir / "failures").string();
    const auto result = check_sink_in_jobs_and_replay(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("exactly_once_output") != std::string::npos);
}

}  // namespace
}  // namespace eosim::testkit
