#include "scenarios/checkpoint_stats.h"

#include <algorithm>

#include "scenarios/job_history.h"

namespace eosim::scenarios {

namespace {
double ms(sim::Duration d) { return static_cast<double>(d.ns) / 1e6; }

// The value at quantile q (0..1) of sorted values, nearest rank.
double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size()));
    if (rank >= sorted.size()) rank = sorted.size() - 1;
    return sorted[rank];
}

CheckpointGroupSummary group_summary(const std::vector<CheckpointStats>& checkpoints, bool failed) {
    CheckpointGroupSummary g;
    std::vector<double> durations, checkpointed, persisted, start_delays, alignments;
    for (const CheckpointStats& c : checkpoints) {
        if (failed ? !c.failed() : c.status != "completed") continue;
        ++g.count;
        durations.push_back(c.duration_ms);
        checkpointed.push_back(static_cast<double>(c.checkpointed_bytes()));
        persisted.push_back(static_cast<double>(c.channel_state_bytes));
        start_delays.push_back(c.max_start_delay_ms);
        alignments.push_back(c.max_alignment_ms);
    }
    g.duration_ms = spread(std::move(durations));
    g.checkpointed_bytes = spread(std::move(checkpointed));
    g.persisted_bytes = spread(std::move(persisted));
    g.start_delay_ms = spread(std::move(start_delays));
    g.alignment_ms = spread(std::move(alignments));
    return g;
}
}  // namespace

std::string checkpoint_status_of(engine::CheckpointFailureReason reason) {
    using R = engine::CheckpointFailureReason;
    switch (reason) {
        case R::checkpoint_expired: return "expired";
        case R::checkpoint_subsumed:
        case R::checkpoint_declined_subsumed: return "subsumed";
        case R::checkpoint_declined:
        case R::checkpoint_declined_task_not_ready:
        case R::checkpoint_declined_task_closing:
        case R::checkpoint_declined_task_not_checkpointing:
        case R::checkpoint_declined_alignment_limit_exceeded:
        case R::checkpoint_declined_on_cancellation_barrier:
        case R::checkpoint_declined_input_end_of_stream: return "declined";
        default: return "failed";
    }
}

StatsSpread spread(std::vector<double> values) {
    StatsSpread s;
    if (values.empty()) return s;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values) sum += v;
    s.min = values.front();
    s.max = values.back();
    s.avg = sum / static_cast<double>(values.size());
    s.p50 = quantile(values, 0.5);
    s.p99 = quantile(values, 0.99);
    return s;
}

CheckpointStats* CheckpointStatsTracker::find(int64_t checkpoint_id) {
    for (auto it = checkpoints_.rbegin(); it != checkpoints_.rend(); ++it) {
        if (it->id == checkpoint_id) return &*it;
    }
    return nullptr;
}

void CheckpointStatsTracker::checkpoint_triggered(sim::Time at, int64_t checkpoint_id,
                                                  engine::SnapshotType type) {
    CheckpointStats stats;
    stats.id = checkpoint_id;
    if (history_ != nullptr) stats.deployment = history_->deployment_name();
    stats.type = snapshot_kind_name(type);
    stats.triggered_s = at.seconds();
    checkpoints_.push_back(std::move(stats));
}

void CheckpointStatsTracker::checkpoint_completed(sim::Time at, int64_t checkpoint_id,
                                                  const engine::SourceOffsets&) {
    CheckpointStats* stats = find(checkpoint_id);
    if (stats == nullptr || stats->status != "in_progress") return;
    stats->status = "completed";
    stats->duration_ms = (at.seconds() - stats->triggered_s) * 1e3;
}

void CheckpointStatsTracker::checkpoint_aborted(sim::Time at, int64_t checkpoint_id,
                                                engine::CheckpointFailureReason reason,
                                                const std::string& detail) {
    CheckpointStats* stats = find(checkpoint_id);
    if (stats == nullptr || stats->status != "in_progress") return;
    stats->status = checkpoint_status_of(reason);
    stats->failure_reason = engine::to_string(reason);
    stats->failure = detail;
    stats->duration_ms = (at.seconds() - stats->triggered_s) * 1e3;
}

void CheckpointStatsTracker::task_checkpoint_stats(sim::Time at,
                                                   const engine::TaskCheckpointStats& task) {
    CheckpointStats* stats = find(task.checkpoint_id);
    if (stats == nullptr) return;
    CheckpointTaskStats t;
    t.vertex = task.vertex;
    t.subtask = task.subtask;
    t.start_delay_ms = std::max(0.0, (task.first_barrier_at.seconds() - stats->triggered_s) * 1e3);
    t.alignment_ms = ms(task.alignment);
    const sim::Time sync_end = task.sync_end.value_or(at);
    t.sync_ms = std::max(0.0, ms(sync_end - (task.first_barrier_at + task.alignment)));
    t.uploaded_s = sync_end.seconds();
    t.operator_state_bytes = task.operator_state_bytes;
    t.channel_state_bytes = task.channel_state_bytes;
    t.unaligned = task.unaligned;
    stats->unaligned = stats->unaligned || task.unaligned;
    if (task.after_alignment_timeout) {
        stats->alignment = "switched";
    } else if (task.unaligned && stats->alignment == "aligned") {
        stats->alignment = "unaligned";
    }
    stats->operator_state_bytes += task.operator_state_bytes;
    stats->channel_state_bytes += task.channel_state_bytes;
    stats->shared_bytes_uploaded += task.shared_bytes_uploaded;
    stats->shared_bytes_referenced += task.shared_bytes_referenced;
    stats->max_alignment_ms = std::max(stats->max_alignment_ms, t.alignment_ms);
    stats->max_start_delay_ms = std::max(stats->max_start_delay_ms, t.start_delay_ms);
    stats->tasks.push_back(std::move(t));
}

void CheckpointStatsTracker::task_checkpoint_acknowledged(sim::Time at, int64_t checkpoint_id,
                                                          const std::string& vertex,
                                                          int32_t subtask) {
    CheckpointStats* stats = find(checkpoint_id);
    if (stats == nullptr) return;
    for (CheckpointTaskStats& t : stats->tasks) {
        if (t.vertex == vertex && t.subtask == subtask && t.async_ms < 0) {
            t.async_ms = (at.seconds() - t.uploaded_s) * 1e3;
            ++stats->acknowledged;
            return;
        }
    }
}

void CheckpointStatsTracker::end_in_flight(sim::Time at, engine::CheckpointFailureReason reason,
                                           const std::string& why) {
    for (CheckpointStats& stats : checkpoints_) {
        if (stats.status != "in_progress") continue;
        stats.status = "failed";
        stats.failure_reason = engine::to_string(reason);
        stats.failure = why;
        stats.duration_ms = (at.seconds() - stats.triggered_s) * 1e3;
    }
}

void CheckpointStatsTracker::job_manager_lost(sim::Time at, int64_t attempt,
                                              const std::string& why) {
    // A JobManager already replaced that learns of its loss late: the takeover ended its
    // checkpoints.
    const bool replaced = attempt_ >= 0 && attempt / 1000 != attempt_ / 1000;
    if (!replaced)
        end_in_flight(at, engine::CheckpointFailureReason::checkpoint_coordinator_shutdown,
                      "lost with the JobManager: " + why);
}

void CheckpointStatsTracker::failover(sim::Time, int64_t, const std::string&) {
    after_failover_ = true;
}

void CheckpointStatsTracker::job_failed(sim::Time at, const std::string& reason) {
    end_in_flight(at, engine::CheckpointFailureReason::job_failure, "the job failed: " + reason);
}

void CheckpointStatsTracker::restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id,
                                             const engine::SourceOffsets&) {
    const bool takeover =
        attempt_ >= 0 && !after_failover_ &&
        deployment_name_of_attempt(attempt) == deployment_name_of_attempt(attempt_);
    if (takeover) {
        end_in_flight(at, engine::CheckpointFailureReason::checkpoint_coordinator_shutdown,
                      "lost with the JobManager: a new JobManager took the job over");
    }
    after_failover_ = false;
    attempt_ = attempt;
    CheckpointStats* restored = checkpoint_id == 0 ? nullptr : find(checkpoint_id);
    if (restored != nullptr && restored->status != "completed")
        restored->restored_uncompleted = true;
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
    const StatsSpread duration = spread(durations);
    s.duration_median_ms = duration.p50;
    s.duration_p99_ms = duration.p99;
    s.duration_max_ms = duration.max;
    s.alignment_median_ms = spread(alignments).p50;
    s.alignment_max_ms = spread(alignments).max;
    s.bytes_median = spread(bytes).p50;
    s.channel_bytes_median = spread(channel_bytes).p50;
    s.completed_summary = group_summary(checkpoints, false);
    s.failed_summary = group_summary(checkpoints, true);
    return s;
}

}  // namespace eosim::scenarios
