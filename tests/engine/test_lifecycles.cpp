// Checked lifecycles: a pending checkpoint
// (engine/checkpointing/pending_checkpoint.h, after Flink's PendingCheckpoint) and a task
// (engine/runtime/task_lifecycle.h). Each valid life passes and hands out what it gathered; each
// transition refuses the states it may not come from with its invariant (a handler that throws
// stands in for the abort, engine/invariant.h).
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/checkpointing/pending_checkpoint.h"
#include "engine/runtime/task_lifecycle.h"
#include "sim/invariant.h"

namespace eosim::engine {
namespace {

using Subtasks = std::set<std::pair<int32_t, int32_t>>;

// Checkpoint 7 awaiting subtasks (0,0) and (1,0).
PendingCheckpoint awaiting_two() {
    return PendingCheckpoint(7, SnapshotType{}, -1, Subtasks{{0, 0}, {1, 0}});
}

// Checkpoint 7 fully acknowledged, its metadata being written.
PendingCheckpoint pending_writing_metadata() {
    PendingCheckpoint checkpoint = awaiting_two();
    checkpoint.acknowledge({0, 0}, "state-0", 10);
    checkpoint.acknowledge({1, 0}, "state-1", 5);
    checkpoint.start_writing_metadata();
    return checkpoint;
}

const auto kOnlyWhilePending = Catch::Contains("a checkpoint is acknowledged only while pending");
const auto kCompletesOnlyWriting =
    Catch::Contains("a checkpoint completes only once its metadata was being written");
const auto kAbortsOnly = Catch::Contains(
    "a checkpoint is aborted only while pending, settling or after its metadata failed");

}  // namespace

TEST_CASE("pending checkpoint: a valid life completes with what its acknowledgements brought",
          "[lifecycle][pending-checkpoint]") {
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    PendingCheckpoint checkpoint = awaiting_two();
    CHECK(checkpoint.in_progress());
    CHECK(checkpoint.awaits({0, 0}));
    CHECK_FALSE(checkpoint.awaits({2, 0}));
    checkpoint.acknowledge({0, 0}, "state-0", 10);
    CHECK_FALSE(checkpoint.fully_acknowledged());
    checkpoint.acknowledge({1, 0}, "state-1", 5);
    CHECK(checkpoint.fully_acknowledged());
    checkpoint.start_writing_metadata();
    CHECK(checkpoint.writing_metadata());
    CHECK(checkpoint.in_progress());
    CHECK_FALSE(checkpoint.awaits({0, 0}));
    const CompletedCheckpoint completed = checkpoint.complete();
    CHECK(checkpoint.state() == PendingCheckpoint::State::completed);
    CHECK_FALSE(checkpoint.in_progress());
    CHECK(completed.id == 7);
    CHECK(completed.state_bytes == 15);
    const std::map<std::pair<int32_t, int32_t>, std::string> handles{{{0, 0}, "state-0"},
                                                                     {{1, 0}, "state-1"}};
    CHECK(completed.handles == handles);
}

TEST_CASE(
    "pending checkpoint: the other valid lives (abort, settle, abort mid write, failed metadata)",
    "[lifecycle][pending-checkpoint]") {
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    SECTION("aborted while pending: hands out the state acknowledged so far") {
        PendingCheckpoint checkpoint = awaiting_two();
        checkpoint.acknowledge({1, 0}, "state-1", 5);
        const CompletedCheckpoint partial = checkpoint.abort();
        CHECK(checkpoint.state() == PendingCheckpoint::State::aborted);
        CHECK(partial.handles.size() == 1);
    }
    SECTION("settling across a stop, then completed or aborted by its write") {
        PendingCheckpoint completes = pending_writing_metadata();
        completes.settle();
        CHECK(completes.settling());
        CHECK_FALSE(completes.in_progress());
        CHECK(completes.complete().handles.size() == 2);
        PendingCheckpoint aborts = pending_writing_metadata();
        aborts.settle();
        CHECK(aborts.abort().handles.size() == 2);
        CHECK(aborts.state() == PendingCheckpoint::State::aborted);
    }
    SECTION("aborted mid write: its files are released once the write is decided") {
        PendingCheckpoint checkpoint = pending_writing_metadata();
        checkpoint.abort_while_writing();
        CHECK(checkpoint.discarding());
        CHECK_FALSE(checkpoint.in_progress());
        CHECK(checkpoint.discard_written().handles.size() == 2);
        CHECK(checkpoint.state() == PendingCheckpoint::State::discarded);
    }
    SECTION("its metadata failed: aborted, with nothing to delete when the outcome is unknown") {
        PendingCheckpoint known = pending_writing_metadata();
        known.fail_metadata(false);
        CHECK(known.in_progress());
        CHECK(known.abort().handles.size() == 2);
        PendingCheckpoint unknown = pending_writing_metadata();
        unknown.fail_metadata(true);
        const CompletedCheckpoint nothing = unknown.abort();
        CHECK(nothing.id == 7);
        CHECK(nothing.handles.empty());
        CHECK(nothing.state_bytes == 0);
    }
}

TEST_CASE("pending checkpoint: each transition refuses the states it may not come from",
          "[lifecycle][pending-checkpoint][invariants]") {
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    SECTION("created: a real id and at least one task to wait for") {
        CHECK_THROWS_WITH(PendingCheckpoint(0, SnapshotType{}, -1, Subtasks{{0, 0}}),
                          Catch::Contains("a checkpoint id is positive"));
        CHECK_THROWS_WITH(PendingCheckpoint(3, SnapshotType{}, -1, Subtasks{}),
                          Catch::Contains("a checkpoint waits for at least one task"));
    }
    SECTION("acknowledge: only while pending, only by an awaited task, once") {
        PendingCheckpoint checkpoint = awaiting_two();
        CHECK_THROWS_WITH(checkpoint.acknowledge({2, 0}, "x", 1),
                          Catch::Contains("only by a task it awaits, once"));
        checkpoint.acknowledge({0, 0}, "state-0", 10);
        CHECK_THROWS_WITH(checkpoint.acknowledge({0, 0}, "again", 1),
                          Catch::Contains("only by a task it awaits, once"));
        PendingCheckpoint written = pending_writing_metadata();
        CHECK_THROWS_WITH(written.acknowledge({0, 0}, "late", 1), kOnlyWhilePending);
        written.settle();
        CHECK_THROWS_WITH(written.acknowledge({0, 0}, "late", 1), kOnlyWhilePending);
    }
    SECTION("start_writing_metadata: only once fully acknowledged, only from pending") {
        PendingCheckpoint checkpoint = awaiting_two();
        checkpoint.acknowledge({0, 0}, "state-0", 10);
        CHECK_THROWS_WITH(checkpoint.start_writing_metadata(),
                          Catch::Contains("once every awaited task acknowledged"));
        PendingCheckpoint written = pending_writing_metadata();
        CHECK_THROWS_WITH(written.start_writing_metadata(),
                          Catch::Contains("a checkpoint's metadata is written only from pending"));
    }
    SECTION("fail_metadata, settle, abort_while_writing: only while writing the metadata") {
        PendingCheckpoint checkpoint = awaiting_two();
        CHECK_THROWS_WITH(checkpoint.fail_metadata(false),
                          Catch::Contains("a metadata write fails only while it is being written"));
        CHECK_THROWS_WITH(
            checkpoint.settle(),
            Catch::Contains("only a checkpoint writing its metadata settles at a stop"));
        CHECK_THROWS_WITH(checkpoint.abort_while_writing(),
                          Catch::Contains("aborted mid write only while writing its metadata"));
        PendingCheckpoint settled = pending_writing_metadata();
        settled.settle();
        CHECK_THROWS_WITH(
            settled.settle(),
            Catch::Contains("only a checkpoint writing its metadata settles at a stop"));
        CHECK_THROWS_WITH(settled.abort_while_writing(),
                          Catch::Contains("aborted mid write only while writing its metadata"));
    }
    SECTION("complete: only once its metadata was being written, never twice") {
        PendingCheckpoint checkpoint = awaiting_two();
        CHECK_THROWS_WITH(checkpoint.complete(), kCompletesOnlyWriting);
        PendingCheckpoint written = pending_writing_metadata();
        written.complete();
        CHECK_THROWS_WITH(written.complete(), kCompletesOnlyWriting);
        PendingCheckpoint failed = pending_writing_metadata();
        failed.fail_metadata(false);
        CHECK_THROWS_WITH(failed.complete(), kCompletesOnlyWriting);
    }
    SECTION("abort: never while the metadata write is undecided, never twice") {
        PendingCheckpoint written = pending_writing_metadata();
        CHECK_THROWS_WITH(written.abort(), kAbortsOnly);
        written.abort_while_writing();
        CHECK_THROWS_WITH(written.abort(), kAbortsOnly);
        PendingCheckpoint aborted = awaiting_two();
        aborted.abort();
        CHECK_THROWS_WITH(aborted.abort(), kAbortsOnly);
    }
    SECTION("discard_written: only when aborted mid write") {
        PendingCheckpoint written = pending_writing_metadata();
        CHECK_THROWS_WITH(written.discard_written(),
                          Catch::Contains("released after its write only when aborted mid write"));
        written.abort_while_writing();
        written.discard_written();
        CHECK_THROWS_WITH(written.discard_written(),
                          Catch::Contains("released after its write only when aborted mid write"));
    }
}

TEST_CASE("task lifecycle: the valid lives pass, every other transition is refused",
          "[lifecycle][task-lifecycle][invariants]") {
    using State = TaskLifecycle::State;
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    const std::vector<State> all{State::created, State::restoring, State::ready,
                                 State::running, State::finished,  State::failed};
    SECTION("created, restoring, ready, running, finished; failed from each but failed") {
        const std::vector<State> life{State::restoring, State::ready, State::running,
                                      State::finished};
        for (size_t failing_after = 0; failing_after <= life.size(); ++failing_after) {
            TaskLifecycle task;
            for (size_t i = 0; i < failing_after; ++i) task.transition_to(life[i]);
            task.transition_to(State::failed);
            CHECK(task.state() == State::failed);
        }
    }
    SECTION("the table: exactly the valid transitions") {
        const std::set<std::pair<State, State>> valid{
            {State::created, State::restoring}, {State::restoring, State::ready},
            {State::ready, State::running},     {State::running, State::finished},
            {State::created, State::failed},    {State::restoring, State::failed},
            {State::ready, State::failed},      {State::running, State::failed},
            {State::finished, State::failed}};
        for (State from : all) {
            for (State next : all)
                CHECK(TaskLifecycle::valid(from, next) == valid.contains({from, next}));
        }
    }
    SECTION("an invalid transition is an invariant failure, and the state stays") {
        const auto refused = Catch::Contains("a task moves only along its lifecycle");
        TaskLifecycle task;
        CHECK_THROWS_WITH(task.transition_to(State::running), refused);  // never restored
        CHECK_THROWS_WITH(task.transition_to(State::created), refused);
        task.transition_to(State::restoring);
        CHECK_THROWS_WITH(task.transition_to(State::finished), refused);
        task.transition_to(State::ready);
        task.transition_to(State::running);
        CHECK_THROWS_WITH(task.transition_to(State::restoring), refused);  // restored again
        task.transition_to(State::finished);
        CHECK_THROWS_WITH(task.transition_to(State::running), refused);
        CHECK(task.state() == State::finished);
        task.transition_to(State::failed);
        CHECK_THROWS_WITH(task.transition_to(State::failed), refused);
    }
}

}  // namespace eosim::engine
