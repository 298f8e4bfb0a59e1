// The loader's side of random faults and coverage expectations: `faults.random` with its defaults
// and path-precise errors, `at_point.not_after`, `sometimes`, and `expect.every_seed`.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scenarios/random_faults.h"
#include "scenarios/scenario.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using eosim::testing::TempDir;

using nlohmann::json;
using sim::Duration;

json random_faults_base() {
    return json::parse(R"({
      "world": {"task_managers": 2, "slots_per_task_manager": 2, "spare_task_managers": 1,
                "topics": [{"name": "input", "partitions": 2}, {"name": "output", "partitions": 2}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 2},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "output"}, "parallelism": 2, "inputs": [{"from": "source"}]}]},
      "input": [{"topic": "input", "records": 100}],
      "faults": {"random": {"quiet_after": "20s", "kinds": {"crash": {}}}},
      "oracles": ["exactly_once_output", "liveness"]
    })");
}

// The loader's message for `doc`, or "" when it loads.
std::string random_faults_error_of(const json& doc) {
    TempDir dir;
    try {
        load_scenario(dir.write("s.json", doc.dump(2)));
    } catch (const ScenarioError& e) {
        return e.what();
    }
    return "";
}

Scenario load_random_faults(const json& doc) {
    TempDir dir;
    return load_scenario(dir.write("s.json", doc.dump(2)));
}

TEST_CASE("random faults loader: defaults", "[loader][random_faults]") {
    const Scenario s = load_random_faults(random_faults_base());
    REQUIRE(s.random_faults);
    const RandomFaults& r = *s.random_faults;
    CHECK(r.mode == RandomMode::swarm);
    CHECK(r.count_min == 1);
    CHECK(r.count_max == 5);
    CHECK(r.window_from == Duration::zero());
    CHECK(r.window_to == Duration::seconds(20));
    CHECK(r.quiet_after == Duration::seconds(20));
    REQUIRE(r.kinds.size() == 1);
    CHECK(r.kinds[0].kind == sim::FaultKind::crash);
    CHECK(r.kinds[0].weight == 1);
    CHECK(r.kinds[0].nodes == std::vector<std::string>{"tm0", "tm1"});  // not the spare
    CHECK(r.kinds[0].restart_delay.min == Duration::millis(200));
    CHECK(r.task_manager_nodes == std::vector<std::string>{"tm0", "tm1", "tm2"});
    CHECK(r.point_triggers.ratio.is_zero());
    CHECK(s.sometimes.empty());
}

TEST_CASE("random faults loader: every field", "[loader][random_faults]") {
    json doc = random_faults_base();
    doc["faults"]["random"] = json::parse(R"({
      "mode": "fixed", "count": 7, "window": {"from": "1s", "to": "5s"}, "quiet_after": "6s",
      "kinds": {
        "partition": {"weight": 3, "nodes": ["tm0", "kafka"], "duration": {"min": "10ms", "max": "2s"}, "one_way": "1/2"},
        "slow_link": {"multiplier": {"min": 3, "max": 4}},
        "message_loss": {"messages": ["checkpoint.notify_complete"], "ratio": {"min": "1/2", "max": "3/4"}},
        "transaction_abort": {}
      },
      "point_triggers": {"ratio": "1/3", "points": ["sink.precommitted"], "max_occurrence": 4}
    })");
    doc["sometimes"] = {"crash@restore", "partition@point:sink.precommitted"};
    const Scenario s = load_random_faults(doc);
    const RandomFaults& r = *s.random_faults;
    CHECK(r.mode == RandomMode::fixed);
    CHECK(r.count_min == 7);
    CHECK(r.count_max == 7);
    CHECK(r.window_from == Duration::seconds(1));
    REQUIRE(r.kinds.size() == 4);  // in FaultKind order
    CHECK(r.kinds[0].kind == sim::FaultKind::partition);
    CHECK(r.kinds[0].weight == 3);
    CHECK(r.kinds[0].nodes == std::vector<std::string>{"tm0", "kafka"});
    CHECK(r.kinds[0].duration.min == Duration::millis(10));
    CHECK(r.kinds[0].one_way.numerator == 1);
    CHECK(r.kinds[1].kind == sim::FaultKind::slow_link);
    CHECK(r.kinds[1].nodes == std::vector<std::string>{"jobmanager", "tm0", "tm1", "kafka"});
    CHECK(r.kinds[1].multiplier.min == 3);
    CHECK(r.kinds[2].kind == sim::FaultKind::transaction_abort);
    CHECK(r.kinds[3].messages == std::vector<std::string>{"checkpoint.notify_complete"});
    CHECK(r.kinds[3].ratio.max.numerator == 3);
    CHECK(r.point_triggers.points == std::vector<std::string>{"sink.precommitted"});
    CHECK(r.point_triggers.max_occurrence == 4);
    CHECK(s.sometimes ==
          std::vector<std::string>{"crash@restore", "partition@point:sink.precommitted"});
}

TEST_CASE(
    "random faults: drawn point faults aim at vertices, after a failover and with a delay when asked",
    "[loader][random_faults][aim]") {
    json doc = random_faults_base();
    doc["faults"]["random"]["point_triggers"] =
        json::parse(R"({"ratio": "1/1", "points": ["task.snapshotted", "sink.precommitted",
      "checkpoint.completed"], "vertices": ["sink"], "after_failover": "1/2", "delay": {"min": "10ms", "max": "20ms"}})");
    const Scenario s = load_random_faults(doc);
    const PointTriggers& p = s.random_faults->point_triggers;
    CHECK(p.vertices == std::map<std::string, std::vector<std::string>>{
                            {"sink.precommitted", {"sink"}}, {"task.snapshotted", {"sink"}}});
    int aimed = 0;
    int after_failover = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        sim::Prng prng(seed);
        for (const sim::FaultSpec& f : draw_random_faults(*s.random_faults, prng).faults) {
            REQUIRE_FALSE(f.trigger.point.empty());
            CHECK(f.trigger.delay >= Duration::millis(10));
            CHECK(f.trigger.delay <= Duration::millis(20));
            if (!f.trigger.point_vertex.empty()) {
                ++aimed;
                CHECK(f.trigger.point_vertex == "sink");
                CHECK(f.trigger.point != "checkpoint.completed");  // the JobManager's: no vertex
            }
            after_failover += f.trigger.attempt_min == 2 ? 1 : 0;
        }
    }
    CHECK(aimed > 0);
    CHECK(after_failover > 0);
    // Without the keys nothing of it is drawn.
    json plain = random_faults_base();
    plain["faults"]["random"]["point_triggers"] = {{"ratio", "1/1"}};
    const Scenario q = load_random_faults(plain);
    sim::Prng prng(7);
    for (const sim::FaultSpec& f : draw_random_faults(*q.random_faults, prng).faults) {
        CHECK(f.trigger.point_vertex.empty());
        CHECK(f.trigger.attempt_min == 1);
        CHECK(f.trigger.delay == Duration::zero());
    }
    // A vertex none of whose tasks announces a drawn point is refused at its path.
    doc["faults"]["random"]["point_triggers"]["vertices"] = {"sink", "nope"};
    CHECK(random_faults_error_of(doc).find("/faults/random/point_triggers/vertices/1") !=
          std::string::npos);
    CHECK(random_faults_error_of(doc).find("no deployment of the job has a vertex \"nope\"") !=
          std::string::npos);
}

TEST_CASE("random faults loader: a negative control on some seeds expects its violation sometimes",
          "[loader][random_faults]") {
    json doc = random_faults_base();
    doc["expect"] = {{"violation", "exactly_once_output"}, {"every_seed", false}};
    const Scenario s = load_random_faults(doc);
    CHECK_FALSE(s.expect.pass);
    CHECK_FALSE(s.expect.every_seed);
    CHECK(s.sometimes == std::vector<std::string>{"oracle:exactly_once_output"});
    doc["expect"] = {{"violation", "exactly_once_output"}};
    CHECK(load_random_faults(doc).expect.every_seed);
}

TEST_CASE("random faults loader: errors name the path and what was expected",
          "[loader][random_faults]") {
    struct Case {
        const char* pointer;
        json value;
        const char* message;
    };
    const Case cases[] = {
        {"/faults/random/kinds", json::parse(R"({"crsh": {}})"),
         "at /faults/random/kinds/crsh: unknown key \"crsh\" (did you mean \"crash\"?)"},
        {"/faults/random/kinds", json::object(),
         "at /faults/random/kinds: expected at least one fault kind"},
        {"/faults/random/kinds/crash", json::parse(R"({"duration": {}})"),
         "at /faults/random/kinds/crash/duration: unknown key"},
        {"/faults/random/kinds/crash", json::parse(R"({"nodes": ["tm9"]})"),
         "at /faults/random/kinds/crash/nodes/0: expected a node name"},
        {"/faults/random/kinds/crash",
         json::parse(R"({"restart_delay": {"min": "2s", "max": "1s"}})"),
         "at /faults/random/kinds/crash/restart_delay/max: expected max >= min"},
        {"/faults/random/kinds/crash", json::parse(R"({"weight": 0})"),
         "at /faults/random/kinds/crash/weight: expected a positive integer"},
        {"/faults/random/kinds", json::parse(R"({"slow_link": {"nodes": ["tm0"]}})"),
         "at /faults/random/kinds/slow_link/nodes: expected at least 2 nodes"},
        {"/faults/random/kinds",
         json::parse(R"({"message_loss": {"messages": ["checkpoint.notify"]}})"),
         "at /faults/random/kinds/message_loss/messages/0: expected a control message"},
        {"/faults/random/count", json::parse(R"({"min": 3, "max": 2})"),
         "at /faults/random/count/max: expected max >= min"},
        {"/faults/random/window", json::parse(R"({"from": "1s", "to": "30s"})"),
         "at /faults/random/window/to: expected the window to end by quiet_after (20s)"},
        {"/faults/random/window", json::parse(R"({"from": "3s", "to": "2s"})"),
         "at /faults/random/window/to: expected from < to"},
        {"/faults/random/mode", "random",
         "at /faults/random/mode: expected a random-fault mode, one of: swarm, fixed"},
        {"/faults/random/point_triggers", json::parse(R"({"points": ["sink.precommited"]})"),
         "at /faults/random/point_triggers/points/0: expected a protocol point"},
        {"/faults/random/quiet_after", "2h",
         "at /faults/random/quiet_after: expected quiet_after before the time_limit"},
        {"/sometimes", json::parse(R"(["crash@nowhere"])"),
         "at /sometimes/0: expected \"<fault kind>@<phase>\""},
        {"/sometimes", json::parse(R"(["crash@restore", "crash@restore"])"),
         "at /sometimes/1: duplicate combination"},
    };
    for (const Case& c : cases) {
        json doc = random_faults_base();
        doc[json::json_pointer(c.pointer)] = c.value;
        INFO(c.pointer << " = " << c.value.dump());
        CHECK_THAT(random_faults_error_of(doc), Catch::Contains(c.message));
    }
    json missing = random_faults_base();
    missing["faults"]["random"].erase("quiet_after");
    CHECK_THAT(
        random_faults_error_of(missing),
        Catch::Contains("at /faults/random/quiet_after: missing required key \"quiet_after\""));
}

TEST_CASE("random faults loader: at_point.not_after", "[loader][random_faults]") {
    json doc = random_faults_base();
    doc["faults"] = json::parse(R"({"schedule": [
        {"kind": "crash", "at_point": {"point": "sink.precommitted", "occurrence": 2, "not_after": "1500ms"}}]})");
    const Scenario s = load_random_faults(doc);
    REQUIRE(s.faults.size() == 1);
    CHECK(s.faults[0].trigger.not_after == sim::Time::zero() + Duration::millis(1500));
    CHECK_FALSE(s.random_faults);
}

}  // namespace
}  // namespace eosim::scenarios
