// Savepoints, stop-with-savepoint and upgrades (engine/checkpointing/savepoint_storage.h, the
// coordinator's savepoint path, scenarios' "savepoints" and "deployments"): a savepoint restored at
// another parallelism gives exactly the model's state; operators are matched by uid; state of a
// missing operator is refused unless allow_non_restored_state (and then its loss shows in the
// output oracle, never silently); a changed max parallelism is refused with Flink's text;
// savepoints survive retention and subsumption; a stop-with-savepoint loses and duplicates nothing.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/prng.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using namespace eosim::engine::test;

std::vector<std::unique_ptr<KeyedStateBackend>> heap_subtasks(int32_t parallelism,
                                                              int32_t max_parallelism) {
    std::vector<std::unique_ptr<KeyedStateBackend>> out;
    for (int32_t s = 0; s < parallelism; ++s) {
        out.push_back(make_heap_state_backend(
            KeyGroupRange::of_subtask(s, parallelism, max_parallelism), max_parallelism));
    }
    return out;
}

TEST_CASE(
    "savepoint: canonical snapshots restored at another parallelism give exactly the state, partitioned",
    "[savepoint]") {
    constexpr int32_t kMax = 128;
    sim::Prng prng(7);
    std::map<int64_t, int64_t> model;
    for (int i = 0; i < 2000; ++i)
        model[static_cast<int64_t>(prng.below(100000))] = static_cast<int64_t>(prng.below(1000));
    auto old_subtasks = heap_subtasks(4, kMax);
    for (const auto& [key, value] : model) {
        const int32_t subtask = subtask_for_key(key, kMax, 4);
        old_subtasks[static_cast<size_t>(subtask)]->put(key, value);
    }
    std::vector<std::string> savepoint;
    for (const auto& s : old_subtasks) savepoint.push_back(s->canonical_snapshot());
    for (int32_t parallelism : {6, 3, 1, 4}) {
        auto restored = heap_subtasks(parallelism, kMax);
        std::map<int64_t, int64_t> all;
        for (int32_t s = 0; s < parallelism; ++s) {
            restored[static_cast<size_t>(s)]->restore_canonical(savepoint);
            const KeyGroupRange range = KeyGroupRange::of_subtask(s, parallelism, kMax);
            for (const auto& [key, value] : restored[static_cast<size_t>(s)]->contents()) {
                CHECK(range.contains(key_group_of(key, kMax)));  // only the key groups it owns
                CHECK(all.emplace(key, value).second);           // no key twice
            }
        }
        CHECK(all == model);  // nothing lost, nothing changed
    }
}

JobSpec three_vertex_job(const std::string& count_uid, int32_t max_parallelism) {
    JobSpec job;
    job.name = "count";
    job.max_parallelism = max_parallelism;
    for (const char* id : {"source", "count", "sink"}) {
        VertexSpec v;
        v.id = id;
        v.parallelism = 4;
        job.vertices.push_back(v);
    }
    job.vertices[0].kind = OperatorKind::kafka_source;
    job.vertices[1].kind = OperatorKind::keyed_count;
    job.vertices[1].uid = count_uid;
    job.vertices[2].kind = OperatorKind::sink;
    return job;
}

SavepointMetadata savepoint_of(const JobSpec& job) {
    CompletedCheckpoint savepoint;
    savepoint.id = 9;
    savepoint.savepoint = true;
    for (int32_t v = 0; v < 3; ++v) {
        for (int32_t s = 0; s < 4; ++s)
            savepoint.handles[{v, s}] = savepoint_state_key(job, 9, TaskKey{1, v, s});
    }
    savepoint.offsets[{"input", 0}] = 42;
    return parse_savepoint_metadata(serialize_savepoint_metadata(job, savepoint));
}

TEST_CASE("savepoint: operators are matched by uid, wherever they are in the new job",
          "[savepoint]") {
    const JobSpec v1 = three_vertex_job("counter", 128);
    const SavepointMetadata metadata = savepoint_of(v1);
    REQUIRE(metadata.operators.size() == 3);
    CHECK(metadata.operators[1].uid == "counter");
    CHECK(metadata.operators[1].max_parallelism == 128);
    // v2: same uid under another vertex id, another parallelism.
    JobSpec v2 = three_vertex_job("counter", 128);
    v2.vertices[1].id = "count-renamed";
    v2.vertices[1].parallelism = 6;
    const SavepointRestore mapped = restore_from_savepoint(metadata, "sp", v2, false);
    REQUIRE(mapped.restore);
    CHECK(mapped.error.empty());
    CHECK(mapped.restore->savepoint);
    CHECK(mapped.restore->handles.at({1, 3}) == savepoint_state_key(v1, 9, TaskKey{1, 1, 3}));
    CHECK(mapped.restore->rescaled_from == std::map<int32_t, int32_t>{{1, 4}});
    CHECK(mapped.restore->offsets.at({"input", 0}) == 42);
}

// A retained checkpoint that records finished subtasks (FLIP-147) has no state for them. A finished
// source's splits resume at the checkpoint's offsets (Task::apply_restored_state), so a new
// deployment may start from it; another finished task's final state is gone: refused.
TEST_CASE("retained checkpoint: finished sources restore, another finished task is refused",
          "[savepoint][finished]") {
    const JobSpec job = three_vertex_job("counter", 128);
    CompletedCheckpoint checkpoint;
    checkpoint.id = 7;
    for (int32_t v = 0; v < 3; ++v) {
        for (int32_t s = 0; s < 4; ++s)
            checkpoint.handles[{v, s}] = state_key(job, 7, TaskKey{1, v, s});
    }
    checkpoint.handles.erase({0, 1});
    checkpoint.finished = {{0, 1}};
    CHECK(restore_from_retained_checkpoint(checkpoint, job, "chk-7", job, false).restore);
    checkpoint.handles.erase({1, 2});
    checkpoint.finished.insert({1, 2});
    const SavepointRestore refused =
        restore_from_retained_checkpoint(checkpoint, job, "chk-7", job, false);
    CHECK_FALSE(refused.restore);
    CHECK(refused.error.find("subtask 2 of 'count' had finished") != std::string::npos);
}

TEST_CASE("savepoint: a changed uid is refused with Flink's error unless allow_non_restored_state",
          "[savepoint]") {
    const SavepointMetadata metadata = savepoint_of(three_vertex_job("counter", 128));
    const JobSpec v2 = three_vertex_job("counter-v2", 128);
    const SavepointRestore refused =
        restore_from_savepoint(metadata, "savepoints/count/savepoint-9/_metadata", v2, false);
    CHECK_FALSE(refused.restore);
    CHECK(refused.error.find(
              "Cannot map checkpoint/savepoint state for operator counter to the new program") !=
          std::string::npos);
    CHECK(refused.error.find("--allowNonRestoredState") != std::string::npos);
    const SavepointRestore allowed = restore_from_savepoint(metadata, "sp", v2, true);
    REQUIRE(allowed.restore);
    CHECK(allowed.skipped_uids == std::vector<std::string>{"counter"});
    for (const auto& [where, key] : allowed.restore->handles)
        CHECK(where.first != 1);  // the new operator starts empty
}

TEST_CASE("savepoint: a changed max parallelism is refused with Flink's error", "[savepoint]") {
    const SavepointMetadata metadata = savepoint_of(three_vertex_job("counter", 128));
    const SavepointRestore refused =
        restore_from_savepoint(metadata, "sp", three_vertex_job("counter", 256), true);
    CHECK_FALSE(refused.restore);
    CHECK(refused.error.find(
              "Max parallelism mismatch between checkpoint/savepoint state and new program") !=
          std::string::npos);
    CHECK(refused.error.find("with max parallelism 128 to new program with max parallelism 256") !=
          std::string::npos);
}

TEST_CASE("savepoint: the storage check finds a savepoint file that is gone (negative control)",
          "[savepoint]") {
    const JobSpec job = three_vertex_job("counter", 128);
    CompletedCheckpoint savepoint;
    savepoint.id = 3;
    savepoint.handles[{1, 0}] = savepoint_state_key(job, 3, TaskKey{1, 1, 0});
    std::map<std::string, std::string> blobs{
        {savepoint_metadata_key(job, 3), serialize_savepoint_metadata(job, savepoint)},
        {savepoint.handles.at({1, 0}), "state"}};
    CHECK(savepoint_files(job, blobs).missing == 0);
    CHECK(savepoint_files(job, blobs).savepoints == 1);
    blobs.erase(savepoint.handles.at({1, 0}));
    const SavepointFiles broken = savepoint_files(job, blobs);
    CHECK(broken.missing == 1);
    CHECK(broken.first_missing == savepoint_state_key(job, 3, TaskKey{1, 1, 0}));
}

scenarios::Scenario upgrade_scenario() {
    auto s = count_scenario(9000, 4);
    s.world.task_managers = 3;
    s.world.slots_per_task_manager = 2;
    s.job.checkpointing.retained = 1;
    s.savepoints = {
        scenarios::SavepointSpec{Duration::seconds(2), "", 1, ""},
        scenarios::SavepointSpec{std::nullopt, std::string(points::kCheckpointCompleted), 6, ""}};
    scenarios::DeploymentSpec v2;
    v2.at = Duration::seconds(4);
    v2.parallelism = 6;
    scenarios::DeploymentSpec v3;
    v3.at = Duration::seconds(7);
    v3.parallelism = 3;
    v3.drain = true;
    s.deployments = {v2, v3};
    return s;
}

TEST_CASE("upgrade: p=4 -> 6 -> 3 from stop-with-savepoints is one exactly-once execution",
          "[savepoint][upgrade]") {
    const auto s = upgrade_scenario();
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.job_finished);
        // Both restores from the final savepoints were checked against the model.
        CHECK(
            verdict(result, "state_after_restore").message.find("restored keyed states matched") !=
            std::string::npos);
        CHECK(std::stoi(verdict(result, "state_after_restore").message) >= 2);
        CHECK(count_events(result, "job.finished") == 3);
        CHECK(result.figures.records_out == 9000);
        // Two intermediate savepoints and two final ones, each still whole in storage though only
        // one checkpoint is retained.
        CHECK(result.figures.savepoints_completed >= 4);
        CHECK(result.figures.savepoints_stored == result.figures.savepoints_completed);
        CHECK(result.figures.savepoint_files_missing == 0);
    }
}

TEST_CASE("upgrade: the rescaled restores announce task.restoring_rescaled",
          "[savepoint][upgrade]") {
    auto s = upgrade_scenario();
    s.faults = {
        crash_at_point(std::string(points::kTaskRestoringRescaled), 1, Duration::millis(500), {})};
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);  // a crash while restoring the upgrade: restored again, still
                                    // exactly once
    CHECK(result.coverage.count("crash@point:task.restoring_rescaled") == 1);
}

TEST_CASE(
    "upgrade: a crash during the stop-with-savepoint retries the stop, nothing lost or duplicated",
    "[savepoint][upgrade]") {
    auto s = upgrade_scenario();
    s.faults = {crash_at_point(std::string(points::kStopWithSavepointTriggered), 1,
                               Duration::millis(500), {"jobmanager"})};
    for (uint64_t seed : {1, 2}) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.coverage.count("crash@stop-with-savepoint") == 1);
        CHECK(result.figures.savepoint_files_missing == 0);
    }
}

TEST_CASE(
    "upgrade: a changed uid without allow_non_restored_state fails the run with Flink's error",
    "[savepoint][upgrade]") {
    auto s = upgrade_scenario();
    s.deployments.resize(1);
    s.deployments[0].uids = {{"count", "count-renamed"}};
    s.oracles = {"state_after_restore", "visibility"};
    s.expect.job_failure =
        "Cannot map checkpoint/savepoint state for operator count to the new program";
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK_FALSE(result.job_finished);
}

TEST_CASE(
    "upgrade: with allow_non_restored_state the dropped state shows in the oracles, never silently",
    "[savepoint][upgrade]") {
    auto s = upgrade_scenario();
    s.deployments.resize(1);
    s.deployments[0].uids = {{"count", "count-renamed"}};
    s.deployments[0].allow_non_restored_state = true;
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.job_finished);  // the user allowed it: v2 runs, its counts start again from zero
    CHECK_FALSE(verdict(result, "exactly_once_output").passed);
    CHECK_FALSE(verdict(result, "state_after_restore").passed);
}

TEST_CASE("upgrade: the same seed gives the same trace hash", "[savepoint][upgrade]") {
    const auto s = upgrade_scenario();
    CHECK(run_scenario(s, RunOptions{5, nullptr}).trace_hash ==
          run_scenario(s, RunOptions{5, nullptr}).trace_hash);
}

}  // namespace
}  // namespace eosim::engine
