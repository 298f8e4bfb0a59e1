#pragma once
// The checkpoint coordinator on the JobManager, after Flink's CheckpointCoordinator.
//
// Triggers a checkpoint every `interval` while the job runs, at most `max_concurrent` at a time,
// and not before `min_pause` after the last completion; ids strictly increase across attempts.
// A checkpoint completes when every task acknowledged it and its metadata is durable; then
// notifyCheckpointComplete goes out (best effort). It is aborted on a decline, on timeout or when
// the metadata cannot be written; more than `tolerable_failures` consecutive failures fail the job
// over. A failover or the end of the job aborts every pending checkpoint too -- except one whose
// metadata is being written: durable metadata is what a recovering JobManager restores from, so
// that write alone decides (Flink finalises a fully acknowledged checkpoint in one step that no
// failover interleaves). Until it is decided, settling() holds the next deployment back, so that
// it restores the same checkpoint a JobManager restart would. Completing N subsumes every pending
// checkpoint below N. The last `retained` completed checkpoints are kept in storage, older ones
// deleted.
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "engine/runtime/deployment.h"
#include "engine/runtime/job_spec.h"
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
    // Stops triggering; every pending checkpoint ends aborted for `reason` (failover or end of job).
    void stop(const std::string& reason);
    // After a JobManager restart: ids continue above `highest_id`; `latest` (may be null) is restorable.
    void recover(int64_t highest_id, const CompletedCheckpoint* latest);

    void acknowledge(const TaskKey& task, int64_t checkpoint_id, const std::string& handle, const SourceOffsets& offsets);
    void decline(const TaskKey& task, int64_t checkpoint_id, const std::string& reason);

    const CompletedCheckpoint* latest() const { return completed_.empty() ? nullptr : &completed_.back(); }
    // True while a checkpoint stopped mid metadata write is undecided: latest() may still change.
    bool settling() const { return !settling_.empty(); }

private:
    struct Pending {
        int64_t id;
        std::set<std::pair<int32_t, int32_t>> awaiting;
        CompletedCheckpoint result;
        sim::TimerId timeout;
        bool writing_metadata = false;
    };

    void schedule_tick(sim::Duration delay);
    void tick();
    void trigger();
    void write_metadata(Pending& pending);
    void metadata_written(uint64_t generation, int64_t checkpoint_id, bool ok);
    void complete(int64_t checkpoint_id);
    // Records `checkpoint` as completed; `notify`: tell the running attempt's tasks.
    void finish_completion(CompletedCheckpoint checkpoint, bool notify);
    void abort(int64_t checkpoint_id, const std::string& reason, bool counts_as_failure);
    void report_aborted(int64_t checkpoint_id, const std::string& reason);
    void discard(const CompletedCheckpoint& checkpoint);
    std::set<sim::NodeId> nodes_running(bool sources_only) const;

    Engine& engine_;
    sim::NodeId node_;
    FailJob fail_job_;
    Settled settled_;
    const CheckpointConfig& config_;
    bool running_ = false;
    int64_t attempt_ = 0;
    std::vector<std::vector<sim::NodeId>> placement_;
    int64_t last_id_ = 0;
    sim::Time last_trigger_ = sim::Time::zero();
    sim::Time last_completion_ = sim::Time::zero();
    int32_t consecutive_failures_ = 0;
    std::map<int64_t, Pending> pending_;
    std::map<int64_t, CompletedCheckpoint> settling_;  // stopped while their metadata was being written
    std::deque<CompletedCheckpoint> completed_;
    uint64_t generation_ = 0;  // bumped by start/stop: stale timers and callbacks see it changed
};

}  // namespace eosim::engine
