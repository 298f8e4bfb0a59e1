// The same contract-level test as examples/db-xa-sink, on the buggy variant: it FAILS (this
// folder has EXPECT_FAILURE; CI checks that the test fails) and prints the shrunk counterexample.
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"

TEST_CASE("buggy db xa sink: keeps the sink contract (contract level)", "[buggy_db_xa_sink]") {
    eosim::testkit::ContractOptions options;
    options.sink = "buggy_db_xa";  // registered in register_buggy_db_xa_sink.cpp
    options.options = {{"table", "output"}};
    const auto result = eosim::testkit::check_sink_contract(options);  // the default 100 cases
    INFO(result.report);
    REQUIRE(result.passed);
}
