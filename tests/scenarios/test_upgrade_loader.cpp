// The upgrade scenario keys: a deployment's "from" (rollbacks, named savepoints, the latest
// checkpoint of a cancelled deployment), the negative-control switches, and "upgrade_swarm" with
// its per-seed draw. Bad input names the JSON path and what was expected; the draw is a function
// of the seed and never yields what Flink refuses.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "scenarios/upgrade_swarm.h"
#include "tests/catalogue.h"
#include "tests/scenario_documents.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

TEST_CASE("loader: a deployment's from names savepoints and checkpoints", "[loader][upgrade]") {
    const Scenario rollback = testing::load_document(testing::catalogue_json("savepoint-rollback"));
    REQUIRE(rollback.deployments.size() == 3);
    CHECK(rollback.deployments[0].from.kind == RestoreSource::Kind::stop_savepoint);
    CHECK(rollback.deployments[0].from.deployment == 0);  // the default: v1's final savepoint
    CHECK(rollback.deployments[1].from.deployment ==
          0);  // "savepoint after v1" from v3: a rollback
    CHECK(rollback.deployments[2].from.kind == RestoreSource::Kind::named_savepoint);
    CHECK(rollback.deployments[2].from.name == "nightly");
    CHECK(rollback.savepoints.front().name == "nightly");
    const Scenario rescale =
        testing::load_document(testing::catalogue_json("rescale-from-retained-checkpoint"));
    CHECK(rescale.deployments[0].from.kind == RestoreSource::Kind::latest_checkpoint);
    const Scenario no_clip =
        testing::load_document(testing::catalogue_json("rescale-from-checkpoint-no-clip"));
    CHECK_FALSE(no_clip.deployment_job(1).state_backend.clip_on_rescale);
    CHECK(no_clip.job.state_backend.clip_on_rescale);
}

TEST_CASE("loader: a bad from is refused with its path", "[loader][upgrade]") {
    json doc = testing::catalogue_json("savepoint-rollback");
    SECTION("an unknown form") {
        doc["deployments"][1]["from"] = "the checkpoint before";  // "checkpoint 3" names a retained
                                                                  // checkpoint (test_rollbacks.cpp)
        testing::check_load_error(doc, "/deployments/1/from",
                                  "\"savepoint after v<k>\", \"savepoint <name>\"");
    }
    SECTION("a deployment not before this one") {
        doc["deployments"][1]["from"] = "savepoint after v3";
        testing::check_load_error(doc, "/deployments/1/from", "k from 1 to 2");
    }
    SECTION("an unknown named savepoint, with a suggestion") {
        doc["deployments"][2]["from"] = "savepoint nighty";
        testing::check_load_error(doc, "/deployments/2/from", "one of: nightly");
    }
    SECTION("a named savepoint taken after the deployment starts") {
        doc["savepoints"][0]["at"] = "14s";
        testing::check_load_error(doc, "/deployments/2/from",
                                  "taken before this deployment starts");
    }
    SECTION("a rollback to a cancelled deployment") {
        doc["deployments"][0]["from"] = "latest checkpoint";
        doc["deployments"][1]["from"] = "savepoint after v1";
        testing::check_load_error(doc, "/deployments/1/from", "v1 was cancelled");
    }
    SECTION("an incremental RocksDB checkpoint into the heap") {
        json rescale = testing::catalogue_json("rescale-from-retained-checkpoint");
        rescale["deployments"][0]["state_backend"] = "heap";
        testing::check_load_error(rescale, "/deployments/0",
                                  "a retained checkpoint keeps its native files");
    }
    SECTION("the negative-control switch needs incremental RocksDB") {
        doc["deployments"][1]["clip_on_rescale"] = false;
        testing::check_load_error(
            doc, "/deployments/1/clip_on_rescale",
            "only with \"state_backend\": \"rocksdb\" and \"incremental\": true");
    }
}

TEST_CASE("upgrade swarm: placeholders load, each seed draws valid deployments",
          "[loader][upgrade]") {
    const Scenario swarm = testing::load_document(testing::catalogue_json("upgrade-swarm"));
    REQUIRE(swarm.upgrade_swarm);
    REQUIRE(swarm.deployments.size() == 3);
    std::set<std::string> seen;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
        const Scenario drawn = draw_upgrades(swarm, seed);
        CHECK(describe_deployments(drawn) ==
              describe_deployments(draw_upgrades(swarm, seed)));  // a function of the seed
        REQUIRE(drawn.deployments.size() == 3);
        for (size_t d = 0; d < drawn.deployments.size(); ++d) {
            const DeploymentSpec& spec = drawn.deployments[d];
            CHECK(spec.at >= swarm.upgrade_swarm->windows[d].min);
            CHECK(spec.at <= swarm.upgrade_swarm->windows[d].max);
            CHECK(*spec.parallelism >= 2);
            CHECK(*spec.parallelism <= 6);
            CHECK(drawn.deployment_job(d + 1).vertices.back().parallelism ==
                  4);  // the sink's stays
            if (spec.from.kind == RestoreSource::Kind::stop_savepoint && spec.from.deployment < d) {
                seen.insert("rollback");
                // Never to a cancelled deployment.
                CHECK(drawn.deployments[spec.from.deployment].from.kind !=
                      RestoreSource::Kind::latest_checkpoint);
            }
            if (spec.from.kind == RestoreSource::Kind::latest_checkpoint) {
                seen.insert("latest checkpoint");
                const engine::StateBackendOptions before = drawn.deployment_job(d).state_backend;
                if (before.kind == engine::StateBackendKind::rocksdb && before.incremental) {
                    CHECK(spec.state_backend
                              ->incremental);  // native files restore only into incremental RocksDB
                }
            }
            seen.insert(spec.state_backend->kind == engine::StateBackendKind::heap ? "heap"
                        : spec.state_backend->incremental ? "rocksdb incremental"
                                                          : "rocksdb");
        }
    }
    CHECK(seen == std::set<std::string>{"heap", "latest checkpoint", "rocksdb",
                                        "rocksdb incremental", "rollback"});
}

TEST_CASE(
    "loader: upgrade_swarm is refused with deployments, without uids, or with a forward edge into a sink",
    "[loader][upgrade]") {
    const json swarm = testing::catalogue_json("upgrade-swarm");
    json both = swarm;
    both["deployments"] = json::array({{{"at", "5s"}}});
    testing::check_load_error(both, "/upgrade_swarm",
                              "either \"deployments\" or \"upgrade_swarm\"");
    json forward = swarm;
    forward["job"]["vertices"][2]["inputs"][0]["edge"] = "forward";
    testing::check_load_error(forward, "/upgrade_swarm", "no forward edge into a sink");
    json no_uid = swarm;
    no_uid["job"]["vertices"][1].erase("uid");
    testing::check_load_error(no_uid, "/upgrade_swarm", "found none on \"count\"");
    json too_wide = swarm;
    too_wide["upgrade_swarm"]["parallelism"] = json::array({2, 7});
    testing::check_load_error(too_wide, "/upgrade_swarm/parallelism/1",
                              "at most the slots of the task managers (6)");
    json overlapping = swarm;
    overlapping["upgrade_swarm"]["at"][1] = json::array({"4s", "5s"});
    testing::check_load_error(overlapping, "/upgrade_swarm/at/1", "after the previous one's end");
}

}  // namespace
}  // namespace eosim::scenarios
