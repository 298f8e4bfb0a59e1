// The sensitivity check's twins (scenarios/sensitivity.h): which apply to a scenario, what each
// switches, how a twin loads (named, with the oracles that no longer apply left out), and the
// scenario's "sensitivity" key (skip, why) checked against the twins that apply.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "scenarios/sensitivity.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

json exactly_once_kafka_job() {
    return json::parse(R"({
      "world": {"task_managers": 1, "topics": [{"name": "input", "partitions": 2}, {"name": "out", "partitions": 2}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 2},
        {"id": "count", "kind": "keyed_count", "parallelism": 2, "inputs": [{"from": "source", "edge": "hash"}]},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "out"}, "parallelism": 2,
         "inputs": [{"from": "count", "edge": "forward"}]}],
        "checkpointing": {"interval": "200ms", "unaligned": true}},
      "input": [{"topic": "input", "records": 40, "keys": 4, "rate_per_second": 100}],
      "oracles": ["exactly_once_output", "freshness"]
    })");
}

}  // namespace

TEST_CASE("sensitivity: the twins of an exactly-once Kafka job, each switching one part",
          "[sensitivity]") {
    const json document = exactly_once_kafka_job();
    const std::vector<KnownBadTwin> twins = known_bad_twins(document);
    REQUIRE(twin_names(twins) == std::vector<std::string>{"checkpointing.at_least_once",
                                                          "kafka.no_fencing",
                                                          "sink.sink.at_least_once"});
    CHECK(twins[0].document["job"]["checkpointing"] ==
          json{{"interval", "200ms"}, {"mode", "at_least_once"}});
    CHECK(twins[1].document["world"]["kafka"]["fencing"] == false);
    CHECK(twins[2].document["job"]["vertices"][2]["options"] ==
          json{{"topic", "out"}, {"guarantee", "at_least_once"}});
    // Everything else stays as it was.
    json rest = twins[2].document;
    rest["job"]["vertices"][2]["options"] = document["job"]["vertices"][2]["options"];
    CHECK(rest == document);
}

TEST_CASE(
    "sensitivity: a sink's twin breaks it in every program, a sink only a later deployment adds has twins too",
    "[sensitivity]") {
    json document = exactly_once_kafka_job();
    json v2 = document["job"]["vertices"];
    v2.push_back({{"id", "audit"},
                  {"kind", "sink"},
                  {"sink", "kafka"},
                  {"options", {{"topic", "out"}}},
                  {"parallelism", 1},
                  {"inputs", {{{"from", "count"}, {"edge", "forward"}}}}});
    document["deployments"] = {{{"at", "1s"}, {"job_vertices", v2}}};
    const std::vector<KnownBadTwin> twins = known_bad_twins(document);
    REQUIRE(twin_names(twins) ==
            std::vector<std::string>{"checkpointing.at_least_once", "kafka.no_fencing",
                                     "sink.sink.at_least_once", "sink.audit.at_least_once"});
    const json at_least_once = {{"topic", "out"}, {"guarantee", "at_least_once"}};
    CHECK(twins[2].document["job"]["vertices"][2]["options"] == at_least_once);
    CHECK(twins[2].document["deployments"][0]["job_vertices"][2]["options"] ==
          at_least_once);  // v2's sink too
    CHECK(twins[2].document["deployments"][0]["job_vertices"][3]["options"] ==
          json{{"topic", "out"}});  // not audit
    CHECK(twins[3].document["deployments"][0]["job_vertices"][3]["options"] == at_least_once);
    CHECK(twins[3].document["job"] == document["job"]);
}

TEST_CASE("sensitivity: a scenario already in the weaker form has no twin of it", "[sensitivity]") {
    json document = exactly_once_kafka_job();
    document["job"]["checkpointing"] = {{"interval", "200ms"}, {"mode", "at_least_once"}};
    document["world"]["kafka"] = {{"fencing", false}};
    document["job"]["vertices"][2]["options"]["guarantee"] = "at_least_once";
    // An at-least-once Kafka sink's own twin: idempotence off (a retry after a lost answer writes
    // twice).
    REQUIRE(twin_names(known_bad_twins(document)) ==
            std::vector<std::string>{"sink.sink.idempotence_off"});
    document["job"]["vertices"][2]["options"]["idempotence"] = false;
    CHECK(known_bad_twins(document).empty());
}

TEST_CASE(
    "sensitivity: a twin loads named after it, without the oracles that judge only the original",
    "[sensitivity]") {
    testing::TempDir dir;
    const auto file = dir.write("eos.json", exactly_once_kafka_job().dump());
    const Scenario twin = load_twin(file, "sink.sink.at_least_once");
    CHECK(twin.name == "eos+sink.sink.at_least_once");
    CHECK(twin.oracles == std::vector<std::string>{
                              "exactly_once_output"});  // freshness needs the exactly-once sink
    CHECK(load_twin(file, "checkpointing.at_least_once").job.checkpointing.mode ==
          engine::CheckpointingMode::at_least_once);
    try {
        load_twin(file, "sink.sink.no_fencing");
        FAIL("loaded");
    } catch (const ScenarioError& e) {
        CHECK(
            std::string(e.what()).find(
                "expected a known-bad twin of this scenario, one of: checkpointing.at_least_once, "
                "kafka.no_fencing, sink.sink.at_least_once; found \"sink.sink.no_fencing\"") !=
            std::string::npos);
    }
}

TEST_CASE("sensitivity: \"skip\" names twins that apply, with a reason", "[sensitivity][loader]") {
    testing::TempDir dir;
    json document = exactly_once_kafka_job();
    document["sensitivity"] = {{"skip", {"kafka.no_fencing"}},
                               {"why", "no zombie can exist: one attempt, no pause"}};
    const Scenario s = load_scenario(dir.write("s.json", document.dump()));
    CHECK(s.sensitivity_skip == std::vector<std::string>{"kafka.no_fencing"});
    CHECK(s.sensitivity_why == "no zombie can exist: one attempt, no pause");

    document["sensitivity"] = {{"skip", {"kafka.no_fencin"}}, {"why", "typo"}};
    try {
        load_scenario(dir.write("bad.json", document.dump()));
        FAIL("loaded");
    } catch (const ScenarioError& e) {
        CHECK(e.json_path() == "/sensitivity/skip/0");
        CHECK(std::string(e.what()).find("did you mean \"kafka.no_fencing\"") != std::string::npos);
    }
    document["sensitivity"] = {{"skip", {"kafka.no_fencing"}}};
    try {
        load_scenario(dir.write("no-why.json", document.dump()));
        FAIL("loaded");
    } catch (const ScenarioError& e) {
        CHECK(e.json_path() == "/sensitivity/why");
    }
}

TEST_CASE("sensitivity: \"reasons\" names a registered reason by key for a skipped twin",
          "[sensitivity][loader]") {
    testing::TempDir dir;
    json document = exactly_once_kafka_job();
    const SkipReason* standard = find_skip_reason("barriers_not_skewed");
    REQUIRE(standard != nullptr);
    CHECK(standard->twin == "checkpointing.at_least_once");
    // A reason alone explains its twin; the report prints its text as the scenario's reason.
    document["sensitivity"] = {{"skip", {"checkpointing.at_least_once"}},
                               {"reasons", {"barriers_not_skewed"}}};
    Scenario s = load_scenario(dir.write("s.json", document.dump()));
    CHECK(s.sensitivity_skip == std::vector<std::string>{"checkpointing.at_least_once"});
    CHECK(s.sensitivity_why == standard->text);
    // The scenario's own "why" explains the twins no reason does, after the reasons' texts.
    document["sensitivity"] = {{"skip", {"checkpointing.at_least_once", "kafka.no_fencing"}},
                               {"reasons", {"barriers_not_skewed"}},
                               {"why", "kafka.no_fencing: one attempt, no pause"}};
    s = load_scenario(dir.write("s2.json", document.dump()));
    CHECK(s.sensitivity_why == standard->text + " kafka.no_fencing: one attempt, no pause");
    // A sink twin's reason explains that twin of any sink vertex.
    const SkipReason* alo_job = find_skip_reason("at_least_once_job");
    REQUIRE(alo_job != nullptr);
    CHECK(explains(*alo_job, "sink.sink.idempotence_off"));
    CHECK(explains(*alo_job, "sink.out.idempotence_off"));
    CHECK_FALSE(explains(*alo_job, "sink.sink.at_least_once"));
    CHECK_FALSE(explains(*standard, "kafka.no_fencing"));

    const auto refused = [&](const json& sensitivity, const std::string& path,
                             const std::string& says) {
        document["sensitivity"] = sensitivity;
        try {
            load_scenario(dir.write("bad.json", document.dump()));
            FAIL("loaded");
        } catch (const ScenarioError& e) {
            CHECK(e.json_path() == path);
            CHECK(std::string(e.what()).find(says) != std::string::npos);
        }
    };
    // An unknown key, with the registered ones and the nearest.
    refused({{"skip", {"checkpointing.at_least_once"}}, {"reasons", {"barriers_not_skewd"}}},
            "/sensitivity/reasons/0", "did you mean \"barriers_not_skewed\"");
    // A reason for a twin the scenario does not skip.
    refused({{"skip", {"kafka.no_fencing"}}, {"reasons", {"barriers_not_skewed"}}},
            "/sensitivity/reasons/0",
            "explains checkpointing.at_least_once, which it does not name");
    // A skipped twin no reason explains still needs "why".
    refused({{"skip", {"checkpointing.at_least_once", "kafka.no_fencing"}},
             {"reasons", {"barriers_not_skewed"}}},
            "/sensitivity/why", "kafka.no_fencing");
    refused({{"skip", {"checkpointing.at_least_once"}},
             {"reasons", {"barriers_not_skewed", "barriers_not_skewed"}}},
            "/sensitivity/reasons/1", "duplicate reason");
}

TEST_CASE("sensitivity: targeted twins run only where a scenario names them in \"targets\"",
          "[sensitivity][loader]") {
    json document = exactly_once_kafka_job();
    std::vector<std::string> targeted;
    for (const KnownBadTwin& twin : all_known_bad_twins(document)) {
        if (twin.targeted) targeted.push_back(twin.name);
    }
    CHECK(targeted == std::vector<std::string>{"sink.sink.settled_early", "kafka.timer_per_write",
                                               "tasks.finish_early",
                                               "checkpointing.retention_discards_savepoints"});
    CHECK(twin_names(known_bad_twins(document)) ==
          std::vector<std::string>{"checkpointing.at_least_once", "kafka.no_fencing",
                                   "sink.sink.at_least_once"});

    document["sensitivity"] = {
        {"targets", {"kafka.timer_per_write", "sink.sink.settled_early", "tasks.finish_early"}}};
    const std::vector<KnownBadTwin> twins = known_bad_twins(document);
    REQUIRE(twin_names(twins) ==
            std::vector<std::string>{"checkpointing.at_least_once", "kafka.no_fencing",
                                     "sink.sink.at_least_once", "sink.sink.settled_early",
                                     "kafka.timer_per_write", "tasks.finish_early"});
    CHECK(twins[3].document["job"]["vertices"][2]["options"] ==
          json{{"topic", "out"}, {"settled_early", true}});
    CHECK(twins[4].document["world"]["kafka"]["timer_restarts_on_write"] == true);
    CHECK(twins[5].document["job"]["runtime"]["tasks_finish_before_final_checkpoint"] == true);
    testing::TempDir dir;
    const std::filesystem::path file = dir.write("targets.json", document.dump());
    CHECK(load_scenario(file).sensitivity_skip.empty());  // "targets" alone needs no "why"
    CHECK(load_twin(file, "kafka.timer_per_write").world.kafka.timer_restarts_on_write);

    document["sensitivity"] = {{"targets", {"kafka.timer_per_writ"}}};
    try {
        load_scenario(dir.write("bad.json", document.dump()));
        FAIL("loaded");
    } catch (const ScenarioError& e) {
        CHECK(e.json_path() == "/sensitivity/targets/0");
        CHECK(std::string(e.what()).find("did you mean \"kafka.timer_per_write\"") !=
              std::string::npos);
    }
    // A sink that cannot be settled early (at-least-once) has no such twin to target.
    document["job"]["vertices"][2]["options"]["guarantee"] = "at_least_once";
    document["sensitivity"] = {{"targets", {"sink.sink.settled_early"}}};
    CHECK_THROWS_AS(load_scenario(dir.write("alo.json", document.dump())), ScenarioError);
}

}  // namespace eosim::scenarios
