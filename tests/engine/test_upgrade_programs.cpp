// Upgrades that change the program, verification jobs, and HA with deployments (scenarios'
// "deployments" with job_vertices / verification, and high_availability): each runs the shipped
// scenario file and then changes one thing. The verification oracle's negative control is a
// deliberately broken reader of the throw-away topic
// (tests/oracles/test_verification_output_oracle.cpp).
#include <catch2/catch.hpp>

#include <string>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using namespace eosim::engine::test;

scenarios::Scenario shipped(const std::string& name) {
    return scenarios::load_scenario(testing::catalogue_scenario(name));
}

TEST_CASE(
    "upgrade program: a program that drops the count runs with allow_non_restored_state, and the model drops it too",
    "[upgrade]") {
    auto s = shipped("upgrade-remove-operator-refused");
    s.deployments[0].allow_non_restored_state = true;
    s.oracles = {"exactly_once_output", "state_after_restore", "visibility"};
    s.expect = scenarios::Expectation{};
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.job_finished);
    CHECK(result.expectation_met);  // v2 forwards the raw records: the model's v2 segment does too
}

TEST_CASE(
    "upgrade verification: the verification job's output is checked, the real sink stays exactly once",
    "[upgrade]") {
    const auto s = shipped("upgrade-verification-job");
    for (uint64_t seed : {1, 2}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(verdict(result, "verification_output").message.find("1 verification job") == 0);
        CHECK(count_events(result, "job.finished") == 3);  // v1, the verification job, v2
        CHECK(result.figures.savepoints_stored ==
              2);  // v1's final one and the verification job's own
    }
}

TEST_CASE(
    "upgrade HA: the standby restores the savepoint after v2's leader crashed during the restore",
    "[upgrade][ha]") {
    const auto s = shipped("upgrade-ha-jobmanager-failover");
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK(result.coverage.count("crash@point:task.restoring") == 1);
    CHECK(result.figures.leaderships == 2);  // v2's first leader, then the standby
    // Both of v2's restores were from the savepoint (nothing was stored yet), each checked.
    CHECK(std::stoi(verdict(result, "state_after_restore").message) >= 2);
    // v2's checkpoint ids continue above the savepoint's, though its counter in the coordination
    // service started empty (Flink's restoreSavepoint sets the counter).
    int64_t savepoint_id = 0;
    int64_t first_after = 0;
    for (const scenarios::TimelineEvent& e : result.timeline) {
        const auto restores =
            e.detail.find(" restores savepoint ");  // a later deployment's first attempt ("v2/1")
        if (e.what == "restore" && restores != std::string::npos &&
            e.detail.rfind("attempt v2/", 0) == 0) {
            savepoint_id = std::stoll(e.detail.substr(restores + 20));
        } else if (e.what == "checkpoint.completed" && savepoint_id > 0 && first_after == 0) {
            first_after = checkpoint_id_of(e);
        }
    }
    CHECK(savepoint_id > 0);
    CHECK(first_after == savepoint_id + 1);
}

// A scenario's text with one deployment (`deployment`, JSON) after a source -> sink job writing
// `sink`.
std::string with_deployment(const std::string& deployment,
                            const std::string& sink = R"({"topic": "out"})") {
    return R"({"world": {"topics": [{"name": "in"}, {"name": "out"}]},
               "job": {"vertices": [{"id": "src", "kind": "kafka_source", "topic": "in"},
                                    {"id": "out", "kind": "sink", "sink": ")" +
           std::string(sink.find("topic") != std::string::npos ? "kafka" : "append") +
           R"(", "options": )" + sink +
           R"(, "inputs": [{"from": "src"}]}]},
               "deployments": [)" +
           deployment + R"(], "oracles": ["exactly_once_output"]})";
}

std::string load_error(const std::string& text) {
    try {
        scenarios::load_scenario_text(text, "upgrade.json");
    } catch (const scenarios::ScenarioError& e) {
        return e.what();
    }
    return "";
}

TEST_CASE(
    "upgrade loader: job_vertices are read as job.vertices, and not together with per-vertex changes",
    "[upgrade][loader]") {
    const auto s = scenarios::load_scenario_text(
        with_deployment(
            R"({"at": "2s", "job_vertices": [{"id": "src", "kind": "kafka_source", "topic": "in"},
            {"id": "c", "kind": "keyed_count", "uid": "added", "inputs": [{"from": "src", "edge": "hash"}]},
            {"id": "out", "kind": "sink", "sink": "kafka", "options": {"topic": "out"}, "inputs": [{"from": "c"}]}]})"),
        "upgrade.json");
    REQUIRE(s.deployment_job(1).vertices.size() == 3);
    CHECK(s.deployment_job(1).vertices[1].uid == "added");
    CHECK(s.job.vertices.size() == 2);  // the first job is untouched
    CHECK(
        load_error(
            with_deployment(
                R"({"at": "2s", "parallelism": 1, "job_vertices": [{"id": "src", "kind": "kafka_source", "topic": "in"}]})"))
            .find("not both") != std::string::npos);
    CHECK(
        load_error(
            with_deployment(
                R"({"at": "2s", "job_vertices": [{"id": "src", "kind": "kafka_source", "topic": "in"}]})"))
            .find("end in a sink") != std::string::npos);
    CHECK(
        load_error(
            with_deployment(
                R"({"at": "2s", "job_vertices": [{"id": "src", "kind": "kafka_source", "topic": "in"},
            {"id": "out", "kind": "sink", "sink": "kafka", "options": {"topic": "out"}, "inputs": [{"from": "nope"}]}]})"))
            .find("/deployments/0/job_vertices/1/inputs/0/from") != std::string::npos);
}

TEST_CASE(
    "upgrade loader: a verification job needs Kafka sinks, and gets its own topics and transactional ids",
    "[upgrade][loader]") {
    const auto s = scenarios::load_scenario_text(
        with_deployment(R"({"at": "2s", "verification": true})"), "upgrade.json");
    CHECK(s.deployments[0].verification);
    CHECK(s.world.topics.back().name == "out.verification-v2");
    const JobSpec verifying = s.verification_job(1);
    CHECK(verifying.name == s.job.name + "-v2-verification");
    const auto* kafka = dynamic_cast<const KafkaSinkConfig*>(verifying.vertices.back().sink.get());
    REQUIRE(kafka != nullptr);
    CHECK(kafka->options().topic == "out.verification-v2");
    CHECK(kafka->options().transactional_id_prefix == "out-verification");
    CHECK(load_error(with_deployment(R"({"at": "2s", "verification": true})", "{}"))
              .find("Kafka sinks") != std::string::npos);
    CHECK(
        load_error(with_deployment(R"({"at": "2s", "verification_for": "1s"})")).find("without") !=
        std::string::npos);
}

}  // namespace
}  // namespace eosim::engine
