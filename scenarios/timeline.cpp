#include "scenarios/timeline.h"

#include <algorithm>

#include "engine/vocabulary/record.h"
#include "scenarios/job_history.h"

namespace eosim::scenarios {

void TimelineRecorder::record(sim::Time t, const char* lane, std::string what, std::string detail) {
    events_.push_back(TimelineEvent{t.ns, -1, lane, std::move(what), std::move(detail)});
}

std::string TimelineRecorder::snapshot_name(int64_t id) const {
    return history_ != nullptr ? history_->snapshot_name(id) : "checkpoint " + std::to_string(id);
}

std::string TimelineRecorder::attempt_name(int64_t attempt) const {
    return history_ != nullptr ? history_->attempt_name(attempt) : std::to_string(attempt);
}

void TimelineRecorder::checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType) {
    record(t, "checkpoints", "checkpoint.triggered", snapshot_name(id));
}

void TimelineRecorder::checkpoint_completed(sim::Time t, int64_t id, const engine::SourceOffsets&) {
    record(t, "checkpoints", "checkpoint.completed", snapshot_name(id));
}

void TimelineRecorder::checkpoint_aborted(sim::Time t, int64_t id,
                                          engine::CheckpointFailureReason reason,
                                          const std::string& detail) {
    record(t, "checkpoints", "checkpoint.aborted",
           snapshot_name(id) + ": " + engine::to_string(reason) + " (" + detail + ")");
}

void TimelineRecorder::restore_started(sim::Time t, int64_t attempt, int64_t id,
                                       const engine::SourceOffsets&) {
    const std::string from = history_ != nullptr ? history_->restore_text(attempt, id)
                             : id == 0           ? "from scratch"
                                                 : "restores checkpoint " + std::to_string(id);
    record(t, "job", "restore",
           "attempt " + attempt_name(attempt) + " " + (id == 0 ? "starts " : "") + from);
}

void TimelineRecorder::failover(sim::Time t, int64_t attempt, const std::string& reason) {
    record(t, "job", "failover", "attempt " + attempt_name(attempt) + " after: " + reason);
}

void TimelineRecorder::transaction_event(sim::Time t, const std::string& id, const char* what) {
    record(t, "transactions", std::string("txn.") + what, id);
}

void TimelineRecorder::likely_data_loss(sim::Time t, const std::string& id,
                                        const std::string& why) {
    record(t, "transactions", "txn.lost", id + ": commit failed (" + why + "), likely data loss");
}

void TimelineRecorder::job_suspended(sim::Time t, const std::string& why) {
    record(t, "job", "job.suspended", why);
}

void TimelineRecorder::job_finished(sim::Time t) {
    std::string detail = history_ != nullptr ? history_->finished_text()
                                             : "bounded input done, final checkpoint committed";
    if (history_ != nullptr) detail = history_->deployment_name() + " " + detail;
    record(t, "job", "job.finished", detail);
}

void TimelineRecorder::connector_event(sim::Time begin, sim::Time end, const std::string& lane,
                                       const std::string& what, const std::string& detail) {
    events_.push_back(TimelineEvent{begin.ns, end == begin ? -1 : end.ns, lane, what, detail});
}

void TimelineRecorder::watermark_advanced(sim::Time t, int64_t attempt, const std::string& vertex,
                                          int32_t subtask, int64_t watermark) {
    VertexWatermark& w = watermarks_[vertex];
    if (attempt != w.attempt) {  // a new attempt starts from its restored watermarks
        w.attempt = attempt;
        w.subtasks.clear();
    }
    w.subtasks[subtask] = watermark;
    int64_t lowest = watermark;
    for (const auto& [s, value] : w.subtasks) lowest = std::min(lowest, value);
    if (w.since_ns >= 0 && lowest == w.shown) return;
    if (w.since_ns >= 0 && t.ns - w.since_ns < kWatermarkStep.ns && lowest != engine::kMaxWatermark)
        return;
    close_watermark_span(vertex, w, t.ns);
    w.shown = lowest;
    w.since_ns = t.ns;
}

void TimelineRecorder::close_watermark_span(const std::string& vertex, VertexWatermark& w,
                                            int64_t until_ns) {
    if (w.since_ns < 0) return;
    std::string value = "event time " + std::to_string(w.shown) + " ms";
    if (w.shown == engine::kMaxWatermark) value = "end of input";
    if (w.shown == engine::kMinWatermark) value = "none yet";
    events_.push_back(TimelineEvent{
        w.since_ns, until_ns > w.since_ns ? until_ns : -1, "watermark " + vertex, "watermark",
        "watermark of " + vertex + " (the lowest of its subtasks): " + value});
    w.since_ns = -1;
}

std::vector<TimelineEvent> TimelineRecorder::take() {
    for (auto& [vertex, w] : watermarks_) close_watermark_span(vertex, w, -1);
    return std::move(events_);
}

void TimelineRecorder::job_failed(sim::Time t, const std::string& reason) {
    record(t, "job", "job.failed", reason);
}

}  // namespace eosim::scenarios
