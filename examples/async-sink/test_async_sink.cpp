// The asynchronous bulk writer's property tests at both levels (eosim testkit), at their defaults.
// The contract level finds out by a probe that the sink calls asynchronously and draws the steps of
// its calls in flight (landings and answers in any order, late answers to cancelled instances), and
// pre-commits wait for prepare_pre_commit as the engine's task does.
#include <catch2/catch.hpp>

#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"

TEST_CASE("async sink: keeps the sink contract (contract level)", "[async_sink]") {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        eosim::testkit::ContractOptions options;
        options.sink = "async_documents";  // registered in register_async_sink.cpp
        options.guarantee = eosim::testkit::Guarantee::at_least_once;  // what it promises, as
                                                                       // Flink's Elasticsearch sink
        options.seed = seed;
        const auto result = eosim::testkit::check_sink_contract(options);  // the default 100 cases
        INFO(result.report);
        REQUIRE(result.passed);
    }
}

TEST_CASE("async sink: its final table is exact inside faulty jobs (job level)", "[async_sink]") {
    eosim::testkit::JobOptions options;
    options.sink = "async_documents";
    // Batches and requests in flight of a deployment (the defaults, 3 and 2, suit the contract
    // level's few records; at thousands of records a second they would hold the job back past its
    // liveness bound).
    options.options = {{"max_batch_size", 50}, {"max_in_flight", 8}};
    options.guarantee = eosim::testkit::Guarantee::at_least_once;
    const auto result = eosim::testkit::check_sink_in_jobs(options);  // the defaults
    INFO(result.report);
    REQUIRE(result.passed);
}
