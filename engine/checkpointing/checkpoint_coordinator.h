#pragma once
// The checkpoint coordinator on the JobManager, after Flink's CheckpointCoordinator.
//
// Triggering (Flink's periodic scheduler and CheckpointRequestDecider): the periodic trigger fires
// first at a random delay between min_pause and the interval (drawn from the JobManager's own PRNG
// stream), then at a fixed rate of `interval` (never below min_pause); every firing is a request
// to the decider, which queues it and says when it may run: at most `max_concurrent` pending, not
// before `min_pause` after the last completion (the trigger is then rescheduled to exactly that
// moment), a queued request the moment a slot frees, savepoints before periodic checkpoints.
//
// Ids strictly increase, also across JobManager crashes (Flink's CheckpointIDCounter): an id is
// written to checkpoint storage before its trigger goes out, and a recovering JobManager continues
// above the highest id it finds there. State keys also carry the attempt (checkpoint_storage.h),
// so no late write of an older attempt can land under a key a newer checkpoint refers to.
//
// A checkpoint completes when every task acknowledged it and its metadata is durable; then
// notifyCheckpointComplete goes out (best effort). It is aborted on a decline, on timeout or when
// the metadata cannot be written, each with a CheckpointFailureReason; CheckpointFailureManager
// decides which of those count toward tolerable_failures and when the job must fail over.
// A failover or the end of the job aborts every pending checkpoint too and tells the tasks (Flink's
// abortPendingCheckpoints) -- except one whose metadata is being written: durable metadata is what
// a recovering JobManager restores from, so that write alone decides (Flink finalises a fully
// acknowledged checkpoint in one step that no failover interleaves). Until it is decided,
// settling() holds the next deployment back, so that it restores the same checkpoint a JobManager
// restart would. Completing N subsumes every pending checkpoint below N.
//
// Savepoints (engine/checkpointing/savepoint_storage.h) go through the same path as requests of
// kind savepoint, which the decider runs first. As in Flink >= 1.15: an intermediate savepoint is
// not added to the completed checkpoints (never restored on failover, never discarded by
// retention), subsumes nothing and is not notified (it commits no side effects: a sink's
// transaction pre-committed at it is committed by the next checkpoint). The final savepoint of a
// stop-with-savepoint stops the periodic trigger, is notified (the sinks commit it, then the tasks
// finish) and is added to the completed checkpoints, so that a failover before the job finished
// restores it (a pointer _metadata in the checkpoint folder makes a new JobManager find it too);
// retention drops it from the list but never deletes a savepoint's files. If it fails, the
// attempt fails over and the stop is tried again once the job runs (the user's request stands).
//
// Storage: the last `retained` completed checkpoints are kept; the state of every other checkpoint
// is discarded asynchronously (older completed ones, aborted ones with the state acknowledged so
// far, and state acknowledged late for a checkpoint that is no longer pending), as Flink does. What
// is not discarded: state whose acknowledgement never arrives (lost, or its JobManager died), and
// the pending checkpoints of a crashed JobManager.
//
// With high availability (use_high_availability), the id counter and the completed-checkpoint store
// live in the coordination service (checkpoint_id_counter.h, completed_checkpoint_store.h), written
// with the leader's fence: the id comes from the counter; after the metadata is durable the
// checkpoint's pointer is added to the store, and only then is it complete (announced, notified);
// retention removes a pointer from the store before deleting the files. A store add whose outcome
// is unknown (no answer) neither completes nor aborts the checkpoint: the leader resigns (Flink's
// PossibleInconsistentStateException: its files are kept), and the next leader restores what the
// store says; a removal of unknown outcome keeps the files.
//
// Shared state (incremental checkpoints): the SharedStateRegistry counts the references pending
// and retained checkpoints hold to shared files, taken when an acknowledgement arrives and dropped
// when the checkpoint is discarded; a file goes when its last reference does. An acknowledgement
// that refers to a shared file the registry no longer holds (its task had not yet heard that the
// checkpoints holding it were discarded) declines its checkpoint instead of completing one that
// refers to a deleted file. A recovering JobManager rebuilds the registry from the retained
// checkpoints (recover()).
//
// Finished tasks (FLIP-147, checkpoints-after-tasks-finish): once a subtask reports finished, the
// checkpoints that follow trigger and wait for the running subtasks only (checkpoint_plan.h), record
// the finished ones as finished, and carry the source offsets of the latest completed checkpoint
// for the partitions no running source acknowledges (a finished source's: its end offsets; the
// oracles read the input prefix from them). A savepoint has no finished marker (eosim's canonical
// format): finished sources snapshot it too (their splits at their end, no barrier sent), and a
// savepoint while a task other than a source has finished is refused (NOT_ALL_REQUIRED_TASKS_RUNNING).
#include <cstdint>
#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "engine/checkpointing/checkpoint_failure_manager.h"
#include "engine/checkpointing/checkpoint_id_counter.h"
#include "engine/checkpointing/checkpoint_plan.h"
#include "engine/checkpointing/completed_checkpoint_store.h"
#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/checkpointing/checkpoint_request_decider.h"
#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/checkpoints_cleaner.h"
#include "engine/checkpointing/execution_gateway.h"
#include "engine/checkpointing/leader_session.h"
#include "engine/checkpointing/shared_state_registry.h"
#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/job_spec.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::engine {

class CheckpointCoordinator {
public:
    using FailJob = std::function<void(const std::string& reason)>;
    using Settled = std::function<void()>;

    // `settled` runs when the last checkpoint that was settling at a stop() is decided.
    // Reaches the job through `gateway`; `instance` numbers its JobManager process on `node`.
    CheckpointCoordinator(ExecutionGateway& gateway, sim::NodeId node, uint64_t instance, FailJob fail_job, Settled settled);

    // Starts periodic checkpoints for a running attempt deployed at `placement`, `finished` its
    // subtasks deployed finished (the restored checkpoint's).
    void start(int64_t attempt, const std::vector<std::vector<sim::NodeId>>& placement,
               const std::set<std::pair<int32_t, int32_t>>& finished = {});
    // A subtask of the running attempt finished (FLIP-147): from the next checkpoint on it is
    // neither triggered nor waited for, and recorded as finished (checkpoint_plan.h).
    void task_finished(const TaskKey& task);
    // Stops triggering; every pending checkpoint ends aborted for `reason` (failover: suspend; end
    // of job: shutdown), and the tasks are told.
    void stop(CheckpointFailureReason reason, const std::string& detail);
    // After a JobManager restart: ids continue above the highest durable one `found`; `latest`
    // (may be null) is restorable; the older completed checkpoints found are kept for retention.
    void recover(const StoredCheckpoints& found, const CompletedCheckpoint* latest);
    // The one place a recovering JobManager hands over what it found, with or without HA: ids
    // continue above `highest_id`; `retained` (oldest first) are the completed checkpoints kept,
    // the last one restorable. (A state backend that shares files between checkpoints rebuilds its
    // registry from this list.)
    void restore_completed(int64_t highest_id, std::vector<CompletedCheckpoint> retained);
    // HA: the counter and store of the leader's `session` from now on.
    void use_high_availability(const LeaderSession& session);
    // A request besides the periodic ones (tests).
    void request(CheckpointRequestKind kind);
    // The user's savepoint request `index` (Engine::savepoint_requests), once per attempt.
    void request_savepoint(int32_t index, SnapshotType type);
    // A job restored from a savepoint continues ids above it (Flink's restoreSavepoint).
    // With HA the counter in the coordination service is raised above it at the next increment.
    void continue_ids_after(int64_t id) {
        last_id_ = std::max(last_id_, id);
        id_floor_ = std::max(id_floor_, id);
    }

    void acknowledge(const TaskKey& task, int64_t checkpoint_id, const std::string& handle, int64_t state_bytes,
                     const SourceOffsets& offsets, const SharedStateReport& shared = {});
    void decline(const TaskKey& task, int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);

    const CompletedCheckpoint* latest() const { return completed_.empty() ? nullptr : &completed_.back(); }
    // True while a checkpoint stopped mid metadata write is undecided: latest() may still change.
    bool settling() const { return !settling_.empty(); }
    size_t queued_requests() const { return decider_.queued(); }
    const SharedStateRegistry& shared_state() const { return shared_registry_; }

private:
    int64_t id_floor_ = 0;  // the savepoint restored from: ids handed out continue above it
    struct Pending {
        int64_t id;
        std::set<std::pair<int32_t, int32_t>> awaiting;
        CompletedCheckpoint result;
        sim::TimerId timeout;
        bool writing_metadata = false;
        SnapshotType snapshot;
        int32_t user_request = -1;
    };

    // -- triggering
    sim::Duration interval() const;
    void schedule_periodic(sim::Duration delay);
    void periodic_fired();
    void submit(CheckpointRequest request);
    void run_queued();
    void apply(const CheckpointRequestDecider::Decision& decision);
    CheckpointRequestDecider::Situation situation() const;
    void reserve_id(const CheckpointRequest& request);
    void id_reserved(int64_t id, const std::string& counter_key, bool ok, const CheckpointRequest& request);
    void trigger(int64_t id, SnapshotType snapshot, int32_t user_request);
    void refuse_with_finished_tasks(int64_t id, SnapshotType snapshot, bool all_finished);
    // -- completion
    void write_metadata(Pending& pending);
    void write_savepoint_metadata(Pending& pending);
    void metadata_written(uint64_t generation, int64_t checkpoint_id, bool ok);
    // HA: the pointer of a checkpoint whose metadata is durable goes into the store.
    void add_to_store(uint64_t generation, int64_t checkpoint_id);
    // The checkpoint's fate is decided: `ok` complete; otherwise aborted, and its files deleted
    // unless `keep_files` (a store write of unknown outcome).
    void finalised(uint64_t generation, int64_t checkpoint_id, bool ok, bool keep_files);
    // The checkpoint being finalised: pending, settling or aborted while writing (nullptr: none).
    const CompletedCheckpoint* finalising(int64_t checkpoint_id) const;
    void complete(int64_t checkpoint_id);
    // Records `checkpoint` as completed; `notify`: tell the running attempt's tasks.
    void finish_completion(CompletedCheckpoint checkpoint, bool notify);
    // An intermediate savepoint: the user's, nothing else refers to it.
    void finish_savepoint(CompletedCheckpoint savepoint, int32_t user_request);
    // The negative control checkpointing.retention_discards_savepoints: savepoints older than every
    // retained checkpoint are discarded as if they were checkpoints.
    void discard_subsumed_savepoints();
    void savepoint_failed(const Pending& pending, const std::string& detail);
    // -- failure
    // Aborts a pending checkpoint, counts the failure and runs a queued request.
    void abort(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    // The abort alone: discard, report, announce, tell the tasks.
    void abort_pending(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    void report_aborted(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    void notify_aborted(int64_t checkpoint_id);
    void count_failure(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    // -- storage
    // `completed`: it was completed (a savepoint's state files then stay: they are the user's).
    void discard(const CompletedCheckpoint& checkpoint, bool completed = false);
    // A completed checkpoint leaves: HA removes its pointer from the store first (files kept if
    // that fails); then discard(checkpoint, true).
    void discard_completed(const CompletedCheckpoint& checkpoint);
    bool referenced(const std::string& key) const;
    // The shared files the checkpoints retained besides a completing one refer to (its metadata keeps them).
    std::vector<std::string> older_retained_shared() const;
    // Every TaskManager of the attempt.
    std::set<sim::NodeId> nodes_running() const;

    ExecutionGateway& gateway_;
    sim::NodeId node_;
    uint64_t instance_;
    CheckpointsCleaner cleaner_;
    FailJob fail_job_;
    Settled settled_;
    const CheckpointConfig& config_;
    sim::Prng prng_;
    CheckpointRequestDecider decider_;
    CheckpointFailureManager failures_;
    bool running_ = false;
    bool stopping_ = false;  // a stop-with-savepoint was triggered: no more periodic checkpoints
    std::set<int32_t> savepoints_requested_;  // user requests submitted in this attempt
    bool triggering_ = false;  // an id is being made durable; its trigger has not gone out yet
    int64_t attempt_ = 0;
    std::vector<std::vector<sim::NodeId>> placement_;
    std::set<std::pair<int32_t, int32_t>> finished_;  // subtasks of the attempt known finished
    int64_t last_id_ = 0;
    std::string counter_key_;  // where the highest durable id is (removed once a higher one is durable)
    sim::TimerId periodic_timer_{};
    sim::Time last_completion_ = sim::Time::zero();
    std::map<int64_t, Pending> pending_;
    std::map<int64_t, CompletedCheckpoint> settling_;  // stopped while their metadata was being written
    std::map<int64_t, CompletedCheckpoint> aborted_while_writing_;  // subsumed mid metadata write: discarded once it is decided
    std::deque<CompletedCheckpoint> completed_;
    // checkpointing.retention_discards_savepoints only (a negative control): intermediate savepoints
    // that retention discards once a checkpoint newer than them leaves the retained window.
    std::deque<CompletedCheckpoint> subsumable_savepoints_;
    SharedStateRegistry shared_registry_;
    uint64_t generation_ = 0;  // bumped by start/stop: stale timers and callbacks see it changed
    std::optional<CompletedCheckpointStore> store_;  // HA only
    std::optional<CheckpointIdCounter> counter_;     // HA only
};

}  // namespace eosim::engine
