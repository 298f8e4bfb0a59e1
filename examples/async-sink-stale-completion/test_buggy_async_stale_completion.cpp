// The contract-level test of examples/async-sink on a buggy variant: it FAILS (this folder has
// EXPECT_FAILURE; CI checks that the test fails) and prints the shrunk counterexample.
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"

TEST_CASE("buggy_async_stale_completion: keeps the sink contract (contract level)",
          "[buggy_async_stale_completion]") {
    eosim::testkit::ContractOptions options;
    options.sink =
        "buggy_async_stale_completion";  // registered in register_buggy_async_stale_completion.cpp
    options.guarantee = eosim::testkit::Guarantee::at_least_once;  // what the correct twin promises
    const auto result =
        eosim::testkit::check_sink_contract(options);  // the defaults: 100 cases, seed 1
    INFO(result.report);
    REQUIRE(result.passed);
}
