// The upgrade checks, each with a negative control and its positive twin, fed by hand:
// - StopWithSavepointOracle: a source reading after its stop barrier; a next deployment starting
//   elsewhere than the stop's positions; a source resuming elsewhere than its snapshot says;
// - SavepointWatch (the storage oracle's savepoint check): a savepoint's _metadata or file deleted;
// - StateAfterRestoreOracle's key-group check: a subtask holding a key of another subtask's group.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "engine/checkpointing/savepoint_storage.h"
#include "engine/state/key_groups.h"
#include "oracles/reference_model.h"
#include "oracles/state_after_restore_oracle.h"
#include "oracles/stop_with_savepoint_oracle.h"
#include "oracles/storage_oracle.h"
#include "tests/oracles/model_fixture.h"

namespace eosim::oracles {
namespace {

using namespace model_fixture;
using engine::SourceOffsets;

const sim::Time kAt = sim::Time::zero() + sim::Duration::seconds(4);
const SourceOffsets kStopped0{{{"in", 0}, 7}};
const SourceOffsets kStopped1{{{"in", 1}, 5}};
const SourceOffsets kSavepoint{{{"in", 0}, 7}, {{"in", 1}, 5}};

// Two source subtasks stop at savepoint 9 in attempt 1; the next deployment's attempt 1000001
// restores savepoint 9 at `restored` offsets and its subtasks resume at `resumed0`, `resumed1`.
StopWithSavepointOracle stop_and_hand_over(const engine::JobSpec& job, bool read_after_stop,
                                           const SourceOffsets& restored,
                                           const SourceOffsets& resumed0,
                                           const SourceOffsets& resumed1) {
    StopWithSavepointOracle oracle(job);
    oracle.source_read(kAt, 1, "source", 0, 100);
    oracle.source_stopped_for_savepoint(kAt, 1, "source", 0, 9, kStopped0);
    oracle.source_stopped_for_savepoint(kAt, 1, "source", 1, 9, kStopped1);
    if (read_after_stop) oracle.source_read(kAt, 1, "source", 1, 3);
    oracle.source_read(kAt, 2, "source", 1,
                       50);  // another attempt (after a failover) reads on: allowed
    oracle.program_started(job, true);
    oracle.restore_started(kAt, 1'000'001, 9, restored);
    oracle.source_restored(kAt, 1'000'001, "source", 0, 9, resumed0);
    oracle.source_restored(kAt, 1'000'001, "source", 1, 9, resumed1);
    return oracle;
}

engine::JobSpec two_source_subtasks() {
    return count_job("c", "out");
}  // every vertex at parallelism 2

TEST_CASE("stop_with_savepoint oracle: quiet sources and an exact hand-over pass",
          "[oracles][upgrade]") {
    const engine::JobSpec job = two_source_subtasks();
    const StopWithSavepointOracle oracle =
        stop_and_hand_over(job, false, kSavepoint, kStopped0, kStopped1);
    const Verdict v = oracle.verdict();
    CHECK(v.passed);
    CHECK(v.message.find("1 deployments started exactly") != std::string::npos);
}

TEST_CASE("stop_with_savepoint oracle: a read after the stop barrier fires", "[oracles][upgrade]") {
    const engine::JobSpec job = two_source_subtasks();
    const Verdict v = stop_and_hand_over(job, true, kSavepoint, kStopped0, kStopped1).verdict();
    CHECK_FALSE(v.passed);
    CHECK(
        v.message.find(
            "source source[1] read and emitted 3 records after the barrier of stop-with-savepoint 9") !=
        std::string::npos);
}

TEST_CASE("stop_with_savepoint oracle: a next deployment starting elsewhere fires",
          "[oracles][upgrade]") {
    const engine::JobSpec job = two_source_subtasks();
    SECTION("the savepoint's offsets are not where the sources stopped") {
        const SourceOffsets later{{{"in", 0}, 9}, {{"in", 1}, 5}};
        const Verdict v =
            stop_and_hand_over(job, false, later, {{{"in", 0}, 9}}, kStopped1).verdict();
        CHECK_FALSE(v.passed);
        CHECK(v.message.find("in/0: expected offset 7, found 9") != std::string::npos);
    }
    SECTION("a source resumes elsewhere than the savepoint says") {
        const Verdict v =
            stop_and_hand_over(job, false, kSavepoint, {{{"in", 0}, 0}}, kStopped1).verdict();
        CHECK_FALSE(v.passed);
        CHECK(v.message.find("resumed in/0 at offset 0") != std::string::npos);
    }
    SECTION("a split nobody resumes") {
        const Verdict v = stop_and_hand_over(job, false, kSavepoint, kStopped0, {}).verdict();
        CHECK_FALSE(v.passed);
        CHECK(v.message.find("in/1: expected offset 5, not resumed by any subtask") !=
              std::string::npos);
    }
}

std::map<std::string, std::string> savepoint_blobs() {
    engine::CompletedCheckpoint savepoint;
    savepoint.id = 4;
    savepoint.handles[{1, 0}] = "savepoints/count/savepoint-4/c-0-a1";
    const engine::JobSpec job = count_job("c", "out");
    return {{"savepoints/count/savepoint-4/_metadata",
             engine::serialize_savepoint_metadata(job, savepoint)},
            {"savepoints/count/savepoint-4/c-0-a1", "state"}};
}

TEST_CASE("storage oracle's savepoint watch: a savepoint must stay, whatever retention did",
          "[oracles][upgrade]") {
    SavepointWatch watch;
    std::map<std::string, std::string> blobs = savepoint_blobs();
    CHECK_FALSE(watch.check(blobs));
    CHECK(watch.seen() == 0);  // not completed yet: a savepoint that fails may go
    watch.completed("savepoints/count/savepoint-4/_metadata");
    CHECK_FALSE(watch.check(blobs));
    CHECK(watch.seen() == 1);
    SECTION("kept: passes") { CHECK_FALSE(watch.check(blobs)); }
    SECTION("a state file deleted") {
        blobs.erase("savepoints/count/savepoint-4/c-0-a1");
        CHECK(
            watch.check(blobs) ==
            std::optional<std::string>(
                "savepoint savepoints/count/savepoint-4 refers to savepoints/count/savepoint-4/c-0-a1, which is not in storage"));
    }
    SECTION("the whole savepoint deleted") {
        blobs.clear();
        CHECK(
            watch.check(blobs) ==
            std::optional<std::string>(
                "savepoint savepoints/count/savepoint-4 is gone from storage (its _metadata was deleted)"));
    }
}

TEST_CASE("state_after_restore oracle: every subtask holds only its own key groups",
          "[oracles][upgrade]") {
    const engine::JobSpec job = count_job("c", "out");
    ReferenceModel model(
        job, ModelInput{{"in", {{}, {}}}});  // nothing read: every restored state is empty...
    // ...except what the subtasks hold, which the model says is nothing; find a key of subtask 1.
    int64_t key_of_1 = 0;
    while (engine::subtask_for_key(key_of_1, job.max_parallelism, 2) != 1) ++key_of_1;
    const SourceOffsets none{{{"in", 0}, 0}, {{"in", 1}, 0}};
    SECTION("subtask 0 holding subtask 1's key fires, naming the owner") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(kAt, 2, 3, none);
        oracle.keyed_state_restored(kAt, 2, "count", 0, {{key_of_1, 0}});
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(v.message.find("subtask 0 restored key " + std::to_string(key_of_1)) !=
              std::string::npos);
        CHECK(v.message.find("which subtask 1 of 2 owns") != std::string::npos);
    }
    SECTION("empty subtasks pass") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(kAt, 2, 3, none);
        oracle.keyed_state_restored(kAt, 2, "count", 0, {});
        oracle.keyed_state_restored(kAt, 2, "count", 1, {});
        const Verdict v = oracle.verdict();
        CHECK(v.passed);
        CHECK(v.message.find("2 subtasks held only their own key groups") != std::string::npos);
    }
}

}  // namespace
}  // namespace eosim::oracles
