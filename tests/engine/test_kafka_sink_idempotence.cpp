// The Kafka sink and the input producer through Kafka's idempotent produce path:
// produce answers lost for a while (written, answered request_timeout) and retried. With
// idempotence the broker acknowledges the retried batches without writing them again, in the output
// and in the input; with an at-least-once sink whose idempotence is off (the negative twin) the
// retries are duplicates without any failover. And the transaction timer: with a checkpoint
// interval longer than the timeout, an idle sink's empty transactions never expire (nothing
// reported lost), while transactions holding records do (data lost, as Flink's documentation
// warns).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "tests/catalogue.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using namespace eosim::engine::test;

scenarios::RunResult run_catalogue(const std::string& name, uint64_t seed) {
    return run_scenario(scenarios::load_scenario(testing::catalogue_scenario(name)),
                        RunOptions{seed, nullptr});
}

int64_t answers_lost(const scenarios::RunResult& result) {
    for (const auto& account : result.fault_accounts) {
        if (account.kind == "kafka_produce_ack_lost") return account.hits;
    }
    return 0;
}

TEST_CASE(
    "kafka idempotence: lost produce answers are retried without duplicates, in the output and the input",
    "[kafka_sink][idempotence]") {
    for (const char* name : {"produce-ack-lost-idempotent", "produce-ack-lost-alo"}) {
        for (uint64_t seed : {1, 2}) {
            const auto result = run_catalogue(name, seed);
            INFO(name << "\n" << describe(result));
            CHECK(result.expectation_met);
            CHECK(answers_lost(result) > 0);
            CHECK(verdict(result, "exactly_once_output").passed);
        }
    }
    // The at-least-once sink needs no failover for it: the retries alone are harmless.
    CHECK(run_catalogue("produce-ack-lost-alo", 1).figures.restarts == 0);
}

TEST_CASE(
    "kafka idempotence: negative twin, a sink without idempotence writes a retried request twice",
    "[kafka_sink][idempotence]") {
    for (uint64_t seed : {1, 2}) {
        const auto result = run_catalogue("produce-ack-lost-no-idempotence", seed);
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK_FALSE(verdict(result, "exactly_once_output").passed);
        CHECK(verdict(result, "exactly_once_output").message.find("duplicated") !=
              std::string::npos);
        CHECK(verdict(result, "at_least_once_output").passed);  // nothing lost
        CHECK(result.figures.restarts == 0);  // no failover: the duplicates are the retries'
    }
}

TEST_CASE(
    "kafka transaction timer: an idle sink's empty transactions outlive a long interval, nothing lost",
    "[kafka_sink][transaction_timeout]") {
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_catalogue("long-interval-idle-sink", seed);
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.figures.transactions_lost ==
              0);  // before: every empty transaction expired and was reported lost
        CHECK(result.figures.fenced_calls == 0);
        CHECK(result.figures.transactions_committed > 0);
    }
}

TEST_CASE("kafka transaction timer: negative twin, records pending over a long interval are lost",
          "[kafka_sink][transaction_timeout]") {
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_catalogue("long-interval-pending-records", seed);
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK_FALSE(verdict(result, "exactly_once_output").passed);
        CHECK(result.figures.transactions_lost > 0);
    }
}

TEST_CASE(
    "kafka sink options: idempotence off only without transactions, refused with the JSON path",
    "[kafka_sink][idempotence]") {
    const auto file = testing::catalogue_scenario("produce-ack-lost-no-idempotence");
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json document = nlohmann::json::parse(text.str());
    CHECK_NOTHROW(scenarios::load_scenario_text(document.dump(), file));
    document["job"]["vertices"][2]["options"]["guarantee"] = "exactly_once";
    try {
        scenarios::load_scenario_text(document.dump(), file);
        FAIL("loaded an exactly-once Kafka sink without idempotence");
    } catch (const scenarios::ScenarioError& e) {
        CHECK(e.json_path() == "/job/vertices/2/options/idempotence");
        CHECK(std::string(e.what()).find("Kafka transactions need enable.idempotence") !=
              std::string::npos);
    }
}

}  // namespace
}  // namespace eosim::engine
