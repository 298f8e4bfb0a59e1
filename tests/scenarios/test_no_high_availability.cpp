// A JobManager restarted without high availability, as Flink's (engine::NoHaRecovery): application
// mode submits the job again as it was (from scratch here: an exactly-once Kafka sink gets the
// records again), a session cluster loses the job (it ends FAILED, the liveness oracle says why),
// and only the operator's script (storage_listing) recovers the newest checkpoint it lists.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/scenario_documents.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

// jobmanager-crash.json (a JobManager crash at 3.3 s and another after the 8th checkpoint) run in
// `mode`.
RunResult run_no_ha_crashes(engine::NoHaRecovery mode, uint64_t seed) {
    Scenario scenario = load_scenario(testing::catalogue_scenario("jobmanager-crash"));
    scenario.without_ha = mode;
    RunOptions options;
    options.seed = seed;
    return run_scenario(scenario, options);
}

const OracleVerdict& no_ha_verdict(const RunResult& result, const std::string& oracle) {
    for (const OracleVerdict& v : result.verdicts) {
        if (v.oracle == oracle) return v;
    }
    FAIL("no verdict of " << oracle);
    return result.verdicts.front();
}

}  // namespace

TEST_CASE("loader: without_ha names what a restarted JobManager does", "[loader][no-ha]") {
    json s = testing::smallest_append_job();
    testing::TempDir dir;
    CHECK(load_scenario(dir.write("default.json", s.dump())).without_ha ==
          engine::NoHaRecovery::application);
    for (const char* mode : {"application", "session", "storage_listing"}) {
        s["without_ha"] = mode;
        CHECK(to_string(load_scenario(dir.write("s.json", s.dump())).without_ha) ==
              std::string(mode));
    }
    s["without_ha"] = "listing";
    CHECK(testing::load_error_path(s) == "/without_ha");
    s["without_ha"] = "session";
    s["high_availability"] = json::object();
    CHECK(testing::load_error_path(s) == "/without_ha");  // HA has no restart without it
}

TEST_CASE(
    "no HA, application mode: the job is submitted again from scratch, the EOS sink gets records twice",
    "[no-ha]") {
    for (uint64_t seed = 1; seed <= 2; ++seed) {
        const RunResult resubmitted = run_no_ha_crashes(engine::NoHaRecovery::application, seed);
        CHECK(resubmitted.job_finished);
        const OracleVerdict& output = no_ha_verdict(resubmitted, "exactly_once_output");
        CHECK_FALSE(output.passed);
        CHECK(output.message.find("duplicate") != std::string::npos);
        CHECK(no_ha_verdict(resubmitted, "liveness").passed);
        // The operator's script restores the newest checkpoint it lists: exactly-once holds here.
        const RunResult listed = run_no_ha_crashes(engine::NoHaRecovery::storage_listing, seed);
        CHECK(listed.verdicts.size() == resubmitted.verdicts.size());
        for (const OracleVerdict& v : listed.verdicts) CHECK(v.passed);
    }
}

TEST_CASE("no HA, session mode: the restarted JobManager has no job, which ends FAILED as lost",
          "[no-ha]") {
    const RunResult lost = run_no_ha_crashes(engine::NoHaRecovery::session, 1);
    CHECK_FALSE(lost.job_finished);
    const OracleVerdict& liveness = no_ha_verdict(lost, "liveness");
    CHECK_FALSE(liveness.passed);
    CHECK(liveness.message.find("the job was lost") != std::string::npos);
    CHECK(liveness.message.find("session cluster") != std::string::npos);
}

}  // namespace eosim::scenarios
