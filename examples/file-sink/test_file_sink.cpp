// The file sink's property tests at both levels (eosim testkit).
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"

TEST_CASE("file sink: keeps the sink contract (contract level)", "[file_sink]") {
    eosim::testkit::ContractOptions options;
    options.sink = "file";  // registered in register_file_sink.cpp
    options.options = {{"path", "out/"}};
    options.cases = 500;
    const auto result = eosim::testkit::check_sink_contract(options);
    INFO(result.report);
    REQUIRE(result.passed);
}

TEST_CASE("file sink: exactly-once inside faulty jobs (job level)", "[file_sink]") {
    eosim::testkit::JobOptions options;
    options.sink = "file";
    options.options = {{"path", "out/"}};
    options.cases = 6;          // drawn jobs
    options.runs_per_case = 2;  // seeds each
    options.eosim_command = "./file-sink-eosim";
    const auto result = eosim::testkit::check_sink_in_jobs(options);
    INFO(result.report);
    REQUIRE(result.passed);
}
