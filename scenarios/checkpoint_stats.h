#pragma once
// Checkpoint statistics as Flink's web UI shows them, gathered from what the engine tells its
// observers: per checkpoint its trigger time, end-to-end duration, outcome (and why a failed one
// failed: Flink's failure reason and what happened), whether any task took it unaligned, the bytes of
// operator state and of channel state (in-flight data) its tasks persisted, and per task the start
// delay (trigger to first barrier) and alignment duration (first to last barrier).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/runtime/run_observer.h"

namespace eosim::scenarios {

struct CheckpointTaskStats {
    std::string vertex;
    int32_t subtask = 0;
    double start_delay_ms = 0;
    double alignment_ms = 0;
    int64_t operator_state_bytes = 0;
    int64_t channel_state_bytes = 0;
    bool unaligned = false;
};

struct CheckpointStats {
    int64_t id = 0;
    double triggered_s = 0;
    double duration_ms = -1;  // until completed or aborted; -1 while neither
    std::string status = "in_progress";  // completed | failed | in_progress
    std::string failure;                 // why it failed
    bool unaligned = false;              // some task took it unaligned
    int64_t operator_state_bytes = 0;
    int64_t channel_state_bytes = 0;
    int64_t shared_bytes_uploaded = 0;    // incremental state: shared files uploaded
    int64_t shared_bytes_referenced = 0;  // incremental state: shared files referred to (uploads included)
    double max_alignment_ms = 0;
    double max_start_delay_ms = 0;
    std::vector<CheckpointTaskStats> tasks;
};

// Medians and maxima over the completed checkpoints.
struct CheckpointStatsSummary {
    int64_t completed = 0;
    int64_t unaligned = 0;  // completed ones some task took unaligned
    double duration_median_ms = 0;
    double duration_p99_ms = 0;
    double duration_max_ms = 0;
    double alignment_median_ms = 0;
    double alignment_max_ms = 0;
    double bytes_median = 0;           // operator + channel state per checkpoint
    double channel_bytes_median = 0;
};

class CheckpointStatsTracker final : public engine::RunObserver {
public:
    void checkpoint_triggered(sim::Time at, int64_t checkpoint_id) override;
    void checkpoint_completed(sim::Time at, int64_t checkpoint_id, const engine::SourceOffsets&) override;
    void checkpoint_aborted(sim::Time at, int64_t checkpoint_id, engine::CheckpointFailureReason reason,
                            const std::string& detail) override;
    void task_checkpoint_stats(sim::Time at, const engine::TaskCheckpointStats& stats) override;

    const std::vector<CheckpointStats>& checkpoints() const { return checkpoints_; }

private:
    CheckpointStats* find(int64_t checkpoint_id);
    std::vector<CheckpointStats> checkpoints_;  // in trigger order
};

CheckpointStatsSummary summarize(const std::vector<CheckpointStats>& checkpoints);

}  // namespace eosim::scenarios
