// The same contract-level test as examples/kv-table-sink, on the buggy variant: it FAILS (this
// folder has EXPECT_FAILURE; CI checks that the test fails) and prints the shrunk counterexample.
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"

TEST_CASE("buggy kv table sink: keeps the sink contract (contract level)",
          "[buggy_kv_table_sink]") {
    eosim::testkit::ContractOptions options;
    options.sink = "buggy_kv_table";  // registered in register_buggy_kv_table_sink.cpp
    options.options = {{"prefix", "table:"}};
    const auto result = eosim::testkit::check_sink_contract(options);  // the default 100 cases
    INFO(result.report);
    REQUIRE(result.passed);
}
