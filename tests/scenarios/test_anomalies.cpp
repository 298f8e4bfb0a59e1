// The anomaly table (scenarios/anomalies.h): a run that lost or duplicated records shows them
// grouped by sink, transaction and checkpoint, with the faults and deployments involved; a correct
// run shows none. The transaction-timeout margins, with their warning under 20% of the timeout,
// and the Kafka sink's transaction.timeout.ms under the broker's maximum.
#include <catch2/catch.hpp>

#include <fstream>
#include <numeric>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reports/anomaly_report.h"
#include "reports/run_record.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

json anomaly_catalogue_json(const std::string& name) {
    std::ifstream in(testing::catalogue_scenario(name));
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}

RunResult run_anomaly_json(const json& scenario, uint64_t seed = 1) {
    RunOptions options;
    options.seed = seed;
    return run_scenario(load_scenario_text(scenario.dump(), "anomalies.json"), options);
}

int64_t anomaly_grouped_records(const AnomalyTable& t) {
    return std::accumulate(t.groups.begin(), t.groups.end(), int64_t{0},
                           [](int64_t sum, const AnomalyGroup& g) { return sum + g.records; });
}

json anomaly_sink_option(json scenario, const std::string& key, const json& value) {
    for (json& v : scenario["job"]["vertices"]) {
        if (v.value("kind", "") == "sink") v["options"][key] = value;
    }
    return scenario;
}

TEST_CASE("anomalies: records lost in expired transactions, grouped by transaction and checkpoint",
          "[anomalies]") {
    const RunResult r = run_anomaly_json(anomaly_catalogue_json("txn-timeout-loss"));
    REQUIRE(r.expectation_met);
    const AnomalyTable& t = r.anomalies;
    REQUIRE(t.examined);
    REQUIRE_FALSE(t.groups.empty());
    CHECK(t.groups_left_out == 0);
    CHECK(anomaly_grouped_records(t) == t.lost + t.duplicated);
    CHECK(t.lost > 0);
    bool expired_group = false;
    for (const AnomalyGroup& g : t.groups) {
        CHECK(g.sink == "sink");
        CHECK_FALSE(g.examples.empty());
        if (g.where != "expired transaction") continue;
        expired_group = true;
        CHECK(g.kind == "lost");
        CHECK(g.transaction.starts_with("sink-"));
        CHECK(g.checkpoint >= 3);  // pre-committed for checkpoint 3 or later, never committed
        CHECK(g.transaction.ends_with("-" + std::to_string(g.checkpoint)));
        CHECK(g.from_s >= 0);
        CHECK(g.to_s > g.from_s);
        CHECK(g.deployments == std::vector<std::string>{"v1"});
        REQUIRE_FALSE(g.faults.empty());
        CHECK(g.faults.front().find("crash") != std::string::npos);
    }
    CHECK(expired_group);
    // The expired transactions are the tightest margins: none left.
    CHECK(t.margin_warnings > 0);
    REQUIRE_FALSE(t.margins.empty());
    CHECK(t.margins.front().outcome == "expired");
    CHECK(t.margins.front().margin_ms() <= 0);
    CHECK(t.margins.front().warned());

    std::ostringstream text;
    reports::write_anomalies(text, t);
    CHECK(text.str().find("anomalies   " + std::to_string(t.lost) + " lost") != std::string::npos);
    CHECK(text.str().find("lost in expired transaction sink-") != std::string::npos);
    CHECK(text.str().find("WARNING ") != std::string::npos);
    const AnomalyTable back = reports::anomalies_from_json(reports::to_json(t), "");
    CHECK(reports::to_json(back) == reports::to_json(t));
}

TEST_CASE("anomalies: a correct run shows no group and no margin warning", "[anomalies]") {
    const RunResult r = run_anomaly_json(anomaly_catalogue_json("kafka-count-eos"));
    REQUIRE(r.expectation_met);
    CHECK_FALSE(r.anomalies.examined);
    CHECK(r.anomalies.groups.empty());
    CHECK(r.anomalies.lost == 0);
    CHECK(r.anomalies.duplicated == 0);
    CHECK(r.anomalies.transactions_measured > 0);
    CHECK(r.anomalies.margin_warnings == 0);
    REQUIRE(r.anomalies.margins.size() == kMarginsMax);
    for (size_t i = 1; i < r.anomalies.margins.size(); ++i) {
        CHECK(r.anomalies.margins[i - 1].margin_ms() <=
              r.anomalies.margins[i].margin_ms());  // the tightest first
    }
    std::ostringstream text;
    reports::write_anomalies(text, r.anomalies);
    CHECK(text.str().find("anomalies") == std::string::npos);
    CHECK(text.str().find("0 ended within 20% of their timeout") != std::string::npos);
}

TEST_CASE(
    "anomalies: duplicates of an at-least-once Kafka sink are plain appends, a keyed store's by key",
    "[anomalies]") {
    const RunResult dup = run_anomaly_json(anomaly_catalogue_json("kafka-count-alo-dup"));
    REQUIRE(dup.anomalies.examined);
    CHECK(dup.anomalies.duplicated > 0);
    CHECK(anomaly_grouped_records(dup.anomalies) == dup.anomalies.lost + dup.anomalies.duplicated);
    for (const AnomalyGroup& g : dup.anomalies.groups) {
        CHECK(g.kind == "duplicated");
        CHECK(g.where == "plain appends (no transaction)");
        CHECK(g.transaction.empty());
    }
    CHECK(dup.anomalies.transactions_measured == 0);  // no transaction held its records

    const RunResult counts = run_anomaly_json(anomaly_catalogue_json("kafka-to-redis-incr"));
    REQUIRE(counts.anomalies.examined);
    REQUIRE_FALSE(counts.anomalies.groups.empty());
    for (const AnomalyGroup& g : counts.anomalies.groups) {
        CHECK((g.kind == "wrong value" || g.kind == "lost" || g.kind == "extra"));
        REQUIRE_FALSE(g.examples.empty());
        CHECK(g.examples.front().starts_with("key "));
    }
}

TEST_CASE("anomalies: the margin warning is under 20% of the timeout", "[anomalies]") {
    CHECK(TransactionMargin{"s", "s-0-1", 1, "committed", 810, 1000}.warned());        // 19% left
    CHECK_FALSE(TransactionMargin{"s", "s-0-1", 1, "committed", 800, 1000}.warned());  // 20% left
    CHECK(TransactionMargin{"s", "s-0-1", 1, "expired", 1000, 1000}.warned());
}

TEST_CASE("kafka sink: transaction_timeout_ms is the producer's, at most the broker's maximum",
          "[anomalies][kafka_sink]") {
    // A second's checkpoint interval against a timeout of 1.1 s: every transaction ends within 20%.
    json tight = anomaly_sink_option(anomaly_catalogue_json("kafka-count-eos"),
                                     "transaction_timeout_ms", 1100);
    tight["job"]["checkpointing"]["interval"] = "1s";
    tight.erase("faults");
    tight.erase("sometimes");
    tight["oracles"] = {"exactly_once_output", "liveness"};
    const RunResult r = run_anomaly_json(tight);
    CHECK(r.anomalies.transactions_measured > 0);
    CHECK(r.anomalies.margin_warnings > 0);
    REQUIRE_FALSE(r.anomalies.margins.empty());
    CHECK(r.anomalies.margins.front().timeout_ms == 1100);

    // Above the broker's transaction.max.timeout.ms (60 s here): Kafka refuses the producer.
    json refused = anomaly_sink_option(tight, "transaction_timeout_ms", 61000);
    refused["job"]["restart"] = {{"max_attempts", 2}, {"delay", "100ms"}};
    refused["oracles"] = {"visibility"};  // judged on what ran until the failure
    refused["expect"] = {
        {"job_failure",
         "InvalidTxnTimeoutException: The transaction timeout is larger than the maximum"}};
    const RunResult failed = run_anomaly_json(refused);
    INFO(failed.expectation_message);
    CHECK(failed.expectation_met);
    CHECK(failed.expectation_message.find(
              "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy") !=
          std::string::npos);
}

TEST_CASE("reports: a negative control's run says what it found, not PASSED",
          "[anomalies][reports]") {
    const json scenario = anomaly_catalogue_json("txn-timeout-loss");
    const Scenario loaded = load_scenario_text(scenario.dump(), "txn-timeout-loss.json");
    RunOptions options;
    const reports::RunRecord record =
        reports::make_run_record(loaded, run_scenario(loaded, options), "eosim run x --seed 1");
    CHECK(record.status == reports::RunStatus::passed);
    CHECK(reports::run_outcome(record) == "VIOLATION FOUND, AS EXPECTED");
    CHECK(reports::to_json(record)["anomalies"]["lost"].get<int64_t>() > 0);
}

}  // namespace
}  // namespace eosim::scenarios
