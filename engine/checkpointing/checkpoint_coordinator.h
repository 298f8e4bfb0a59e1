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
// made durable (checkpoint_storage.h's counter key, or checkpoint_id_counter.h with HA) before its
// trigger goes out, and a recovering JobManager continues above the highest id it finds there.
//
// Where the other concerns live, each with its own header comment:
//   pending_checkpoint.h          one checkpoint's life: acknowledgements, metadata write,
//                                 completion or abort, settling across a failover (checked states)
//   checkpoint_failure_manager.h  which failures count toward tolerable_failures
//   savepoint_storage.h           savepoints: never restored on failover, never retained or
//   notified,
//                                 except the final one of a stop-with-savepoint
//   checkpoint_retention.h        the completed checkpoints retained (the last `retained`)
//   checkpoints_cleaner.h         what is discarded, asynchronously
//   completed_checkpoint_store.h  HA: a checkpoint is complete once its pointer is in the store
//   shared_state_registry.h       incremental checkpoints' shared files and their references
//   checkpoint_plan.h             finished tasks (FLIP-147): what is triggered, awaited, recorded
//
// Contracts checked always (engine/invariant.h): ids strictly increase and stay above a restored
// savepoint; the coordinator completes or aborts only a checkpoint it holds in progress; each
// checkpoint's transitions come from their valid states (pending_checkpoint.h).
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "engine/checkpointing/checkpoint_failure_manager.h"
#include "engine/checkpointing/checkpoint_id_counter.h"
#include "engine/checkpointing/checkpoint_plan.h"
#include "engine/checkpointing/checkpoint_request_decider.h"
#include "engine/checkpointing/checkpoint_retention.h"
#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/checkpoints_cleaner.h"
#include "engine/checkpointing/completed_checkpoint_store.h"
#include "engine/checkpointing/execution_gateway.h"
#include "engine/checkpointing/leader_session.h"
#include "engine/checkpointing/pending_checkpoint.h"
#include "engine/checkpointing/shared_state_registry.h"
#include "engine/vocabulary/checkpoint_failure_reason.h"
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
    CheckpointCoordinator(ExecutionGateway& gateway, sim::NodeId node, uint64_t instance,
                          FailJob fail_job, Settled settled);

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

    void acknowledge(const TaskKey& task, int64_t checkpoint_id, const std::string& handle,
                     int64_t state_bytes, const SourceOffsets& offsets,
                     const SharedStateReport& shared = {});
    void decline(const TaskKey& task, int64_t checkpoint_id, CheckpointFailureReason reason,
                 const std::string& detail);

    const CompletedCheckpoint* latest() const { return retention_.latest(); }
    // True while a checkpoint stopped mid metadata write is undecided: latest() may still change.
    bool settling() const;
    size_t queued_requests() const { return decider_.queued(); }
    const SharedStateRegistry& shared_state() const { return shared_registry_; }

private:
    // -- triggering
    sim::Duration interval() const;
    void schedule_periodic(sim::Duration delay);
    void periodic_fired();
    void submit(CheckpointRequest request);
    void run_queued();
    void apply(const CheckpointRequestDecider::Decision& decision);
    CheckpointRequestDecider::Situation situation() const;
    void reserve_id(const CheckpointRequest& request);
    void id_reserved(int64_t id, const std::string& counter_key, bool ok,
                     const CheckpointRequest& request);
    void trigger(int64_t id, SnapshotType snapshot, int32_t user_request);
    void refuse_with_finished_tasks(int64_t id, SnapshotType snapshot, bool all_finished);
    // -- completion
    void write_metadata(PendingCheckpoint& pending);
    void write_savepoint_metadata(PendingCheckpoint& pending);
    void metadata_written(uint64_t generation, int64_t checkpoint_id, bool ok);
    // HA: the pointer of a checkpoint whose metadata is durable goes into the store.
    void add_to_store(uint64_t generation, int64_t checkpoint_id);
    void store_added(uint64_t generation, int64_t checkpoint_id,
                     sim::external::CoordinationStatus status);
    // The checkpoint's fate is decided: `ok` complete; otherwise aborted, and its files deleted
    // unless `keep_files` (a store write of unknown outcome).
    void finalised(uint64_t generation, int64_t checkpoint_id, bool ok, bool keep_files);
    void release_after_write(int64_t checkpoint_id, bool ok, bool keep_files);
    void decide_settling(int64_t checkpoint_id, bool ok, bool keep_files);
    void complete(int64_t checkpoint_id);
    // Records `checkpoint` as completed; `notify`: tell the running attempt's tasks.
    void finish_completion(CompletedCheckpoint checkpoint, bool notify);
    // An intermediate savepoint: the user's, nothing else refers to it.
    void finish_savepoint(CompletedCheckpoint savepoint, int32_t user_request);
    void savepoint_failed(SnapshotType snapshot, int32_t user_request, const std::string& detail);
    // -- failure
    // Aborts a pending checkpoint, counts the failure and runs a queued request.
    void abort(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    // The abort alone: discard, report, announce, tell the tasks.
    void abort_pending(int64_t checkpoint_id, CheckpointFailureReason reason,
                       const std::string& detail);
    void report_aborted(int64_t checkpoint_id, CheckpointFailureReason reason,
                        const std::string& detail);
    void notify_aborted(int64_t checkpoint_id);
    void count_failure(int64_t checkpoint_id, CheckpointFailureReason reason,
                       const std::string& detail);
    // -- storage
    // `completed`: it was completed (a savepoint's state files then stay: they are the user's).
    void discard(const CompletedCheckpoint& checkpoint, bool completed = false);
    // A completed checkpoint leaves: HA removes its pointer from the store first (files kept if
    // that fails); then discard(checkpoint, true).
    void discard_completed(const CompletedCheckpoint& checkpoint);
    bool referenced(const std::string& key) const;
    // Every TaskManager of the attempt.
    std::set<sim::NodeId> nodes_running() const;
    // -- the checkpoints held: any state (nullptr: none), in progress
    // (PendingCheckpoint::in_progress)
    const PendingCheckpoint* find(int64_t checkpoint_id) const;
    PendingCheckpoint* find_in_progress(int64_t checkpoint_id);
    PendingCheckpoint& in_progress_at(
        int64_t checkpoint_id);  // an invariant: it is held in progress
    int32_t in_progress_count() const;

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
    int64_t id_floor_ = 0;  // the savepoint restored from: ids handed out continue above it
    int64_t last_triggered_id_ = 0;  // ids strictly increase
    std::string
        counter_key_;  // where the highest durable id is (removed once a higher one is durable)
    sim::TimerId periodic_timer_{};
    sim::Time last_completion_ = sim::Time::zero();
    // Every checkpoint triggered and not yet decided, in progress or waiting for its metadata write
    // (settling, discarding); each one's state is its own (pending_checkpoint.h).
    std::map<int64_t, PendingCheckpoint> checkpoints_;
    CheckpointRetention retention_;
    SharedStateRegistry shared_registry_;
    uint64_t generation_ = 0;  // bumped by start/stop: stale timers and callbacks see it changed
    std::optional<CompletedCheckpointStore> store_;  // HA only
    std::optional<CheckpointIdCounter> counter_;     // HA only
};

}  // namespace eosim::engine
