// The key-value table sink's property tests at both levels (eosim testkit). A keyed table is
// judged by its final table per key and by its keys never going backwards (sink_contract.h).
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"

TEST_CASE("kv table sink: keeps the sink contract (contract level)", "[kv_table_sink]") {
    eosim::testkit::ContractOptions options;
    options.sink = "kv_table";  // registered in register_kv_table_sink.cpp
    options.options = {{"prefix", "table:"}};
    options.cases = 500;
    const auto result = eosim::testkit::check_sink_contract(options);
    INFO(result.report);
    REQUIRE(result.passed);
}

TEST_CASE("kv table sink: its final table is exact inside faulty jobs (job level)",
          "[kv_table_sink]") {
    eosim::testkit::JobOptions options;
    options.sink = "kv_table";
    options.options = {{"prefix", "table:"}};
    options.cases = 6;
    options.runs_per_case = 2;
    const auto result = eosim::testkit::check_sink_in_jobs(options);
    INFO(result.report);
    REQUIRE(result.passed);
}
