#pragma once
// The run's timeline: what happened when, for reports (HTML timeline, Chrome trace) and for people
// reading a failing run. Recorded from the engine's observer calls and the fault injector.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/runtime/run_observer.h"

namespace eosim::scenarios {

struct TimelineEvent {
    int64_t at_ns = 0;
    int64_t end_ns = -1;  // for spans (faults with a duration); -1 for instants
    std::string lane;     // "checkpoints", "job", "transactions", "faults", or a node name
    std::string what;     // "checkpoint.completed", "failover", "txn.committed", "fault.crash", ...
    std::string detail;
};

class TimelineRecorder final : public engine::RunObserver {
public:
    void checkpoint_triggered(sim::Time t, int64_t id) override;
    void checkpoint_completed(sim::Time t, int64_t id, const engine::SourceOffsets& offsets) override;
    void checkpoint_aborted(sim::Time t, int64_t id, engine::CheckpointFailureReason reason, const std::string& detail) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t id, const engine::SourceOffsets& offsets) override;
    void failover(sim::Time t, int64_t attempt, const std::string& reason) override;
    void transaction_event(sim::Time t, const std::string& id, const char* what) override;
    void likely_data_loss(sim::Time t, const std::string& id, const std::string& why) override;
    void connector_event(sim::Time begin, sim::Time end, const std::string& lane, const std::string& what,
                         const std::string& detail) override;
    void job_finished(sim::Time t) override;
    void job_failed(sim::Time t, const std::string& reason) override;

    void add(TimelineEvent event) { events_.push_back(std::move(event)); }
    std::vector<TimelineEvent> take() { return std::move(events_); }

private:
    void record(sim::Time t, const char* lane, std::string what, std::string detail);
    std::vector<TimelineEvent> events_;
};

}  // namespace eosim::scenarios
