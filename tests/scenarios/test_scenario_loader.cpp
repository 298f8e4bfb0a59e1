// scenarios::load_scenario: a valid file becomes the right Scenario (given values and the structs'
// defaults), and every kind of user error becomes a ScenarioError naming the JSON path and what
// was expected. Fixtures are written to a fresh temporary directory by the tests themselves.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "engine/connectors/kafka_sink.h"
#include "engine/connectors/sink_registry.h"
#include "scenarios/scenario.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using eosim::testing::TempDir;

using nlohmann::json;
using sim::Duration;
using sim::Time;

// The example of scenarios/README.md.
json example() {
    return json::parse(R"({
      "name": "kafka-count-eos", "description": "count per key, two-phase commit into Kafka",
      "world": { "task_managers": 2, "slots_per_task_manager": 4, "spare_task_managers": 1,
                 "network": {"latency": {"min": "500us", "max": "2ms"}, "datagram_loss": "1/1000"},
                 "storage": {"latency": {"min": "1ms", "max": "5ms"}, "failure": {"numerator": 1, "denominator": 100}},
                 "kafka": {"transaction_timeout": "60s", "fencing": true},
                 "topics": [{"name": "input", "partitions": 4}, {"name": "output", "partitions": 4}] },
      "job": { "name": "count", "max_parallelism": 128,
               "vertices": [
                 {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 4},
                 {"id": "count", "kind": "keyed_count", "parallelism": 4, "inputs": [{"from": "source", "edge": "hash"}]},
                 {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "output", "guarantee": "exactly_once"}, "parallelism": 4,
                  "inputs": [{"from": "count", "edge": "forward"}]} ],
               "checkpointing": {"enabled": true, "mode": "exactly_once", "interval": "500ms", "timeout": "10s",
                                 "min_pause": "0ms", "max_concurrent": 1, "tolerable_failures": 0, "retained": 3},
               "restart": {"max_attempts": 20, "delay": "1s"},
               "runtime": {"record_cost": "10us", "heartbeat_timeout": 6000} },
      "input": [ {"topic": "input", "records": 10000, "keys": 32, "rate_per_second": 1000, "value_min": 1, "value_max": 100} ],
      "faults": { "schedule": [
          {"kind": "crash", "nodes": ["tm1"], "at": "3s", "restart_delay": "2s"},
          {"kind": "crash", "at_point": {"point": "sink.precommitted", "occurrence": 3, "node": "tm0"}, "restart_delay": "1s"},
          {"kind": "partition", "nodes": ["tm0"], "other_nodes": ["jobmanager"], "one_way": true, "at": "1.5s", "duration": "750ms"} ] },
      "oracles": ["exactly_once_output", "state_after_restore", "visibility", "liveness"],
      "liveness_bound": "120s", "time_limit": "1h",
      "expect": "pass"
    })");
}

Scenario load_json(const json& document, const std::string& name = "scenario.json") {
    TempDir dir;
    return load_scenario(dir.write(name, document.dump(2)));
}

// Loads `text`, which must fail; returns the error.
ScenarioError load_error_text(const std::string& text) {
    TempDir dir;
    try {
        load_scenario(dir.write("bad.json", text));
    } catch (const ScenarioError& error) {
        return error;
    }
    FAIL("the scenario loaded, but an error was expected");
    throw std::logic_error("unreachable");
}

// Checks that `document` fails at `path` with a message containing `fragment`.
void check_loader_error(const json& document, const std::string& path,
                        const std::string& fragment) {
    const ScenarioError error = load_error_text(document.dump(2));
    INFO(error.what());
    CHECK(error.json_path() == path);
    CHECK_THAT(error.what(), Catch::Contains(fragment));
    CHECK_THAT(error.file(), Catch::EndsWith("bad.json"));
}

json with(json document, const std::string& pointer, json value) {
    document[json::json_pointer(pointer)] = std::move(value);
    return document;
}

json without(json document, const std::string& pointer) {
    const json::json_pointer at(pointer);
    document[at.parent_pointer()].erase(at.back());
    return document;
}

TEST_CASE("loader: the README example loads with the right values", "[loader]") {
    const Scenario s = load_json(example());
    CHECK(s.name == "kafka-count-eos");
    CHECK(s.description == "count per key, two-phase commit into Kafka");
    CHECK(s.source.filename() == "scenario.json");

    CHECK(s.world.task_managers == 2);
    CHECK(s.world.slots_per_task_manager == 4);
    CHECK(s.world.spare_task_managers == 1);
    CHECK(s.world.network.remote.min == Duration::micros(500));
    CHECK(s.world.network.remote.max == Duration::millis(2));
    CHECK(s.world.network.local.min == Duration::micros(5));  // default kept
    CHECK(s.world.network.datagram_loss.numerator == 1);
    CHECK(s.world.network.datagram_loss.denominator == 1000);
    CHECK(s.world.storage.failure.numerator == 1);
    CHECK(s.world.storage.failure.denominator == 100);
    CHECK(s.world.kafka.transaction_timeout == Duration::seconds(60));
    CHECK(s.world.kafka.fencing);
    REQUIRE(s.world.topics.size() == 2);
    CHECK(s.world.topics[1].name == "output");
    CHECK(s.world.topics[1].partitions == 4);

    const engine::JobSpec& job = s.job;
    CHECK(job.name == "count");
    CHECK(job.max_parallelism == 128);
    REQUIRE(job.vertices.size() == 3);
    CHECK(job.vertices[0].kind == engine::OperatorKind::kafka_source);
    CHECK(job.vertices[0].topic == "input");
    CHECK(job.vertices[0].inputs.empty());
    CHECK(job.vertices[1].kind == engine::OperatorKind::keyed_count);
    REQUIRE(job.vertices[1].inputs.size() == 1);
    CHECK(job.vertices[1].inputs[0].from == "source");
    CHECK(job.vertices[1].inputs[0].kind == engine::EdgeKind::hash);
    CHECK(job.vertices[2].kind == engine::OperatorKind::sink);
    CHECK(job.vertices[2].sink_kind == "kafka");
    const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(job.vertices[2].sink.get());
    REQUIRE(kafka != nullptr);
    CHECK(kafka->options().guarantee == engine::DeliveryGuarantee::exactly_once);
    CHECK(kafka->options().transactional_id_prefix == "sink");
    CHECK(job.vertices[2].parallelism == 4);
    CHECK(job.vertex_index("sink") == 2);
    CHECK(job.find("nothing") == nullptr);
    CHECK(job.checkpointing.interval == Duration::millis(500));
    CHECK(job.checkpointing.timeout == Duration::seconds(10));
    CHECK(job.checkpointing.retained == 3);
    CHECK(job.restart.max_attempts == 20);
    CHECK(job.restart.delay == Duration::seconds(1));
    CHECK(job.runtime.record_cost == Duration::micros(10));
    CHECK(job.runtime.heartbeat_timeout == Duration::seconds(6));  // an integer means milliseconds
    CHECK(job.runtime.buffer_records == 256);                      // default kept

    REQUIRE(s.inputs.size() == 1);
    CHECK(s.inputs[0].records == 10000);
    CHECK(s.inputs[0].keys == 32);

    REQUIRE(s.faults.size() == 3);
    CHECK(s.faults[0].kind == sim::FaultKind::crash);
    CHECK(s.faults[0].trigger.at == Time::zero() + Duration::seconds(3));
    CHECK(s.faults[0].trigger.point.empty());
    CHECK(s.faults[0].nodes == std::vector<std::string>{"tm1"});
    CHECK(s.faults[0].restart);
    CHECK(s.faults[0].restart_delay == Duration::seconds(2));
    CHECK(s.faults[1].trigger.point == "sink.precommitted");
    CHECK(s.faults[1].trigger.occurrence == 3);
    CHECK(s.faults[1].trigger.point_node == "tm0");
    CHECK(s.faults[1].nodes.empty());  // the announcing node
    CHECK(s.faults[2].kind == sim::FaultKind::partition);
    CHECK(s.faults[2].trigger.at == Time::zero() + Duration::millis(1500));
    CHECK(s.faults[2].other_nodes == std::vector<std::string>{"jobmanager"});
    CHECK(s.faults[2].one_way);
    CHECK(s.faults[2].duration == Duration::millis(750));

    CHECK(s.oracles == std::vector<std::string>{"exactly_once_output", "state_after_restore",
                                                "visibility", "liveness"});
    CHECK(s.liveness_bound == Duration::seconds(120));
    CHECK(s.time_limit == Duration::seconds(3600));
    CHECK(s.expect.pass);
}

TEST_CASE("loader: omitted fields take the structs' defaults, the name defaults to the file name",
          "[loader]") {
    const json minimal = json::parse(R"({
      "world": {"topics": [{"name": "in"}]},
      "job": {"vertices": [{"id": "src", "kind": "kafka_source", "topic": "in"},
                           {"id": "out", "kind": "sink", "sink": "append", "inputs": [{"from": "src"}]}]},
      "oracles": ["at_least_once_output"]
    })");
    const Scenario s = load_json(minimal, "minimal-append.json");
    CHECK(s.name == "minimal-append");
    CHECK(s.world.task_managers == WorldSpec{}.task_managers);
    CHECK(s.world.topics[0].partitions == 1);
    CHECK(s.job.vertices[1].parallelism == 1);
    CHECK(s.job.vertices[1].inputs[0].kind == engine::EdgeKind::forward);
    CHECK(s.job.checkpointing.interval == engine::CheckpointConfig{}.interval);
    CHECK(s.inputs.empty());
    CHECK(s.faults.empty());
    CHECK(s.expect.pass);
    CHECK(s.liveness_bound == Scenario{}.liveness_bound);
}

TEST_CASE("loader: map, filter, union and the sink options", "[loader]") {
    json doc = example();
    doc["job"]["vertices"] = json::parse(R"([
      {"id": "a", "kind": "kafka_source", "topic": "input", "parallelism": 2},
      {"id": "b", "kind": "kafka_source", "topic": "other", "parallelism": 2},
      {"id": "u", "kind": "union", "parallelism": 2, "inputs": [{"from": "a"}, {"from": "b"}]},
      {"id": "m", "kind": "map", "parallelism": 3, "inputs": [{"from": "u", "edge": "rebalance"}],
       "map": {"key_multiplier": 3, "key_offset": -1, "key_modulus": 10, "value_multiplier": 2, "value_offset": 5}},
      {"id": "f", "kind": "filter", "parallelism": 3, "inputs": [{"from": "m"}], "filter": {"modulus": 3, "drop_remainder": 2}},
      {"id": "s", "kind": "keyed_sum", "parallelism": 3, "inputs": [{"from": "f", "edge": "hash"}]},
      {"id": "k", "kind": "sink", "sink": "kafka", "options": {"topic": "output", "guarantee": "at_least_once", "transactional_id_prefix": "tx"},
       "parallelism": 3, "inputs": [{"from": "s"}]}
    ])");
    doc["world"]["topics"].push_back({{"name", "other"}});
    // An at-least-once Kafka sink announces no sink.precommitted (the loader refuses a fault
    // there).
    doc["faults"]["schedule"][1]["at_point"]["point"] = "checkpoint.completed";
    const Scenario s = load_json(doc);
    const engine::VertexSpec& m = *s.job.find("m");
    CHECK(m.map.key_multiplier == 3);
    CHECK(m.map.key_offset == -1);
    CHECK(m.map.key_modulus == 10);
    CHECK(m.map.value_offset == 5);
    CHECK(m.inputs[0].kind == engine::EdgeKind::rebalance);
    CHECK(s.job.find("f")->filter.modulus == 3);
    CHECK(s.job.find("f")->filter.drop_remainder == 2);
    CHECK(s.job.find("u")->kind == engine::OperatorKind::union_all);
    CHECK(s.job.find("u")->inputs.size() == 2);
    const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(s.job.find("k")->sink.get());
    REQUIRE(kafka != nullptr);
    CHECK(kafka->options().guarantee == engine::DeliveryGuarantee::at_least_once);
    CHECK(kafka->options().transactional_id_prefix == "tx");
}

TEST_CASE("loader: durations, ratios and expectations in their accepted forms", "[loader]") {
    CHECK(load_json(with(example(), "/liveness_bound", "250ns")).liveness_bound ==
          Duration::nanos(250));
    CHECK(load_json(with(example(), "/liveness_bound", "1.5s")).liveness_bound ==
          Duration::millis(1500));
    CHECK(load_json(with(example(), "/liveness_bound", "2m")).liveness_bound ==
          Duration::seconds(120));
    CHECK(load_json(with(example(), "/liveness_bound", 1500)).liveness_bound ==
          Duration::millis(1500));
    const Scenario s = load_json(with(example(), "/expect", {{"violation", "visibility"}}));
    CHECK_FALSE(s.expect.pass);
    CHECK(s.expect.violation == "visibility");
}

TEST_CASE("loader: invalid JSON names the line and column", "[loader]") {
    const ScenarioError error = load_error_text("{\n  \"name\": \"x\",\n  \"world\": }\n");
    INFO(error.what());
    CHECK(error.json_path() == "line 3, column 12");
    CHECK_THAT(error.what(), Catch::Contains("invalid JSON"));
    CHECK_THAT(error.what(), Catch::Contains("syntax error"));
}

TEST_CASE(
    "loader: a number no double holds is invalid JSON, not an internal error (a fuzzer finding)",
    "[loader]") {
    const ScenarioError error = load_error_text("666e667");
    INFO(error.what());
    CHECK_THAT(error.what(), Catch::Contains("invalid JSON"));
    CHECK_THAT(error.what(), Catch::Contains("number overflow"));
    const ScenarioError in_object = load_error_text(R"({"time_limit": 1e999})");
    CHECK_THAT(in_object.what(), Catch::Contains("number overflow"));
}

TEST_CASE("loader: a duplicate key is an error, not a silent overwrite", "[loader]") {
    const ScenarioError error =
        load_error_text(R"({"job": {"vertices": [{"id": "a", "kind": "map", "id": "b"}]}})");
    INFO(error.what());
    CHECK(error.json_path() == "/job/vertices/0/id");
    CHECK_THAT(error.what(), Catch::Contains("duplicate key \"id\""));
}

TEST_CASE("loader: a missing file is a ScenarioError", "[loader]") {
    CHECK_THROWS_AS(load_scenario("/nonexistent/eosim/scenario.json"), ScenarioError);
}

TEST_CASE("loader: an unknown key is an error that lists the expected keys", "[loader]") {
    json doc = example();
    doc["job"]["vertices"][1]["paralellism"] = 4;
    check_loader_error(doc, "/job/vertices/1/paralellism",
                       "unknown key \"paralellism\" (did you mean \"parallelism\"?)");
    check_loader_error(doc, "/job/vertices/1/paralellism",
                       "expected one of: id, kind, parallelism, inputs");
    check_loader_error(with(example(), "/world/netwrok", json::object()), "/world/netwrok",
                       "unknown key \"netwrok\"");
    // Options of another kind are unknown keys too.
    check_loader_error(with(example(), "/job/vertices/1/guarantee", "none"),
                       "/job/vertices/1/guarantee", "unknown key");
    check_loader_error(with(example(), "/faults/schedule/0/duration", "1s"),
                       "/faults/schedule/0/duration", "unknown key \"duration\"");
}

TEST_CASE("loader: a value of the wrong type or range is an error", "[loader]") {
    check_loader_error(with(example(), "/job/vertices/2/parallelism", "four"),
                       "/job/vertices/2/parallelism",
                       "expected a positive integer, found \"four\"");
    check_loader_error(with(example(), "/job/vertices/2/parallelism", 0),
                       "/job/vertices/2/parallelism", "expected a positive integer, found 0");
    check_loader_error(with(example(), "/job/vertices/2/parallelism", 2.5),
                       "/job/vertices/2/parallelism", "found 2.5");
    check_loader_error(with(example(), "/world/kafka/fencing", "yes"), "/world/kafka/fencing",
                       "expected true or false");
    check_loader_error(with(example(), "/world", json::array()), "/world",
                       "expected an object, found an array");
    check_loader_error(with(example(), "/job/vertices/1/kind", "keyed_cuont"),
                       "/job/vertices/1/kind", "(did you mean \"keyed_count\"?)");
    check_loader_error(with(example(), "/world/network/datagram_loss", "3/2"),
                       "/world/network/datagram_loss", "expected a ratio between 0 and 1");
    check_loader_error(with(example(), "/oracles/1", "exactly_once"), "/oracles/1",
                       "expected an oracle name");
    check_loader_error(with(example(), "/input/0/value_min", 500), "/input/0/value_max",
                       "expected value_max >= value_min");
}

TEST_CASE("loader: a missing required field is an error at its would-be path", "[loader]") {
    check_loader_error(without(example(), "/job/vertices/0/topic"), "/job/vertices/0/topic",
                       "missing required key \"topic\"");
    check_loader_error(without(example(), "/job/vertices/1/id"), "/job/vertices/1/id",
                       "missing required key \"id\"");
    check_loader_error(without(example(), "/job/vertices/1/inputs"), "/job/vertices/1/inputs",
                       "missing required key \"inputs\"");
    check_loader_error(without(example(), "/oracles"), "/oracles",
                       "missing required key \"oracles\"");
    check_loader_error(without(example(), "/faults/schedule/0/at"), "/faults/schedule/0",
                       "expected a trigger");
}

TEST_CASE("loader: a bad duration is an error", "[loader]") {
    check_loader_error(with(example(), "/job/checkpointing/interval", "5 parsecs"),
                       "/job/checkpointing/interval", "expected a positive duration");
    check_loader_error(with(example(), "/job/checkpointing/interval", "5 parsecs"),
                       "/job/checkpointing/interval", "found \"5 parsecs\"");
    check_loader_error(with(example(), "/job/checkpointing/interval", "0ms"),
                       "/job/checkpointing/interval", "expected a positive duration");
    check_loader_error(with(example(), "/time_limit", -5), "/time_limit", "found -5");
    check_loader_error(with(example(), "/faults/schedule/0/restart_delay", "1.0000000001s"),
                       "/faults/schedule/0/restart_delay", "expected a duration");
}

TEST_CASE("loader: bad references between vertices are errors", "[loader]") {
    check_loader_error(
        with(example(), "/job/vertices/1/inputs/0/from", "sourc"), "/job/vertices/1/inputs/0/from",
        "expected the id of an earlier, non-sink vertex (source), found \"sourc\" (did you mean \"source\"?)");
    check_loader_error(with(example(), "/job/vertices/1/inputs/0/from", "sink"),
                       "/job/vertices/1/inputs/0/from",
                       "found \"sink\" (it is listed later; list vertices in topological order)");
    check_loader_error(with(example(), "/job/vertices/1/inputs/0/from", "count"),
                       "/job/vertices/1/inputs/0/from", "(a vertex cannot read itself)");
    check_loader_error(with(example(), "/job/vertices/2/id", "count"), "/job/vertices/2/id",
                       "duplicate vertex id \"count\"");
    check_loader_error(
        with(example(), "/job/vertices/1/inputs/0/edge", "forward"),
        "/job/vertices/1/inputs/0/edge",
        "expected \"hash\" (a keyed_count vertex reads keyed input), found \"forward\"");
    check_loader_error(with(example(), "/job/vertices/2/parallelism", 2),
                       "/job/vertices/2/inputs/0/edge", "a forward edge needs equal parallelism");
    check_loader_error(with(example(), "/job/vertices/0/parallelism", 9),
                       "/job/vertices/0/parallelism",
                       "at most the slots of the task managers (2 x 4 = 8)");
    check_loader_error(with(example(), "/job/vertices/0/topic", "nowhere"), "/job/vertices/0/topic",
                       "expected a topic listed in /world/topics (input, output)");
    check_loader_error(with(example(), "/job/vertices/2/options/topic", "input"),
                       "/job/vertices/2/options/topic", "a topic no source reads");
    check_loader_error(
        with(example(), "/job/vertices/2/options/topic", "nowhere"),
        "/job/vertices/2/options/topic",
        "expected a topic listed in /world/topics (\"input\", \"output\"), found \"nowhere\"");
    check_loader_error(
        with(example(), "/job/vertices/2/options/guarantee", "twice"),
        "/job/vertices/2/options/guarantee",
        "expected one of \"none\", \"at_least_once\", \"exactly_once\", found \"twice\"");
    check_loader_error(with(example(), "/job/vertices/2/options/topics", "output"),
                       "/job/vertices/2/options/topics", "unknown key \"topics\"");
    check_loader_error(with(example(), "/job/vertices/2/sink", "kafak"), "/job/vertices/2/sink",
                       "found \"kafak\" (did you mean \"kafka\"?)");
    check_loader_error(with(example(), "/job/vertices/2/sink", "kafak"), "/job/vertices/2/sink",
                       "a registered sink kind (append,");
    check_loader_error(with(example(), "/job/vertices/2/options", 3), "/job/vertices/2/options",
                       "expected an object");
    check_loader_error(with(example(), "/input/0/topic", "output"), "/input/0/topic",
                       "a topic no sink writes");

    json sink_in_middle = example();
    std::swap(sink_in_middle["job"]["vertices"][1], sink_in_middle["job"]["vertices"][2]);
    sink_in_middle["job"]["vertices"][1]["inputs"][0]["from"] = "source";
    check_loader_error(sink_in_middle, "/job/vertices/2/kind", "sinks come last");

    json no_sink = example();
    no_sink["job"]["vertices"].erase(2);
    check_loader_error(no_sink, "/job/vertices", "expected the job to end in a sink");
}

TEST_CASE("loader: an edge reads the late side output only of a vertex that has one", "[loader]") {
    check_loader_error(
        with(example(), "/job/vertices/2/inputs/0/output", "late"),
        "/job/vertices/2/inputs/0/output",
        "expected an upstream vertex with a late-data side output (an event-time window), found \"count\" "
        "(keyed_count), which has none");
    check_loader_error(with(example(), "/job/vertices/2/inputs/0/output", "main"),
                       "/job/vertices/2/inputs/0/output",
                       "expected \"late\" (the late-data side output), found \"main\"");
    CHECK(load_json(example()).job.vertices[2].inputs[0].output.empty());
}

TEST_CASE("loader: a bad node name in a fault is an error", "[loader]") {
    check_loader_error(
        with(example(), "/faults/schedule/0/nodes/0", "tm7"), "/faults/schedule/0/nodes/0",
        "expected a node name, one of: jobmanager, tm0, tm1, tm2, kafka, append-store, documents, key_values, objects, database; found \"tm7\"");
    check_loader_error(with(example(), "/faults/schedule/1/at_point/node", "taskmanager0"),
                       "/faults/schedule/1/at_point/node", "expected a node name");
    check_loader_error(with(example(), "/faults/schedule/1/at_point/point", "sink.precomitted"),
                       "/faults/schedule/1/at_point/point",
                       "(did you mean \"sink.precommitted\"?)");
    check_loader_error(
        with(example(), "/faults/schedule/0/at_point", {{"point", "sink.committed"}}),
        "/faults/schedule/0/at_point", "expected either \"at\" or \"at_point\", found both");
    check_loader_error(with(example(), "/faults/schedule/0/nodes", json::array()),
                       "/faults/schedule/0/nodes", "expected at least one node");
    check_loader_error(with(example(), "/faults/schedule/2/other_nodes/0", "tm0"),
                       "/faults/schedule/2/other_nodes/0", "expected a node not in \"nodes\"");
    // The spare task manager (tm2, as spare_task_managers is 1) is a valid target.
    CHECK(load_json(with(example(), "/faults/schedule/0/nodes/0", "tm2")).faults[0].nodes[0] ==
          "tm2");
}

TEST_CASE("loader: an expected violation must name a listed oracle", "[loader]") {
    json doc = with(example(), "/expect", {{"violation", "at_least_once_output"}});
    check_loader_error(
        doc, "/expect/violation",
        "expected an oracle listed in /oracles (exactly_once_output, state_after_restore, visibility, "
        "liveness), found \"at_least_once_output\"");
    check_loader_error(
        with(example(), "/expect", "fail"), "/expect",
        "expected \"pass\", {\"violation\": oracle name} or {\"job_failure\": text of the error}");
    check_loader_error(with(example(), "/oracles/1", "exactly_once_output"), "/oracles/1",
                       "duplicate oracle");
}

json cdc_example() {
    json document = testing::smallest_cdc_copy();
    document["oracles"] = {"exactly_once_output", "mirror", "no_key_backwards", "liveness"};
    return document;
}

TEST_CASE(
    "loader: a CDC scenario reads its database, chunks over the workload's keys, and marks the changelog",
    "[loader]") {
    const Scenario s = load_json(cdc_example());
    REQUIRE(s.database);
    CHECK(s.database->tables.at(0).initial_rows == 10);
    CHECK(s.database->workload.keys == 40);
    CHECK(s.job.vertices.at(0).chunk_key_end == 40);
    CHECK(s.job.vertices.at(0).changelog_input);
    CHECK(s.job.vertices.at(1).changelog_input);
    CHECK(s.has_cdc_source());
    CHECK(s.has_upsert_sink());
    CHECK(s.world.topics.empty());  // no topic needed next to a database
}

TEST_CASE("loader: CDC and upsert errors name the path and what was expected", "[loader]") {
    check_loader_error(with(cdc_example(), "/job/vertices/0/table", "nope"),
                       "/job/vertices/0/table", "a table listed in /database/tables");
    check_loader_error(with(cdc_example(), "/database/workload/table", "nope"),
                       "/database/workload/table", "a table listed in /database/tables");
    check_loader_error(with(cdc_example(), "/database/workload/value_min", 0),
                       "/database/workload/value_min", "a positive integer");
    // A guarded upsert behind an aggregate: no per-row version reaches the sink.
    json aggregate = cdc_example();
    aggregate["job"]["vertices"] = json::parse(R"([
        {"id": "source", "kind": "cdc_source", "table": "orders"},
        {"id": "group", "kind": "map", "map": {"key_modulus": 4}, "inputs": [{"from": "source"}]},
        {"id": "sum", "kind": "keyed_sum", "inputs": [{"from": "group", "edge": "hash"}]},
        {"id": "sink", "kind": "sink", "sink": "upsert", "options": {"table": "t"}, "inputs": [{"from": "sum"}]}])");
    aggregate["oracles"] = {"exactly_once_output"};
    check_loader_error(aggregate, "/job/vertices/3/options/version_guard",
                       "\"version_guard\": false");
    aggregate["job"]["vertices"][3]["options"]["version_guard"] = false;
    CHECK_NOTHROW(load_json(aggregate));
    // Oracles that do not fit the job.
    check_loader_error(with(cdc_example(), "/oracles", json{"state_after_restore"}), "/oracles/0",
                       "needs a job without a cdc_source");
    check_loader_error(with(cdc_example(), "/oracles", json{"visibility"}), "/oracles/0",
                       "needs a job reading or writing Kafka");
    check_loader_error(with(example(), "/oracles", json{"mirror"}), "/oracles/0",
                       "needs a CDC job writing an upsert sink");
    check_loader_error(with(example(), "/oracles", json{"no_key_backwards"}), "/oracles/0",
                       "needs a job with an upsert_sink");
    check_loader_error(with(cdc_example(), "/job/checkpointing", json{{"enabled", false}}),
                       "/job/checkpointing/enabled", "expected checkpointing enabled");
    // Without a database the topics stay required.
    check_loader_error(without(without(cdc_example(), "/database"), "/job"), "/world/topics",
                       "missing required key");
}

// The raw-event job of kafka-to-es-source-offset-ids: source -> map -> filter -> documents with
// _id from the source identity.
json source_offset_example() {
    std::ifstream in(eosim::testing::catalogue_scenario("kafka-to-es-source-offset-ids"));
    return json::parse(in);
}

TEST_CASE(
    "loader: sinks naming records by their source offset load on a chain of maps and filters from one topic",
    "[loader][source_identity]") {
    const Scenario s = load_json(source_offset_example());
    CHECK(s.job.vertices.at(3).sink->source_identity_option() == "id");
    json kv = with(source_offset_example(), "/job/vertices/3/sink", "key_values");
    kv["job"]["vertices"][3]["options"] = json{{"event_id", "source_offset"}};
    kv.erase("faults");
    const Scenario counters = load_json(kv);
    CHECK(counters.job.vertices.at(3).sink->source_identity_option() == "event_id");
    CHECK(counters.job.vertices.at(3).sink->output_shape() == engine::SinkOutputShape::key_counts);
    // Unaligned checkpoints too: channel state keeps the in-flight records' source identity.
    CHECK_NOTHROW(load_json(with(source_offset_example(), "/job/checkpointing",
                                 json{{"mode", "exactly_once"}, {"unaligned", true}})));
}

TEST_CASE("loader: source-offset ids where records have no source offset are errors at the option",
          "[loader][source_identity]") {
    // A keyed count between the source and the sink: its records are counts, not Kafka records.
    json keyed = source_offset_example();
    keyed["job"]["vertices"][2] =
        json::parse(R"({"id": "drop_some", "kind": "keyed_count", "parallelism": 4,
                                                  "inputs": [{"from": "enrich", "edge": "hash"}]})");
    check_loader_error(keyed, "/job/vertices/3/options/id",
                       "expected the sink reached from a kafka_source through maps "
                       "and filters only");
    check_loader_error(keyed, "/job/vertices/3/options/id",
                       "\"drop_some\" (keyed_count) in between");
    json kv = with(keyed, "/job/vertices/3/sink", "key_values");
    kv["job"]["vertices"][3]["options"] = json{{"event_id", "source_offset"}};
    check_loader_error(kv, "/job/vertices/3/options/event_id", "keyed_count");
    // Two source topics: the name "<topic>-<partition>-<offset>" needs one.
    json two_topics = source_offset_example();
    two_topics["world"]["topics"].push_back(json{{"name", "other"}, {"partitions", 1}});
    two_topics["job"]["vertices"].insert(
        two_topics["job"]["vertices"].begin() + 1,
        json{{"id", "other"}, {"kind", "kafka_source"}, {"topic", "other"}});
    check_loader_error(two_topics, "/job/vertices/4/options/id",
                       "expected a job whose sources read one Kafka topic");
}

}  // namespace
}  // namespace eosim::scenarios

namespace eosim::scenarios {
namespace {

TEST_CASE(
    "loader: input partition_weights reads one weight per partition and refuses bad ones at their path",
    "[loader][finished]") {
    const json good = with(example(), "/input/0/partition_weights", json::array({24, 6, 1, 0}));
    CHECK(load_json(good).inputs[0].partition_weights == std::vector<int64_t>{24, 6, 1, 0});
    check_loader_error(with(example(), "/input/0/partition_weights", json::array({1, 2})),
                       "/input/0/partition_weights",
                       "an array of 4 weights, one per partition of topic \"input\"");
    check_loader_error(with(example(), "/input/0/partition_weights", json::array({1, -2, 0, 0})),
                       "/input/0/partition_weights/1", "a weight from 0 to 1000000");
    check_loader_error(with(example(), "/input/0/partition_weights", json::array({0, 0, 0, 0})),
                       "/input/0/partition_weights", "at least one weight above 0");
    json few_keys = with(example(), "/input/0/keys", 2);
    check_loader_error(with(few_keys, "/input/0/partition_weights", json::array({1, 1, 1, 0})),
                       "/input/0/partition_weights/2", "no key goes to it");
    json hot = with(example(), "/input/0/hot_key_percent", 10);
    check_loader_error(with(hot, "/input/0/partition_weights", json::array({1, 1, 1, 1})),
                       "/input/0/hot_key_percent", "no hot_key_percent with partition_weights");
}

}  // namespace
}  // namespace eosim::scenarios
