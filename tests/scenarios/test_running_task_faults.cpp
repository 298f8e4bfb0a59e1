// A fault aimed at "the TaskManager running vertex V, subtask i" (FaultSpec::running_vertex, the
// scenario's "task_manager_running"): it hits where the latest attempt placed that subtask (tm0
// when slots fill in order, tm1 for subtask 1 when spread evenly), fires without effect before any
// deployment, works for crash, pause and partition, loads with clear errors, and its JSON form
// loads back to the same fault.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "scenarios/fault_json.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/engine/scenario_fixtures.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

sim::FaultSpec fault_at_running(sim::FaultKind kind, const std::string& vertex, int32_t subtask,
                                sim::Duration at) {
    sim::FaultSpec f;
    f.kind = kind;
    f.trigger.at = sim::Time::zero() + at;
    f.running_vertex = vertex;
    f.running_subtask = subtask;
    f.restart_delay = sim::Duration::millis(500);
    f.duration = sim::Duration::millis(500);
    return f;
}

Scenario running_four_wide(bool evenly) {
    Scenario s = engine::test::count_scenario(3000, 4);
    s.world.slots_per_task_manager = 4;
    s.world.evenly_spread_out_slots = evenly;
    return s;
}

TEST_CASE("running-task target: the TaskManager the latest attempt placed the subtask on",
          "[fault_target]") {
    for (const bool evenly : {false, true}) {
        INFO("evenly spread out: " << evenly);
        for (const sim::FaultKind kind :
             {sim::FaultKind::crash, sim::FaultKind::pause, sim::FaultKind::partition}) {
            INFO(sim::to_string(kind));
            Scenario s = running_four_wide(evenly);
            s.faults = {fault_at_running(kind, "count", 1, sim::Duration::seconds(1))};
            const RunResult result = run_scenario(s, RunOptions{2});
            CHECK(result.expectation_met);
            REQUIRE(result.faults.size() == 1);
            CHECK_FALSE(result.faults[0].skipped);
            REQUIRE_FALSE(result.faults[0].nodes.empty());
            CHECK(result.faults[0].nodes[0] == (evenly ? "tm1" : "tm0"));
            REQUIRE(result.fault_accounts.size() == 1);
            CHECK(result.fault_accounts[0].outcome == FaultOutcome::fired);
        }
    }
}

TEST_CASE("running-task target: before any deployment the fault fires without effect, saying why",
          "[fault_target]") {
    Scenario s = running_four_wide(true);
    s.faults = {fault_at_running(sim::FaultKind::crash, "sink", 3, sim::Duration::zero())};
    const RunResult result = run_scenario(s, RunOptions{1});
    REQUIRE(result.faults.size() == 1);
    CHECK(result.faults[0].skipped);
    CHECK(result.faults[0].action == "no target: no attempt deployed runs sink-3");
}

json running_case_base() {
    return json::parse(R"({
      "world": {"task_managers": 2, "slots_per_task_manager": 2, "evenly_spread_out_slots": true,
                "topics": [{"name": "input", "partitions": 2}, {"name": "output", "partitions": 2}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 2},
        {"id": "count", "kind": "keyed_count", "parallelism": 2, "inputs": [{"from": "source", "edge": "hash"}]},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "output"}, "parallelism": 2,
         "inputs": [{"from": "count"}]}]},
      "input": [{"topic": "input", "records": 50, "keys": 4, "rate_per_second": 100}],
      "oracles": ["exactly_once_output"]
    })");
}

Scenario load_running_case(const json& document) {
    testing::TempDir dir;
    return load_scenario(dir.write("s.json", document.dump()));
}

std::string running_case_error(const json& document) {
    try {
        load_running_case(document);
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}

TEST_CASE("running-task target: loads, and its JSON form loads back the same", "[fault_target]") {
    json s = running_case_base();
    s["faults"]["schedule"] =
        json::array({{{"kind", "crash"},
                      {"at", "1s"},
                      {"task_manager_running", {{"vertex", "count"}, {"subtask", 1}}}},
                     {{"kind", "partition"},
                      {"at", "2s"},
                      {"task_manager_running", {{"vertex", "sink"}, {"subtask", 0}}},
                      {"other_nodes", {"jobmanager"}}},
                     {{"kind", "pause"},
                      {"at_point", {{"point", "checkpoint.completed"}}},
                      {"task_manager_running", {{"vertex", "source"}, {"subtask", 0}}}}});
    const Scenario loaded = load_running_case(s);
    REQUIRE(loaded.faults.size() == 3);
    CHECK(loaded.faults[0].running_vertex == "count");
    CHECK(loaded.faults[0].running_subtask == 1);
    CHECK(loaded.faults[0].nodes.empty());
    CHECK(loaded.world.evenly_spread_out_slots);
    json again = running_case_base();
    again["faults"]["schedule"] = json::parse(faults_to_json(loaded.faults).dump());
    const Scenario reloaded = load_running_case(again);
    REQUIRE(reloaded.faults.size() == 3);
    for (size_t i = 0; i < 3; ++i)
        CHECK(describe_fault(reloaded.faults[i]) == describe_fault(loaded.faults[i]));
    CHECK_THAT(describe_fault(loaded.faults[0]),
               Catch::Contains(R"("task_manager_running":{"vertex":"count","subtask":1})"));
}

TEST_CASE("running-task target: clear load errors", "[fault_target]") {
    const auto with_fault = [](json fault) {
        json s = running_case_base();
        s["faults"]["schedule"] = json::array({std::move(fault)});
        return running_case_error(s);
    };
    CHECK_THAT(
        with_fault({{"kind", "crash"},
                    {"at", "1s"},
                    {"task_manager_running", {{"vertex", "cuont"}, {"subtask", 0}}}}),
        Catch::Contains(
            "/faults/schedule/0/task_manager_running/vertex: expected a vertex id of the job, one of: "
            "source, count, sink; found \"cuont\"") &&
            Catch::Contains("count"));
    CHECK_THAT(
        with_fault({{"kind", "crash"},
                    {"at", "1s"},
                    {"task_manager_running", {{"vertex", "count"}, {"subtask", 2}}}}),
        Catch::Contains(
            "/faults/schedule/0/task_manager_running/subtask: expected a subtask of \"count\" (0..1: its "
            "parallelism is 2), found 2"));
    CHECK_THAT(
        with_fault({{"kind", "crash"},
                    {"at", "1s"},
                    {"nodes", {"tm0"}},
                    {"task_manager_running", {{"vertex", "count"}, {"subtask", 0}}}}),
        Catch::Contains("expected either \"nodes\" or \"task_manager_running\", found both"));
    CHECK_THAT(with_fault({{"kind", "slow_link"},
                           {"at", "1s"},
                           {"nodes", {"tm0", "tm1"}},
                           {"task_manager_running", {{"vertex", "count"}, {"subtask", 0}}}}),
               Catch::Contains("unknown key \"task_manager_running\""));
    CHECK_THAT(
        with_fault(
            {{"kind", "crash"}, {"at", "1s"}, {"task_manager_running", {{"vertex", "count"}}}}),
        Catch::Contains("/faults/schedule/0/task_manager_running") && Catch::Contains("subtask"));
}

TEST_CASE(
    "slot sharing groups in a scenario file: named per vertex, and a job that needs more slots is refused",
    "[placement]") {
    json s = running_case_base();
    s["job"]["vertices"][0]["slot_sharing_group"] = "io";
    s["job"]["vertices"][2]["slot_sharing_group"] = "io";
    s["world"]["slots_per_task_manager"] = 1;  // 2 slots; "io" needs 2 and "default" 2
    CHECK_THAT(running_case_error(s),
               Catch::Contains(
                   "/job/vertices: expected a job that fits the slots of the task managers "
                   "(2 x 1 = 2), found its slot sharing groups need 4 (\"io\" 2, \"default\" 2"));
    s["world"]["slots_per_task_manager"] = 2;
    const Scenario loaded = load_running_case(s);
    CHECK(loaded.job.vertices[0].sharing_group() == "io");
    CHECK(loaded.job.vertices[1].sharing_group() == "default");
}

}  // namespace
}  // namespace eosim::scenarios
