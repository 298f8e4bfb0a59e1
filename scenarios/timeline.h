#pragma once
// The run's timeline: what happened when, for reports (HTML timeline, Chrome trace) and for people
// reading a failing run. Recorded from the engine's observer calls and the fault injector.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/vocabulary/run_observer.h"

namespace eosim::scenarios {

struct TimelineEvent {
    int64_t at_ns = 0;
    int64_t end_ns = -1;  // for spans (faults with a duration); -1 for instants
    std::string lane;     // "checkpoints", "job", "transactions", "faults", or a node name
    std::string what;     // "checkpoint.completed", "failover", "txn.committed", "fault.crash", ...
    std::string detail;
};

class JobHistory;

class TimelineRecorder final : public engine::RunObserver {
public:
    // `history` (may be null) names attempts ("v1/2"), savepoints and how a deployment stopped.
    explicit TimelineRecorder(const JobHistory* history = nullptr) : history_(history) {}
    void checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time t, int64_t id,
                              const engine::SourceOffsets& offsets) override;
    void checkpoint_aborted(sim::Time t, int64_t id, engine::CheckpointFailureReason reason,
                            const std::string& detail) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override;
    void failover(sim::Time t, int64_t attempt, const std::string& reason) override;
    void transaction_event(sim::Time t, const std::string& id, const char* what) override;
    void likely_data_loss(sim::Time t, const std::string& id, const std::string& why) override;
    void connector_event(sim::Time begin, sim::Time end, const std::string& lane,
                         const std::string& what, const std::string& detail) override;
    void job_suspended(sim::Time t, const std::string& why) override;
    void job_finished(sim::Time t) override;
    void job_failed(sim::Time t, const std::string& reason) override;
    // A line per vertex in lane "watermark <vertex>": spans of the vertex's watermark (the minimum
    // over its subtasks of the current attempt), a new span when it advanced and at least
    // kWatermarkStep of virtual time passed (or it reached the end of input), so a user sees why a
    // window fired when it did without one event per watermark.
    void watermark_advanced(sim::Time t, int64_t attempt, const std::string& vertex,
                            int32_t subtask, int64_t watermark) override;
    static constexpr sim::Duration kWatermarkStep = sim::Duration::millis(100);

    void add(TimelineEvent event) { events_.push_back(std::move(event)); }
    std::vector<TimelineEvent> take();

private:
    void record(sim::Time t, const char* lane, std::string what, std::string detail);
    std::string snapshot_name(int64_t id) const;
    std::string attempt_name(int64_t attempt) const;
    const JobHistory* history_;
    struct VertexWatermark {
        int64_t attempt = -1;
        std::map<int32_t, int64_t> subtasks;  // each subtask's watermark in this attempt
        int64_t shown = 0;                    // the open span's watermark
        int64_t since_ns = -1;                // the open span's start; -1: none open
    };
    void close_watermark_span(const std::string& vertex, VertexWatermark& w, int64_t until_ns);
    std::vector<TimelineEvent> events_;
    std::map<std::string, VertexWatermark> watermarks_;  // by vertex
};

}  // namespace eosim::scenarios
