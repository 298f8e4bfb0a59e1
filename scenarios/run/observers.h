#pragma once
// Step 2 of a run, beside the deployments: the observers that record what the engine tells the
// harness -- the job's history, the timeline, the checkpoint statistics, the progress watch (for
// cutting a hung run) and the coverage of fault x phase combinations -- and the fan-out that hands
// every notification to them and to the oracles.
#include <functional>
#include <vector>

#include "engine/vocabulary/run_observer.h"
#include "scenarios/checkpoint_stats.h"
#include "scenarios/coverage.h"
#include "scenarios/deployment_run.h"
#include "scenarios/job_history.h"
#include "scenarios/placement_history.h"
#include "scenarios/run/back_pressure.h"
#include "scenarios/run/committed_cuts.h"
#include "scenarios/timeline.h"

namespace eosim::scenarios {

// Hands every engine notification to each observer, in the order they were added.
class ObserverFanout final : public engine::RunObserver {
public:
    void add(engine::RunObserver* observer) { observers_.push_back(observer); }
    // A job that finishes while `hands_over` says another deployment follows (stopped with a
    // savepoint for it): only `history` and `timeline` hear that this cluster finished; the run
    // goes on.
    void set_hand_over(std::function<bool()> hands_over, std::vector<engine::RunObserver*> history);

    void checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time t, int64_t id,
                              const engine::SourceOffsets& offsets) override;
    void checkpoint_aborted(sim::Time t, int64_t id, engine::CheckpointFailureReason reason,
                            const std::string& detail) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override;
    void attempt_deployed(sim::Time t, int64_t attempt,
                          const std::vector<engine::SubtaskPlacement>& placement) override;
    void keyed_state_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                              int32_t subtask, const std::map<int64_t, int64_t>& state) override;
    void keyed_cells_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                              int32_t subtask,
                              const std::map<engine::StateKey, int64_t>& cells) override;
    void channel_state_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                                int32_t subtask,
                                const std::vector<engine::InFlightRecords>& in_flight) override;
    void task_checkpoint_stats(sim::Time t, const engine::TaskCheckpointStats& stats) override;
    void task_checkpoint_acknowledged(sim::Time t, int64_t id, const std::string& vertex,
                                      int32_t subtask) override;
    void failover(sim::Time t, int64_t attempt, const std::string& reason) override;
    void transaction_event(sim::Time t, const std::string& id, const char* what) override;
    void likely_data_loss(sim::Time t, const std::string& id, const std::string& why) override;
    void connector_event(sim::Time begin, sim::Time end, const std::string& lane,
                         const std::string& what, const std::string& detail) override;
    void watermark_advanced(sim::Time t, int64_t attempt, const std::string& vertex,
                            int32_t subtask, int64_t watermark) override;
    void job_suspended(sim::Time t, const std::string& why) override;
    void job_manager_lost(sim::Time t, int64_t attempt, const std::string& why) override;
    void source_read(sim::Time t, int64_t attempt, const std::string& vertex, int32_t subtask,
                     int64_t records) override;
    void source_stopped_for_savepoint(sim::Time t, int64_t attempt, const std::string& vertex,
                                      int32_t subtask, int64_t savepoint_id,
                                      const engine::SourceOffsets& position) override;
    void source_restored(sim::Time t, int64_t attempt, const std::string& vertex, int32_t subtask,
                         int64_t checkpoint_id, const engine::SourceOffsets& position) override;
    void savepoint_completed(sim::Time t, const std::string& path) override;
    void closed_sink_timer_fired(sim::Time t, const std::string& vertex, int32_t subtask,
                                 sim::Time closed_at) override;
    void job_finished(sim::Time t) override;
    void job_failed(sim::Time t, const std::string& reason) override;

private:
    template <typename F>
    void each(F&& f) {
        for (engine::RunObserver* o : observers_) f(o);
    }
    std::vector<engine::RunObserver*> observers_;
    std::function<bool()> hands_over_;
    std::vector<engine::RunObserver*> history_;
};

// Progress for cutting a hung run: when a checkpoint last completed or a transaction committed.
class ProgressWatch final : public engine::RunObserver {
public:
    void checkpoint_completed(sim::Time t, int64_t checkpoint_id,
                              const engine::SourceOffsets& offsets) override;
    void transaction_event(sim::Time t, const std::string& transactional_id,
                           const char* what) override;
    sim::Time last() const { return last_; }

private:
    sim::Time last_ = sim::Time::zero();
};

// The run's own observers, fanned out with `extra` (RunOptions::observer, may be null) and, later,
// the oracles.
struct RunObservers {
    ObserverFanout fanout;
    JobHistory history;  // first: the others ask it for names
    TimelineRecorder timeline{&history};
    CheckpointStatsTracker checkpoint_stats{&history};
    PlacementHistory placements{&history};
    ProgressWatch progress;
    CoverageTracker coverage;  // hears protocol points and fired faults (PlannedFaults wires it)
    BackPressureSampler back_pressure;  // the run loop has it sample between events
    CommittedCuts committed;  // what a failed job committed (the output oracles judge it then)

    explicit RunObservers(engine::RunObserver* extra);
    RunObservers(const RunObservers&) = delete;
    RunObservers& operator=(const RunObservers&) = delete;
    // A job stopped with a savepoint for the next deployment has not finished the run.
    void follow(const DeploymentRun& deployments);
};

}  // namespace eosim::scenarios
