// The Kafka commit-fault kinds in the scenario format: kafka_commit_errors and
// kafka_commit_outcome_unknown load with a duration (scheduled and random), refuse other keys with
// the JSON path, and the shipped scenarios that use them load.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

json commit_fault_base() {
    return json::parse(R"({
      "world": {"task_managers": 1, "topics": [{"name": "input", "partitions": 1}, {"name": "output", "partitions": 1}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input"},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "output"}, "inputs": [{"from": "source"}]}],
        "checkpointing": {"interval": "200ms"}},
      "input": [{"topic": "input", "records": 50, "keys": 4, "rate_per_second": 100}],
      "oracles": ["exactly_once_output"]
    })");
}

Scenario load_commit_faults(const json& document) {
    testing::TempDir dir;
    return load_scenario(dir.write("s.json", document.dump()));
}

TEST_CASE("loader: the Kafka commit-fault kinds", "[scenarios][commit_faults]") {
    for (const char* kind : {"kafka_commit_errors", "kafka_commit_outcome_unknown"}) {
        INFO(kind);
        json s = commit_fault_base();
        s["faults"]["schedule"] =
            json::array({{{"kind", kind}, {"at", "1s"}, {"duration", "1500ms"}}});
        const Scenario loaded = load_commit_faults(s);
        REQUIRE(loaded.faults.size() == 1);
        CHECK(sim::to_string(loaded.faults[0].kind) == std::string(kind));
        CHECK(loaded.faults[0].duration == sim::Duration::millis(1500));

        s["faults"]["schedule"][0]["nodes"] = json::array({"tm0"});
        try {
            load_commit_faults(s);
            FAIL("a node list was accepted");
        } catch (const ScenarioError& e) {
            CHECK(e.json_path() == "/faults/schedule/0/nodes");
        }

        json r = commit_fault_base();
        r["faults"]["random"] = {{"quiet_after", "3s"}, {"kinds", {{kind, json::object()}}}};
        const Scenario drawn = load_commit_faults(r);
        REQUIRE(drawn.random_faults.has_value());
    }
}

TEST_CASE("loader: the shipped commit-fault scenarios load", "[scenarios][commit_faults]") {
    for (const char* name : {"kafka-commit-faults", "kafka-commit-faults-short-txn-timeout"}) {
        INFO(name);
        const Scenario s = load_scenario(testing::catalogue_scenario(name));
        CHECK(s.faults.size() >= 1);
    }
}

}  // namespace
}  // namespace eosim::scenarios
