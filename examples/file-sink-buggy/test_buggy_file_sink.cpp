// The same contract-level test as examples/file-sink, on the buggy variant: it FAILS (this folder
// has EXPECT_FAILURE; CI checks that the test fails) and prints the shrunk counterexample.
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"

TEST_CASE("buggy file sink: keeps the sink contract (contract level)", "[buggy_file_sink]") {
    eosim::testkit::ContractOptions options;
    options.sink = "buggy_file";  // registered in register_buggy_file_sink.cpp
    options.options = {{"path", "out/"}};
    const auto result = eosim::testkit::check_sink_contract(options);  // the default 100 cases
    INFO(result.report);
    REQUIRE(result.passed);
}
