// Rollbacks: a deployment's "from" as "checkpoint <N>" (a retained checkpoint by id) and "nothing"
// (a fresh start), their load errors, and restores older than what an exactly-once sink committed
// reported in the run's JSON, text and HTML (a warning) and failed by the no_rollbacks oracle.
#include <catch2/catch.hpp>

#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "reports/html_report.h"
#include "reports/run_record.h"
#include "reports/run_report.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/scenario_documents.h"

// A named namespace, not an anonymous one: the unity build puts this file beside other loader
// tests.
namespace eosim::scenarios::rollback_tests {

using nlohmann::json;

// savepoint-restore-rollback with v2 started from `from` (the previous deployment then cancelled).
json restored_from(const std::string& from) {
    json doc = testing::catalogue_json("savepoint-restore-rollback");
    doc["deployments"][0]["from"] = from;
    doc.erase("savepoints");
    doc["faults"] = json::object();
    return doc;
}

// What the engine told about checkpoints and restores, by raw attempt.
struct Restores final : engine::RunObserver {
    std::map<int64_t, engine::SourceOffsets> completed_before_v2;  // v1's snapshots, by id
    std::map<int64_t, std::pair<int64_t, engine::SourceOffsets>>
        restored;  // attempt -> (id, offsets)
    int64_t keyed_restores_v2 = 0;
    bool v2_started = false;
    void checkpoint_completed(sim::Time, int64_t id,
                              const engine::SourceOffsets& offsets) override {
        if (!v2_started) completed_before_v2[id] = offsets;
    }
    void restore_started(sim::Time, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override {
        restored.emplace(attempt, std::make_pair(id, offsets));
        v2_started = v2_started || attempt >= 1'000'000;
    }
    void keyed_state_restored(sim::Time, int64_t attempt, const std::string&, int32_t,
                              const std::map<int64_t, int64_t>& state) override {
        if (attempt >= 1'000'000 && !state.empty()) ++keyed_restores_v2;
    }
    const std::pair<int64_t, engine::SourceOffsets>& v2_first() const {
        return restored.lower_bound(1'000'000)->second;
    }
};

RunResult run_with(const Scenario& scenario, Restores& restores, uint64_t seed = 1) {
    RunOptions options;
    options.seed = seed;
    options.observer = &restores;
    return run_scenario(scenario, options);
}

const OracleVerdict& verdict(const RunResult& result, const std::string& oracle) {
    for (const OracleVerdict& v : result.verdicts) {
        if (v.oracle == oracle) return v;
    }
    throw std::out_of_range("no verdict of " + oracle);
}

int64_t records_between(const engine::SourceOffsets& from, const engine::SourceOffsets& to) {
    int64_t n = 0;
    for (const auto& [split, offset] : to)
        n += offset - (from.contains(split) ? from.at(split) : 0);
    return n;
}

TEST_CASE("loader: from \"checkpoint <N>\" and \"nothing\"", "[loader][upgrade][rollbacks]") {
    const Scenario by_id = testing::load_document(restored_from("checkpoint 7"));
    CHECK(by_id.deployments[0].from.kind == RestoreSource::Kind::retained_checkpoint);
    CHECK(by_id.deployments[0].from.checkpoint_id == 7);
    CHECK(by_id.deployments[0].from.cancels_previous());
    const Scenario fresh = testing::load_document(restored_from("nothing"));
    CHECK(fresh.deployments[0].from.kind == RestoreSource::Kind::nothing);
    CHECK(fresh.deployments[0].from.cancels_previous());
    CHECK_FALSE(fresh.deployments[0].from.from_checkpoint());
}

TEST_CASE("loader: a malformed or impossible checkpoint id is refused with its path",
          "[loader][upgrade][rollbacks]") {
    for (const std::string bad :
         {"checkpoint", "checkpoint ", "checkpoint x", "checkpoint 0", "checkpoint 07",
          "checkpoint -3", "checkpoint 12345678901", "checkpoint12", "checkpoint 1 2"}) {
        INFO(bad);
        testing::check_load_error(restored_from(bad), "/deployments/0/from",
                                  "\"checkpoint <N>\" with N a checkpoint id");
    }
    testing::check_load_error(restored_from("nothing at all"), "/deployments/0/from",
                              "\"nothing\" (a fresh start without state)");
    json no_checkpoints = restored_from("checkpoint 3");
    no_checkpoints["job"]["checkpointing"]["enabled"] = false;
    testing::check_load_error(no_checkpoints, "/deployments/0/from", "v1 takes no checkpoints");
    json drained = restored_from("nothing");
    drained["deployments"][0]["drain"] = true;
    testing::check_load_error(drained, "/deployments/0/from",
                              "no \"drain\" with \"from\": \"nothing\"");
}

TEST_CASE(
    "from \"checkpoint <N>\" restores that retained checkpoint's state, older than what the sink committed",
    "[scenarios][rollbacks][slow]") {
    json doc = restored_from("checkpoint 9");
    doc["job"]["checkpointing"]["retained"] = 6;  // at 7s v1 retains about 9..14
    Restores restores;
    const RunResult result = run_with(testing::load_document(doc), restores);
    INFO(result.expectation_message);
    CHECK(result.expectation_met);
    CHECK(verdict(result, "state_after_restore").passed);
    CHECK(verdict(result, "exactly_once_output").passed);
    REQUIRE(restores.completed_before_v2.contains(9));
    CHECK(restores.v2_first().first == 9);
    CHECK(restores.v2_first().second == restores.completed_before_v2.at(9));
    CHECK(restores.keyed_restores_v2 > 0);
    REQUIRE(result.rollbacks.size() == 1);
    const oracles::Rollback& rollback = result.rollbacks.front();
    CHECK(rollback.restored == "checkpoint 9");
    CHECK(rollback.deployment == "v2");
    CHECK(rollback.rolled_back_deployment == "v1");
    CHECK(rollback.rolled_back_checkpoint > 9);
}

TEST_CASE("a checkpoint id not retained fails the deployment with Flink's error",
          "[scenarios][rollbacks][slow]") {
    json doc = restored_from("checkpoint 2");  // retention (3) subsumed it long before 7s
    doc["expect"] = {
        {"job_failure",
         "Failed to rollback to checkpoint/savepoint checkpoints/count/chk-2/_metadata"}};
    doc["oracles"] = {"state_after_restore", "visibility"};
    Restores restores;
    const RunResult result = run_with(testing::load_document(doc), restores);
    INFO(result.expectation_message);
    CHECK(result.expectation_met);
}

TEST_CASE(
    "from \"nothing\" starts without state: every record again, a rollback of everything committed",
    "[scenarios][rollbacks][slow]") {
    Restores restores;
    const RunResult result = run_with(testing::load_document(restored_from("nothing")), restores);
    INFO(result.expectation_message);
    CHECK(result.expectation_met);
    CHECK(verdict(result, "exactly_once_output").passed);
    CHECK(restores.v2_first().first == 0);
    CHECK(restores.keyed_restores_v2 == 0);
    REQUIRE(result.rollbacks.size() == 1);
    const oracles::Rollback& rollback = result.rollbacks.front();
    CHECK(rollback.restored == "nothing (from scratch)");
    CHECK(rollback.restored_checkpoint == 0);
    // The count job writes one record per input record: v1 committed up to its newest checkpoint.
    const engine::SourceOffsets& newest = restores.completed_before_v2.rbegin()->second;
    CHECK(rollback.records_re_emitted() == records_between({}, newest));
}

TEST_CASE("a restore of an old savepoint is reported as a rollback in JSON, text and HTML",
          "[scenarios][rollbacks][reports][slow]") {
    const Scenario scenario =
        load_scenario(testing::catalogue_scenario("savepoint-restore-rollback"));
    Restores restores;
    const RunResult result = run_with(scenario, restores);
    INFO(result.expectation_message);
    CHECK(result.expectation_met);
    REQUIRE(result.rollbacks.size() == 1);  // v2's crash restores its own checkpoint: no second one
    const oracles::Rollback& rollback = result.rollbacks.front();
    CHECK(rollback.deployment == "v2");
    CHECK(rollback.attempt == "v2/1");
    const int64_t savepoint = rollback.restored_checkpoint;
    CHECK(rollback.restored == "savepoint " + std::to_string(savepoint));
    CHECK(restores.v2_first().first == savepoint);
    // v1's newest committed checkpoint is the stop-with-savepoint that ended it: its last snapshot.
    const auto& [stop_id, stop_offsets] = *restores.completed_before_v2.rbegin();
    CHECK(rollback.rolled_back_checkpoint == stop_id);
    CHECK(rollback.rolled_back_deployment == "v1");
    REQUIRE(rollback.sinks.size() == 1);
    CHECK(rollback.sinks[0].sink == "sink");
    CHECK(rollback.sinks[0].records_re_emitted ==
          records_between(restores.completed_before_v2.at(savepoint), stop_offsets));
    CHECK(rollback.records_re_emitted() > 3000);

    const json j = reports::to_json(result);
    REQUIRE(j.at("rollbacks").size() == 1);
    CHECK(j["rollbacks"][0]["restored"] == rollback.restored);
    CHECK(j["rollbacks"][0]["rolled_back_checkpoint"] == stop_id);
    CHECK(j["rollbacks"][0]["sinks"][0]["records_re_emitted"] ==
          rollback.sinks[0].records_re_emitted);
    std::ostringstream text;
    reports::write_run_report(text, scenario, result, "eosim run x");
    CHECK_THAT(text.str(), Catch::Contains("WARNING     rollback: v2/1 restored savepoint " +
                                           std::to_string(savepoint)));
    const reports::RunRecord record = reports::make_run_record(scenario, result, "eosim run x");
    CHECK(reports::run_record_from_json(reports::to_json(record)).rollbacks.size() ==
          1);  // round trip
    reports::HtmlReport page;
    page.records.push_back(record);
    std::ostringstream html;
    reports::write_html_report(html, page);
    CHECK_THAT(html.str(), Catch::Contains("Warning: 1 rollback"));
    CHECK_THAT(html.str(), Catch::Contains("checkpoint " + std::to_string(stop_id) + " (v1)"));
}

TEST_CASE(
    "no_rollbacks fails its negative control and passes its twin, and no rollback gives an empty list",
    "[scenarios][rollbacks][oracles][slow]") {
    Restores ignored;
    const RunResult forbidden =
        run_with(load_scenario(testing::catalogue_scenario("savepoint-restore-rollback-forbidden")),
                 ignored);
    INFO(forbidden.expectation_message);
    CHECK(forbidden.expectation_met);
    CHECK_FALSE(verdict(forbidden, "no_rollbacks").passed);
    CHECK_THAT(verdict(forbidden, "no_rollbacks").message,
               Catch::StartsWith("rollback: v2/1 restored savepoint"));
    CHECK(verdict(forbidden, "exactly_once_output").passed);

    Restores twin_restores;
    const Scenario twin =
        load_scenario(testing::catalogue_scenario("savepoint-restore-no-rollback"));
    const RunResult clean = run_with(twin, twin_restores);
    INFO(clean.expectation_message);
    CHECK(clean.expectation_met);
    CHECK(verdict(clean, "no_rollbacks").passed);
    CHECK(clean.rollbacks.empty());
    CHECK(twin_restores.restored.size() >= 3);  // v1, v2 and v2's failover all restored
    CHECK(reports::to_json(clean).at("rollbacks") == json::array());
    std::ostringstream text;
    reports::write_run_report(text, twin, clean, "eosim run x");
    CHECK_THAT(text.str(), !Catch::Contains("WARNING"));
}

}  // namespace eosim::scenarios::rollback_tests
