// JobManager high availability end to end (engine/runtime/leader_election.h, the HA scenarios):
// the loader's high_availability block and the node and system names it brings; the late-metadata
// hole with and without HA (the same faults: the no-HA listing loses records, the store does not);
// and that the fences act: a deposed leader's store adds are refused by the service, its messages
// refused by the TaskManagers, and its deployments never sent, while exactly-once holds; and
// liveness: a standby whose watch event was lost contends again once reconnected, and a
// leader whose recovery read is stuck behind slow storage reads again after its timeout.
#include <catch2/catch.hpp>

#include <filesystem>
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

RunResult run(const std::string& name, uint64_t seed) {
    const Scenario scenario = load_scenario(testing::catalogue_scenario(name));
    RunOptions options;
    options.seed = seed;
    return run_scenario(scenario, options);
}

}  // namespace

TEST_CASE("loader: high_availability and the names it brings", "[loader][ha]") {
    json s = testing::smallest_append_job();
    s["high_availability"] = json::parse(
        R"({"job_managers": 3, "session_timeout": "1s", "tolerate_suspended_connections": true})");
    s["faults"]["schedule"] = json::parse(R"([
      {"kind": "crash", "at": "1s", "nodes": ["jobmanager-2"]},
      {"kind": "partition", "at": "1s", "nodes": ["jobmanager"], "other_nodes": ["coordination"]},
      {"kind": "system_unavailable", "at": "2s", "system": "coordination"}])");
    CHECK(testing::load_error_path(s).empty());
    testing::TempDir dir;
    const Scenario loaded = load_scenario(dir.write("s.json", s.dump()));
    REQUIRE(loaded.high_availability);
    CHECK(loaded.high_availability->job_managers == 3);
    CHECK(loaded.high_availability->session_timeout == sim::Duration::seconds(1));
    CHECK(loaded.high_availability->tolerate_suspended_connections);

    // Without the block there is no standby and no coordination service to name.
    json without = s;
    without.erase("high_availability");
    CHECK(testing::load_error_path(without) == "/faults/schedule/0/nodes/0");
    without["faults"]["schedule"].erase(0);
    CHECK(testing::load_error_path(without) == "/faults/schedule/0/other_nodes/0");
    without["faults"]["schedule"].erase(0);
    CHECK(testing::load_error_path(without) == "/faults/schedule/0/system");

    json bad = s;
    bad["high_availability"]["job_managers"] = 0;
    CHECK(testing::load_error_path(bad) == "/high_availability/job_managers");
    bad = s;
    bad["high_availability"]["session_timeout"] = "10ms";
    CHECK(testing::load_error_path(bad) == "/high_availability/session_timeout");
    bad = s;
    bad["high_availability"]["leader"] = "jobmanager";
    CHECK(testing::load_error_path(bad) == "/high_availability/leader");
}

TEST_CASE("HA: the late metadata write of a dead JobManager loses records without HA, not with it",
          "[ha]") {
    // The same fault schedule in both files (the HA one adds crashes at finalisation points).
    for (uint64_t seed = 1; seed <= 2; ++seed) {
        const RunResult listing = run("jobmanager-no-ha-late-metadata", seed);
        CHECK(listing.expectation_met);
        CHECK_FALSE(listing.verdicts.front().passed);  // exactly_once_output: records lost
        const RunResult store = run("leader-change-during-finalisation", seed);
        CHECK(store.expectation_met);
        CHECK(store.figures.leaderships >= 3);
        CHECK(store.figures.checkpoints_stored > 0);
    }
}

TEST_CASE("HA: a deposed leader's store adds and messages are refused, and exactly-once holds",
          "[ha]") {
    int64_t store_refusals = 0;
    int64_t fenced_messages = 0;
    int64_t deployments_refused = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        // A frozen leader wakes up after its session expired and still believes it leads.
        const RunResult zombie = run("ha-session-expiry", seed);
        CHECK(zombie.expectation_met);
        CHECK(zombie.figures.sessions_expired >= 1);
        store_refusals += zombie.figures.store_refusals;
        fenced_messages += zombie.figures.fenced_messages;
        // A leader cut off from the service but not from the TaskManagers.
        const RunResult split = run("jobmanager-split-brain", seed);
        CHECK(split.expectation_met);
        CHECK(split.figures.leaderships >= 2);
        fenced_messages += split.figures.fenced_messages;
        deployments_refused += split.figures.deployments_refused;
    }
    CHECK(store_refusals > 0);   // its completions never reached the store: nothing notified
    CHECK(fenced_messages > 0);  // TaskManagers that knew the newer leader refused it
    CHECK(deployments_refused >
          0);  // the cut-off leader failed over but its fenced check never passed
}

TEST_CASE("HA: a standby whose watch event was lost contends again once reconnected", "[ha]") {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        // The leader dies; its node goes while the service's answers and watch events are cut off.
        const RunResult lost = run("jobmanager-ha-lost-watch", seed);
        CHECK(lost.expectation_met);
        CHECK(lost.job_finished);
        CHECK(lost.figures.leaderships == 2);  // the first leader, then the standby
        CHECK(lost.figures.sessions_expired >= 1);
    }
    // Where the exploration found it: both JobManagers replaced while the service was down, their
    // successors' watches lost to a one-way partition (bench/README.md).
    const RunResult swarm = run("jobmanager-ha-swarm", 101106);
    CHECK(swarm.expectation_met);
    CHECK(swarm.job_finished);
}

TEST_CASE("HA: a recovery stuck behind slow storage is read again after its timeout", "[ha]") {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        const RunResult stuck = run("jobmanager-ha-stuck-recovery", seed);
        CHECK(stuck.expectation_met);
        CHECK(stuck.job_finished);
        REQUIRE(stuck.faults.size() == 2);
        const double slowed_s =
            stuck.faults[1].at.seconds();  // storage_slow as the second leader is granted
        double recovered_s = -1;
        for (const JobStatusChange& change : stuck.status_history) {
            if (change.status == "RUNNING" &&
                change.detail.find("a new JobManager recovered") != std::string::npos)
                recovered_s = change.at_s;
        }
        // Not before the round's timeout (the deployment timeout, 10 s), and long before the slowed
        // read (>= 200 s).
        CHECK(recovered_s >= slowed_s + 10.0);
        CHECK(recovered_s < slowed_s + 12.0);
    }
}

}  // namespace eosim::scenarios
