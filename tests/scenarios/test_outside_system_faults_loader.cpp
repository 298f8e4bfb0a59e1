// The loader's generic outside-system faults: "system" names a registered system (a misspelling is
// reported with the JSON path and the list), bulk_partial_failure only for a system with batches,
// a system named by a fault or by a node becomes one the run builds, and a run with such a fault
// reaches the model (the runner wires scenarios/outside_system_registry.h into the injector).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "scenarios/outside_system_registry.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "sim/external/key_value_store.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

Scenario load_outside_faults(const json& document) {
    testing::TempDir dir;
    return load_scenario(dir.write("s.json", document.dump()));
}

std::string outside_faults_error_of(const json& document, std::string* path) {
    try {
        load_outside_faults(document);
    } catch (const ScenarioError& e) {
        *path = e.json_path();
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("loader: generic outside-system faults name a registered system", "[loader]") {
    json s = testing::smallest_append_job();
    s["faults"]["schedule"] = json::parse(R"([
      {"kind": "system_unavailable", "at": "1s", "system": "key_values", "duration": "1s"},
      {"kind": "bulk_partial_failure", "at": "2s", "system": "documents", "ratio": "1/4", "duration": "1s"},
      {"kind": "partition", "at": "3s", "nodes": ["tm0"], "other_nodes": ["objects"], "duration": "1s"}])");
    const Scenario loaded = load_outside_faults(s);
    REQUIRE(loaded.faults.size() == 3);
    CHECK(loaded.faults[0].system == "key_values");
    CHECK(loaded.faults[1].ratio.numerator == 1);
    CHECK(loaded.faults[1].ratio.denominator == 4);
    CHECK(loaded.outside_systems == std::vector<std::string>{"key_values", "documents", "objects"});
    CHECK(load_outside_faults(testing::smallest_append_job()).outside_systems.empty());

    std::string path;
    s["faults"]["schedule"] =
        json::parse(R"([{"kind": "system_write_errors", "at": "1s", "system": "key_value"}])");
    std::string message = outside_faults_error_of(s, &path);
    CHECK(path == "/faults/schedule/0/system");
    CHECK_THAT(message,
               Catch::Contains("an outside system (documents, key_values, objects, database)"));
    CHECK_THAT(message, Catch::Contains("key_values"));
    s["faults"]["schedule"] =
        json::parse(R"([{"kind": "bulk_partial_failure", "at": "1s", "system": "objects"}])");
    message = outside_faults_error_of(s, &path);
    CHECK(path == "/faults/schedule/0/system");
    CHECK_THAT(message, Catch::Contains("with bulk requests (documents)"));
    s["faults"]["schedule"] = json::parse(R"([{"kind": "system_unavailable", "at": "1s"}])");
    message = outside_faults_error_of(s, &path);
    CHECK_THAT(message, Catch::Contains("system"));
}

TEST_CASE("loader: random generic outside-system faults draw one of their systems", "[loader]") {
    json s = testing::smallest_append_job();
    s["faults"]["random"] = json::parse(R"({"mode": "fixed", "count": 20, "quiet_after": "5s",
      "kinds": {"system_write_errors": {"systems": ["documents", "objects"]}}})");
    const Scenario loaded = load_outside_faults(s);
    CHECK(loaded.outside_systems == std::vector<std::string>{"documents", "objects"});
    sim::Prng prng(3);
    const FaultDraw draw = draw_random_faults(*loaded.random_faults, prng);
    bool documents = false;
    bool objects = false;
    for (const sim::FaultSpec& fault : draw.faults) {
        CHECK(fault.kind == sim::FaultKind::system_write_errors);
        documents = documents || fault.system == "documents";
        objects = objects || fault.system == "objects";
    }
    CHECK(documents);
    CHECK(objects);
}

TEST_CASE(
    "runner: a run builds the outside systems its scenario names, and their faults reach them",
    "[runner]") {
    json s = testing::smallest_append_job();
    s["faults"]["schedule"] = json::parse(
        R"([{"kind": "system_unavailable", "at": "100ms", "system": "key_values", "duration": "1s"}])");
    const Scenario loaded = load_outside_faults(s);
    RunOptions options;
    options.seed = 1;
    const RunResult result = run_scenario(loaded, options);
    REQUIRE(result.faults.size() == 1);
    CHECK(result.faults[0].action == "key_values unavailable until 1.100s");
    CHECK(!result.faults[0].skipped);

    sim::World world{sim::WorldOptions{}};
    RunOutsideSystems systems(loaded, world);
    CHECK(systems.systems().key_values != nullptr);
    CHECK(systems.systems().documents == nullptr);
    CHECK(systems.systems().kafka != nullptr);
    CHECK(systems.systems().databases.empty());
    CHECK(world.nodes().find("key_values") != sim::kNoNode);
    CHECK(world.nodes().find("documents") == sim::kNoNode);
    CHECK(systems.fault_hooks().systems.size() == 1);
}

TEST_CASE(
    "runner: the systems a scenario has through its parts are built in registration order, each on its node",
    "[runner]") {
    // A CDC job writing an upsert sink, with HA: both databases and the coordination service, after
    // Kafka and the append store (the order every trace hash depends on).
    const Scenario cdc = load_scenario(testing::catalogue_scenario("mysql-cdc-to-mysql-upsert"));
    sim::World world{sim::WorldOptions{}};
    RunOutsideSystems systems(cdc, world);
    REQUIRE(systems.systems().databases.size() == 2);
    CHECK(systems.systems().databases[0].first == "mysql-source");
    CHECK(systems.systems().databases[1].first == "mysql-target");
    CHECK(systems.systems().database("mysql-source") != nullptr);
    CHECK(systems.systems().database("mysql-target") != nullptr);
    CHECK(systems.systems().database("mysql-elsewhere") == nullptr);
    CHECK(world.nodes().find("kafka") < world.nodes().find("append-store"));
    CHECK(world.nodes().find("append-store") < world.nodes().find("mysql-source"));
    CHECK(world.nodes().find("mysql-source") < world.nodes().find("mysql-target"));
    // The databases take the generic faults under their names; Kafka brings its own hooks.
    const sim::OutsideFaults hooks = systems.fault_hooks();
    CHECK(hooks.systems.count("mysql-source") == 1);
    CHECK(hooks.systems.count("mysql-target") == 1);
    CHECK(hooks.broker_unavailable);
    CHECK(hooks.kafka_commit_errors);
    // The workload's table is the model's input.
    CHECK(systems.input().tables.size() == 1);
    CHECK(scenario_fault_systems(cdc) == std::vector<std::string>{"mysql-source", "mysql-target"});
}

}  // namespace eosim::scenarios

namespace eosim::scenarios {

TEST_CASE("loader: a sink kind that asks for an outside system makes the run build it",
          "[loader]") {
    CHECK(load_scenario(testing::catalogue_scenario("kafka-to-es-auto-id")).outside_systems ==
          std::vector<std::string>{"documents"});
    CHECK(load_scenario(testing::catalogue_scenario("kafka-to-redis-incr")).outside_systems ==
          std::vector<std::string>{"key_values"});

    json s = testing::smallest_append_job();
    s["job"]["vertices"][1] = json::parse(R"({"id": "sink", "kind": "sink", "sink": "documents",
        "options": {"id": "uuid"}, "inputs": [{"from": "source"}]})");
    std::string path;
    const std::string message = outside_faults_error_of(s, &path);
    CHECK(path == "/job/vertices/1/options/id");
    CHECK_THAT(message, Catch::Contains("key_versioned"));
    s["job"]["vertices"][1]["options"] = json::parse(R"({"mode": "dedup"})");
    s["job"]["vertices"][1]["sink"] = "key_values";
    CHECK(load_outside_faults(s).outside_systems == std::vector<std::string>{"key_values"});
}

}  // namespace eosim::scenarios

namespace eosim::scenarios {

TEST_CASE("loader and runner: a scenario's databases take the generic outside-system faults",
          "[loader]") {
    std::string path;
    json no_database = testing::smallest_append_job();
    no_database["faults"]["schedule"] =
        json::parse(R"([{"kind": "system_unavailable", "at": "1s", "system": "mysql-source"}])");
    CHECK_THAT(outside_faults_error_of(no_database, &path),
               Catch::Contains("an outside system (documents, key_values, objects, database)"));
    CHECK(path == "/faults/schedule/0/system");

    std::ifstream in(testing::catalogue_scenario("mysql-cdc-to-mysql-upsert"));
    json cdc = json::parse(in);
    cdc["faults"]["schedule"].push_back(json::parse(
        R"({"kind": "system_write_errors", "at": "3s", "system": "mysql-target", "duration": "2s"})"));
    cdc["faults"]["schedule"].push_back(json::parse(
        R"({"kind": "system_unavailable", "at": "6s", "system": "mysql-source", "duration": "1s"})"));
    const Scenario loaded = load_outside_faults(cdc);
    CHECK(loaded.outside_systems
              .empty());  // the databases are the scenario's own, not registered systems
    const RunResult result = run_scenario(loaded, RunOptions{1});
    CHECK(result.figures.outside_calls_failed > 0);  // the faults reached the databases
    CHECK(result.expectation_met);                   // and exactly-once held through them
    INFO(result.expectation_message);

    json bulk = cdc;
    bulk["faults"]["schedule"] = json::parse(
        R"([{"kind": "bulk_partial_failure", "at": "1s", "system": "mysql-target", "ratio": "1/2"}])");
    CHECK_THAT(outside_faults_error_of(bulk, &path),
               Catch::Contains("with bulk requests (documents)"));
}

}  // namespace eosim::scenarios
