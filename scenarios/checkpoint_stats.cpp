#include "scenarios/checkpoint_stats.h"

#include <algorithm>

namespace eosim::scenarios {

namespace {
double ms(sim::Duration d) { return static_cast<double>(d.ns) / 1e6; }

// The value at quantile q (0..1) of sorted values, nearest rank.
double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    size_t rank = static_cast<size_t>(q * static_cast<double>(values.size()));
    if (rank >= values.size()) rank = values.size() - 1;
    return values[rank];
}
}  // namespace

CheckpointStats* CheckpointStatsTracker::find(int64_t checkpoint_id) {
    for (auto it = checkpoints_.rbegin(); it != checkpoints_.rend(); ++it) {
        if (it->id == checkpoint_id) return &*it;
    }
    return nullptr;
}

void CheckpointStatsTracker::checkpoint_triggered(sim::Time at, int64_t checkpoint_id) {
    CheckpointStats stats;
    stats.id = checkpoint_id;
    stats.triggered_s = at.seconds();
    checkpoints_.push_back(std::move(stats));
}

void CheckpointStatsTracker::checkpoint_completed(sim::Time at, int64_t checkpoint_id, const engine::SourceOffsets&) {
    CheckpointStats* stats = find(checkpoint_id);
    if (stats == nullptr || stats->status != "in_progress") return;
    stats->status = "completed";
    stats->duration_ms = (at.seconds() - stats->triggered_s) * 1e3;
}

void CheckpointStatsTracker::checkpoint_aborted(sim::Time at, int64_t checkpoint_id, engine::CheckpointFailureReason reason,
                                                const std::string& detail) {
    CheckpointStats* stats = find(checkpoint_id);
    if (stats == nullptr || stats->status != "in_progress") return;
    stats->status = "failed";
    stats->failure = std::string(engine::to_string(reason)) + " (" + detail + ")";
    stats->duration_ms = (at.seconds() - stats->triggered_s) * 1e3;
}

void CheckpointStatsTracker::task_checkpoint_stats(sim::Time, const engine::TaskCheckpointStats& task) {
    CheckpointStats* stats = find(task.checkpoint_id);
    if (stats == nullptr) return;
    CheckpointTaskStats t;
    t.vertex = task.vertex;
    t.subtask = task.subtask;
    t.start_delay_ms = std::max(0.0, (task.first_barrier_at.seconds() - stats->triggered_s) * 1e3);
    t.alignment_ms = ms(task.alignment);
    t.operator_state_bytes = task.operator_state_bytes;
    t.channel_state_bytes = task.channel_state_bytes;
    t.unaligned = task.unaligned;
    stats->unaligned = stats->unaligned || task.unaligned;
    stats->operator_state_bytes += task.operator_state_bytes;
    stats->channel_state_bytes += task.channel_state_bytes;
    stats->shared_bytes_uploaded += task.shared_bytes_uploaded;
    stats->shared_bytes_referenced += task.shared_bytes_referenced;
    stats->max_alignment_ms = std::max(stats->max_alignment_ms, t.alignment_ms);
    stats->max_start_delay_ms = std::max(stats->max_start_delay_ms, t.start_delay_ms);
    stats->tasks.push_back(std::move(t));
}

CheckpointStatsSummary summarize(const std::vector<CheckpointStats>& checkpoints) {
    CheckpointStatsSummary s;
    std::vector<double> durations, alignments, bytes, channel_bytes;
    for (const CheckpointStats& c : checkpoints) {
        if (c.status != "completed") continue;
        ++s.completed;
        if (c.unaligned) ++s.unaligned;
        durations.push_back(c.duration_ms);
        alignments.push_back(c.max_alignment_ms);
        bytes.push_back(static_cast<double>(c.operator_state_bytes + c.channel_state_bytes));
        channel_bytes.push_back(static_cast<double>(c.channel_state_bytes));
    }
    s.duration_median_ms = quantile(durations, 0.5);
    s.duration_p99_ms = quantile(durations, 0.99);
    s.duration_max_ms = quantile(durations, 1.0);
    s.alignment_median_ms = quantile(alignments, 0.5);
    s.alignment_max_ms = quantile(alignments, 1.0);
    s.bytes_median = quantile(bytes, 0.5);
    s.channel_bytes_median = quantile(channel_bytes, 0.5);
    return s;
}

}  // namespace eosim::scenarios
