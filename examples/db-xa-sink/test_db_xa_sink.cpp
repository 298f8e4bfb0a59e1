// The database XA-style sink's property tests at both levels (eosim testkit): an appended,
// exactly-once sink (committed rows only, nothing twice, nothing lost).
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"

TEST_CASE("db xa sink: keeps the sink contract (contract level)", "[db_xa_sink]") {
    eosim::testkit::ContractOptions options;
    options.sink = "db_xa";  // registered in register_db_xa_sink.cpp
    options.options = {{"table", "output"}};
    options.cases = 500;
    const auto result = eosim::testkit::check_sink_contract(options);
    INFO(result.report);
    REQUIRE(result.passed);
}

TEST_CASE("db xa sink: exactly-once inside faulty jobs (job level)", "[db_xa_sink]") {
    eosim::testkit::JobOptions options;
    options.sink = "db_xa";
    options.options = {{"table", "output"}};
    options.cases = 6;
    options.runs_per_case = 2;
    const auto result = eosim::testkit::check_sink_in_jobs(options);
    INFO(result.report);
    REQUIRE(result.passed);
}
