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
// Storage: the last `retained` completed checkpoints are kept; the state of every other checkpoint
// is discarded asynchronously (older completed ones, aborted ones with the state acknowledged so
// far, and state acknowledged late for a checkpoint that is no longer pending), as Flink does. What
// is not discarded: state whose acknowledgement never arrives (lost, or its JobManager died), and
// the pending checkpoints of a crashed JobManager.
//
// Shared state (incremental checkpoints): the SharedStateRegistry counts the references pending
// and retained checkpoints hold to shared files, taken when an acknowledgement arrives and dropped
// when the checkpoint is discarded; a file goes when its last reference does. An acknowledgement
// that refers to a shared file the registry no longer holds (its task had not yet heard that the
// checkpoints holding it were discarded) declines its checkpoint instead of completing one that
// refers to a deleted file. A recovering JobManager rebuilds the registry from the retained
// checkpoints (recover()).
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "engine/checkpointing/checkpoint_failure_manager.h"
#include "engine/checkpointing/checkpoint_failure_reason.h"
#include "engine/checkpointing/checkpoint_request_decider.h"
#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/shared_state_registry.h"
#include "engine/runtime/deployment.h"
#include "engine/runtime/job_spec.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::engine {

class Engine;

class CheckpointCoordinator {
public:
    using FailJob = std::function<void(const std::string& reason)>;
    using Settled = std::function<void()>;

    // `settled` runs when the last checkpoint that was settling at a stop() is decided.
    CheckpointCoordinator(Engine& engine, sim::NodeId node, FailJob fail_job, Settled settled);

    // Starts periodic checkpoints for a running attempt deployed at `placement`.
    void start(int64_t attempt, const std::vector<std::vector<sim::NodeId>>& placement);
    // Stops triggering; every pending checkpoint ends aborted for `reason` (failover: suspend; end
    // of job: shutdown), and the tasks are told.
    void stop(CheckpointFailureReason reason, const std::string& detail);
    // After a JobManager restart: ids continue above the highest durable one `found`; `latest`
    // (may be null) is restorable; the older completed checkpoints found are kept for retention.
    void recover(const StoredCheckpoints& found, const CompletedCheckpoint* latest);
    // A request besides the periodic ones (savepoints, when they come; tests).
    void request(CheckpointRequestKind kind);

    void acknowledge(const TaskKey& task, int64_t checkpoint_id, const std::string& handle, int64_t state_bytes,
                     const SourceOffsets& offsets, const SharedStateReport& shared = {});
    void decline(const TaskKey& task, int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);

    const CompletedCheckpoint* latest() const { return completed_.empty() ? nullptr : &completed_.back(); }
    // True while a checkpoint stopped mid metadata write is undecided: latest() may still change.
    bool settling() const { return !settling_.empty(); }
    size_t queued_requests() const { return decider_.queued(); }
    const SharedStateRegistry& shared_state() const { return shared_registry_; }

private:
    struct Pending {
        int64_t id;
        std::set<std::pair<int32_t, int32_t>> awaiting;
        CompletedCheckpoint result;
        sim::TimerId timeout;
        bool writing_metadata = false;
    };

    // -- triggering
    sim::Duration interval() const;
    void schedule_periodic(sim::Duration delay);
    void periodic_fired();
    void submit(CheckpointRequest request);
    void run_queued();
    void apply(const CheckpointRequestDecider::Decision& decision);
    CheckpointRequestDecider::Situation situation() const;
    void reserve_id();
    void id_reserved(int64_t id, const std::string& counter_key, bool ok);
    void trigger(int64_t id);
    // -- completion
    void write_metadata(Pending& pending);
    void metadata_written(uint64_t generation, int64_t checkpoint_id, bool ok);
    void complete(int64_t checkpoint_id);
    // Records `checkpoint` as completed; `notify`: tell the running attempt's tasks.
    void finish_completion(CompletedCheckpoint checkpoint, bool notify);
    // -- failure
    // Aborts a pending checkpoint, counts the failure and runs a queued request.
    void abort(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    // The abort alone: discard, report, announce, tell the tasks.
    void abort_pending(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    void report_aborted(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    void notify_aborted(int64_t checkpoint_id);
    void count_failure(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    // -- storage
    void discard(const CompletedCheckpoint& checkpoint);
    void discard_file(const std::string& key, int32_t tries_left);
    bool referenced(const std::string& key) const;
    // Deletes shared files no checkpoint refers to any more.
    void discard_shared(const std::vector<std::string>& keys);
    // The shared files the checkpoints retained besides a completing one refer to (its metadata keeps them).
    std::vector<std::string> older_retained_shared() const;
    std::set<sim::NodeId> nodes_running(bool sources_only) const;

    Engine& engine_;
    sim::NodeId node_;
    FailJob fail_job_;
    Settled settled_;
    const CheckpointConfig& config_;
    sim::Prng prng_;
    CheckpointRequestDecider decider_;
    CheckpointFailureManager failures_;
    bool running_ = false;
    bool triggering_ = false;  // an id is being made durable; its trigger has not gone out yet
    int64_t attempt_ = 0;
    std::vector<std::vector<sim::NodeId>> placement_;
    int64_t last_id_ = 0;
    std::string counter_key_;  // where the highest durable id is (removed once a higher one is durable)
    sim::TimerId periodic_timer_{};
    sim::Time last_completion_ = sim::Time::zero();
    std::map<int64_t, Pending> pending_;
    std::map<int64_t, CompletedCheckpoint> settling_;  // stopped while their metadata was being written
    std::map<int64_t, CompletedCheckpoint> aborted_while_writing_;  // subsumed mid metadata write: discarded once it is decided
    std::deque<CompletedCheckpoint> completed_;
    SharedStateRegistry shared_registry_;
    uint64_t generation_ = 0;  // bumped by start/stop: stale timers and callbacks see it changed
};

}  // namespace eosim::engine
