#pragma once
// Checkpoint statistics as Flink's web UI shows them (the Checkpoints tab: History, Summary and
// per-subtask details), gathered from what the engine tells its observers. Per checkpoint or
// savepoint: its id, the deployment that took it, its type (checkpoint, savepoint,
// stop-with-savepoint) and alignment (aligned, unaligned, or aligned switched to unaligned by the
// aligned-checkpoint timeout), its status (completed; failed, expired, declined or subsumed with
// Flink's CheckpointFailureReason and what happened), trigger time, end-to-end duration, the bytes
// its tasks checkpointed (operator state and shared files uploaded) and persisted (channel state:
// in-flight data), and per subtask: start delay (trigger to first barrier), alignment (first to
// last barrier), the synchronous part (the snapshot to the start of its upload) and the
// asynchronous part (from there to the acknowledgement; -1 when it never acknowledged). With an
// aligned-checkpoint timeout, a snapshot's wait for its barrier to leave the output queues is the
// asynchronous part's, as in Flink (its AsyncCheckpointRunnable waits for the output channel
// state).
//
// Not here: Flink's "processed in-flight data" (bytes read during alignment) -- the engine does not
// count it.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/vocabulary/run_observer.h"

namespace eosim::scenarios {

class JobHistory;

struct CheckpointTaskStats {
    std::string vertex;
    int32_t subtask = 0;
    double start_delay_ms = 0;
    double alignment_ms = 0;
    double sync_ms = 0;
    double async_ms = -1;  // -1: not acknowledged
    int64_t operator_state_bytes = 0;
    int64_t channel_state_bytes = 0;
    bool unaligned = false;
    double uploaded_s = 0;  // when its upload started (the async part's start)
};

struct CheckpointStats {
    int64_t id = 0;
    std::string deployment = "v1";
    std::string type = "checkpoint";  // checkpoint | savepoint | stop-with-savepoint[, drain]
    std::string alignment =
        "aligned";  // aligned | unaligned | switched (aligned, then unaligned by the timeout)
    double triggered_s = 0;
    double duration_ms = -1;  // until completed or aborted; -1 while neither
    // completed | failed | expired | declined | subsumed | in_progress (failed() says whether it
    // failed)
    std::string status = "in_progress";
    std::string failure_reason;  // Flink's CheckpointFailureReason name
    std::string failure;         // what happened
    bool unaligned = false;      // some task took it unaligned
    int64_t operator_state_bytes = 0;
    int64_t channel_state_bytes = 0;    // persisted in-flight data
    int64_t shared_bytes_uploaded = 0;  // incremental state: shared files uploaded
    int64_t shared_bytes_referenced =
        0;  // incremental state: shared files referred to (uploads included)
    double max_alignment_ms = 0;
    double max_start_delay_ms = 0;
    int64_t acknowledged = 0;  // subtasks that acknowledged
    // Restored by a later attempt although no JobManager completed it (the one completing it was
    // lost; the next found its metadata in storage or the completed-checkpoint store).
    bool restored_uncompleted = false;
    std::vector<CheckpointTaskStats> tasks;

    bool failed() const { return status != "completed" && status != "in_progress"; }
    bool savepoint() const { return type != "checkpoint"; }
    // What its tasks uploaded: operator and channel state, and new shared files.
    int64_t checkpointed_bytes() const {
        return operator_state_bytes + channel_state_bytes + shared_bytes_uploaded;
    }
};

// The status a failure reason gives a checkpoint in the history: expired, declined, subsumed,
// failed.
std::string checkpoint_status_of(engine::CheckpointFailureReason reason);

// min / avg / max / p50 / p99 of one figure (all zero over no values).
struct StatsSpread {
    double min = 0, avg = 0, max = 0, p50 = 0, p99 = 0;
};
StatsSpread spread(std::vector<double> values);

// Flink's Summary tab over one group of checkpoints (the completed ones, or the failed ones).
struct CheckpointGroupSummary {
    int64_t count = 0;
    StatsSpread duration_ms;  // end to end
    StatsSpread checkpointed_bytes;
    StatsSpread persisted_bytes;  // channel state
    StatsSpread start_delay_ms;   // per checkpoint: its latest task
    StatsSpread alignment_ms;     // per checkpoint: its slowest task
};

// Medians and maxima over the completed checkpoints (and savepoints), and Flink's summary over the
// completed ones and over the failed ones, apart.
struct CheckpointStatsSummary {
    int64_t completed = 0;
    int64_t unaligned = 0;  // completed ones some task took unaligned
    double duration_median_ms = 0;
    double duration_p99_ms = 0;
    double duration_max_ms = 0;
    double alignment_median_ms = 0;
    double alignment_max_ms = 0;
    double bytes_median = 0;  // operator + channel state per checkpoint
    double channel_bytes_median = 0;
    CheckpointGroupSummary completed_summary;
    CheckpointGroupSummary failed_summary;
};

class CheckpointStatsTracker final : public engine::RunObserver {
public:
    // `history` (may be null) names the deployment and knows which snapshots are savepoints.
    explicit CheckpointStatsTracker(const JobHistory* history = nullptr) : history_(history) {}
    void checkpoint_triggered(sim::Time at, int64_t checkpoint_id,
                              engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time at, int64_t checkpoint_id,
                              const engine::SourceOffsets&) override;
    void checkpoint_aborted(sim::Time at, int64_t checkpoint_id,
                            engine::CheckpointFailureReason reason,
                            const std::string& detail) override;
    void task_checkpoint_stats(sim::Time at, const engine::TaskCheckpointStats& stats) override;
    void task_checkpoint_acknowledged(sim::Time at, int64_t checkpoint_id,
                                      const std::string& vertex, int32_t subtask) override;
    // A JobManager lost (or replaced without a word): its checkpoints in flight end as failed,
    // "lost with the JobManager" (Flink's CHECKPOINT_COORDINATOR_SHUTDOWN); a restored one that
    // never completed is flagged (restored_uncompleted).
    void job_manager_lost(sim::Time at, int64_t attempt, const std::string& why) override;
    void failover(sim::Time at, int64_t attempt, const std::string& reason) override;
    // The job failed for good: its checkpoints still under way end as failed (Flink's JOB_FAILURE).
    void job_failed(sim::Time at, const std::string& reason) override;
    void restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id,
                         const engine::SourceOffsets& offsets) override;

    const std::vector<CheckpointStats>& checkpoints() const { return checkpoints_; }

private:
    CheckpointStats* find(int64_t checkpoint_id);
    void end_in_flight(sim::Time at, engine::CheckpointFailureReason reason,
                       const std::string& why);
    const JobHistory* history_;
    int64_t attempt_ = -1;         // the attempt running (the last restored)
    bool after_failover_ = false;  // a task failover's restore is ahead (not a new JobManager's)
    std::vector<CheckpointStats> checkpoints_;  // in trigger order
};

CheckpointStatsSummary summarize(const std::vector<CheckpointStats>& checkpoints);

}  // namespace eosim::scenarios
