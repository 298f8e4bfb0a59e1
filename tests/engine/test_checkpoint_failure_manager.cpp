// CheckpointFailureManager and CheckpointFailureReason (engine/checkpoint_failure_manager.h,
// engine/checkpoint_failure_reason.h), mirroring Flink's CheckpointFailureManagerTest.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/checkpointing/checkpoint_failure_manager.h"

namespace eosim::engine {
namespace {

using R = CheckpointFailureReason;

// Flink: testContinuousFailure -- more than tolerable consecutive counted failures fail the job.
TEST_CASE("failure manager: more than tolerable consecutive failures fail the job",
          "[failure-manager]") {
    CheckpointFailureManager manager(2);
    CHECK_FALSE(manager.failure(1, R::checkpoint_declined));
    CHECK_FALSE(manager.failure(2, R::checkpoint_expired));
    CHECK(manager.consecutive_failures() == 2);
    CHECK(manager.failure(3, R::checkpoint_async_exception));
    CHECK(manager.consecutive_failures() == 0);  // reset once the job is failed
}

// Flink: testBreakContinuousFailure -- a success in between resets the count.
TEST_CASE("failure manager: a completed checkpoint resets the count", "[failure-manager]") {
    CheckpointFailureManager manager(2);
    CHECK_FALSE(manager.failure(1, R::io_exception));
    CHECK_FALSE(manager.failure(2, R::checkpoint_declined));
    manager.success(3);
    CHECK(manager.consecutive_failures() == 0);
    CHECK_FALSE(manager.failure(4, R::checkpoint_expired));
    CHECK_FALSE(manager.failure(5, R::checkpoint_expired));
    CHECK(manager.failure(6, R::checkpoint_expired));
}

// Flink: testIgnoresPastCheckpoints -- a failure of a checkpoint older than the newest completed
// one is ignored (checkpoints are assumed to succeed in order).
TEST_CASE("failure manager: failures of checkpoints older than the last success are ignored",
          "[failure-manager]") {
    CheckpointFailureManager manager(0);
    manager.success(5);
    CHECK_FALSE(manager.failure(3, R::checkpoint_expired));
    CHECK_FALSE(manager.failure(5, R::checkpoint_expired));
    CHECK(manager.consecutive_failures() == 0);
    CHECK(manager.failure(6, R::checkpoint_expired));
}

// Flink: testIgnoreOneCheckpointRepeatedlyCountMultiTimes -- one checkpoint counts once, however
// many tasks decline it; unknown ids (trigger failures) count each time.
TEST_CASE("failure manager: one checkpoint counts once, unknown ids each time",
          "[failure-manager]") {
    CheckpointFailureManager manager(2);
    CHECK_FALSE(manager.failure(1, R::checkpoint_declined));
    CHECK_FALSE(manager.failure(1, R::checkpoint_declined));
    CHECK_FALSE(manager.failure(1, R::checkpoint_expired));
    CHECK(manager.consecutive_failures() == 1);
    const int64_t unknown = CheckpointFailureManager::kUnknownCheckpointId;
    CHECK_FALSE(manager.failure(unknown, R::io_exception));
    CHECK(manager.failure(unknown, R::io_exception));
}

// Flink: testTotalCountValue -- exactly IO_EXCEPTION, CHECKPOINT_ASYNC_EXCEPTION,
// CHECKPOINT_DECLINED and CHECKPOINT_EXPIRED count; every other reason is ignored.
TEST_CASE("failure manager: which reasons count toward tolerable failures", "[failure-manager]") {
    const std::set<R> counted{R::io_exception, R::checkpoint_async_exception,
                              R::checkpoint_declined, R::checkpoint_expired};
    CheckpointFailureManager manager(1000);
    int64_t id = 0;
    for (R reason : kAllCheckpointFailureReasons) {
        INFO(to_string(reason));
        CHECK(counts_toward_tolerable_failures(reason) == counted.contains(reason));
        manager.failure(++id, reason);
    }
    CHECK(manager.consecutive_failures() == static_cast<int32_t>(counted.size()));
    // The ones the issue names explicitly.
    CHECK_FALSE(counts_toward_tolerable_failures(R::checkpoint_declined_subsumed));
    CHECK_FALSE(counts_toward_tolerable_failures(R::checkpoint_declined_task_not_ready));
    CHECK_FALSE(counts_toward_tolerable_failures(R::finalize_checkpoint_failure));
}

// Flink: testContinuousFailureWithTolerableZero (tolerable 0: the first counted failure fails the
// job).
TEST_CASE("failure manager: with no tolerable failures the first counted one fails the job",
          "[failure-manager]") {
    CheckpointFailureManager manager(0);
    CHECK_FALSE(manager.failure(1, R::checkpoint_subsumed));
    CHECK_FALSE(manager.failure(2, R::finalize_checkpoint_failure));
    CHECK_FALSE(manager.failure(3, R::checkpoint_coordinator_suspend));
    CHECK(manager.failure(4, R::checkpoint_expired));
}

TEST_CASE("failure reason: every reason has its own Flink name and a description",
          "[failure-manager]") {
    std::set<std::string> names;
    for (R reason : kAllCheckpointFailureReasons) {
        const std::string name = to_string(reason);
        CHECK(names.insert(name).second);
        CHECK(name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZ_") == std::string::npos);
        CHECK(std::string(description(reason)).size() > 5);
    }
    CHECK(std::string(to_string(R::checkpoint_declined_subsumed)) ==
          "CHECKPOINT_DECLINED_SUBSUMED");
    CHECK(std::string(to_string(R::finalize_checkpoint_failure)) == "FINALIZE_CHECKPOINT_FAILURE");
    CHECK(names.size() == std::size(kAllCheckpointFailureReasons));
}

}  // namespace
}  // namespace eosim::engine
