// The asynchronous bulk writer built in-tree: examples/async-sink's own tests
// run here as they do against the installed package (it passes at the contract level on seeds 1..3
// and inside jobs, where the engine's task waits for prepare_pre_commit), and its three buggy twins
// (examples/async-sink-*) must each be caught at the contract level's DEFAULT options on
// seeds 1..3.
#include <catch2/catch.hpp>

#include <string>

#include "examples/async-sink/async_sink.cpp"
#include "examples/async-sink/register_async_sink.cpp"
#include "examples/async-sink/test_async_sink.cpp"
#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"

// The buggy variants, registered as examples/async-sink-* do (a line each: the macro names its
// variable after the line).
EOSIM_REGISTER_SINK(async_sink_example::async_kind("buggy_async_no_wait",
                                                   async_sink_example::AsyncSlip::no_wait));
EOSIM_REGISTER_SINK(async_sink_example::async_kind("buggy_async_drops_failed",
                                                   async_sink_example::AsyncSlip::drop_failed));
EOSIM_REGISTER_SINK(async_sink_example::async_kind(
    "buggy_async_stale_completion", async_sink_example::AsyncSlip::stale_completion));

namespace eosim::testkit {
namespace {

void require_caught_at_defaults(const std::string& sink) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        ContractOptions options;
        options.sink = sink;
        options.guarantee = Guarantee::at_least_once;  // what the correct twin promises
        options.seed = seed;
        const auto result = check_sink_contract(options);
        INFO(sink << ", seed " << seed << ": caught after " << result.cases << " passing case(s)\n"
                  << result.report);
        REQUIRE_FALSE(result.passed);
        CHECK(result.report.find("MISSING") !=
              std::string::npos);  // a record of a completed checkpoint lost
    }
}

TEST_CASE(
    "async sink example: pre-commit that does not wait for requests in flight is caught at the defaults",
    "[testkit]") {
    require_caught_at_defaults("buggy_async_no_wait");
}

TEST_CASE("async sink example: failed entries dropped are caught at the defaults", "[testkit]") {
    require_caught_at_defaults("buggy_async_drops_failed");
}

TEST_CASE(
    "async sink example: a stale completion applied to the current attempt is caught at the defaults",
    "[testkit]") {
    require_caught_at_defaults("buggy_async_stale_completion");
}

// The engine's side of the wait (engine/runtime/task.h): inside jobs the correct writer passes
// (examples/async-sink's own job-level test, above); the writer whose pre-commit does not wait
// loses records of completed checkpoints when a TaskManager crashes under its requests in flight.
TEST_CASE("async sink example: at the job level the writer that does not wait is caught",
          "[testkit]") {
    testing::TempDir dir;
    JobOptions options;
    options.output_dir = dir.path().string();
    options.sink = "buggy_async_no_wait";
    options.options = {{"max_batch_size", 50}, {"max_in_flight", 8}};
    options.guarantee = Guarantee::at_least_once;
    const auto result = check_sink_in_jobs(options);
    INFO(result.report);
    REQUIRE_FALSE(result.passed);
    CHECK(result.report.find("missing") != std::string::npos);
}

TEST_CASE(
    "async sink example: the probe finds the asynchronous calls and the report counts their paths",
    "[testkit]") {
    ContractOptions options;
    options.sink = "async_documents";
    options.guarantee = Guarantee::at_least_once;
    const auto result = check_sink_contract(options);
    INFO(result.report);
    REQUIRE(result.passed);
    CHECK(result.report.find("asynchronous calls sent") != std::string::npos);
    CHECK(result.report.find("asynchronous answers delivered to a closed (zombie) instance") !=
          std::string::npos);
    CHECK(result.report.find("asynchronous calls overtaking older ones") != std::string::npos);
    // Switched off, no call steps are drawn: calls in flight then end oldest first (time passing, a
    // pre-commit's wait), never overtaking.
    options.async_calls = false;
    const auto without = check_sink_contract(options);
    INFO(without.report);
    CHECK(without.passed);
    CHECK(without.report.find("overtaking") == std::string::npos);
}

}  // namespace
}  // namespace eosim::testkit

namespace eosim::testkit {
namespace {

// By hand (not in ctest): how many cases each twin needs at the defaults but the budget, seeds 1..3
// (the correct writer: 5,000 cases each without a false alarm).
TEST_CASE("async sink example: cases to catch each twin", "[.async_sink_long]") {
    for (const char* sink : {"async_documents", "buggy_async_no_wait", "buggy_async_drops_failed",
                             "buggy_async_stale_completion"}) {
        for (uint64_t seed = 1; seed <= 3; ++seed) {
            ContractOptions options;
            options.sink = sink;
            options.guarantee = Guarantee::at_least_once;
            options.seed = seed;
            options.cases = 5000;
            const auto result = check_sink_contract(options);
            WARN(sink << " seed " << seed << ": "
                      << (result.passed ? "NOT caught in " : "caught after ") << result.cases
                      << " passing case(s)");
        }
    }
}

}  // namespace
}  // namespace eosim::testkit

#include "testkit/contract_harness.h"

namespace eosim::testkit {
namespace {

// The stale completion by hand, through the harness's commands: a cancelled attempt's late answer
// makes the current attempt pre-commit over a request still in flight, which a crash then kills.
std::optional<std::string> stale_completion_by_hand(const std::string& sink) {
    ContractOptions options;
    options.sink = sink;
    options.guarantee = Guarantee::at_least_once;
    ContractChecks checks;
    checks.at_least_once = true;
    ContractHarness h(configure_sink(options), options, checks, 1, nullptr);
    h.start(1);
    h.write(0, {0, 1, 2});  // a full batch: request 1 of incarnation 1 in flight
    h.cancel(0);            // incarnation 1 lives on as a zombie, its request in flight
    h.advance(10);          // its answer comes late, after incarnation 2 opened
    h.write(0, {0, 1, 2});  // the replay of #1..#3: incarnation 2's request 1
    h.write(0, {0, 1, 2});  // #4..#6: its request 2
    h.pre_commit(0);        // waits while one request (by its count) is in flight
    h.complete(0, Delivery::now);
    h.crash(0);  // its request 2 (#4..#6) dies with it; the restore replays after #6
    h.finish();
    if (auto v = h.check_final()) return *v + "\n" + h.log();
    return std::nullopt;
}

TEST_CASE(
    "async sink example: a stale completion by hand loses a completed checkpoint's records, the correct writer does not",
    "[testkit]") {
    const auto stale = stale_completion_by_hand("buggy_async_stale_completion");
    REQUIRE(stale.has_value());
    INFO(*stale);
    CHECK(stale->find("MISSING") != std::string::npos);
    const auto correct = stale_completion_by_hand("async_documents");
    INFO(correct.value_or("passed"));
    CHECK_FALSE(correct.has_value());
}

}  // namespace
}  // namespace eosim::testkit
