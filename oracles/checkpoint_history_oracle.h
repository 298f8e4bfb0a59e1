#pragma once
// Checkpoint history: what the engine tells the harness about checkpoints and JobManagers adds up,
// so that the history a user reads (scenarios/checkpoint_stats.h, scenarios/job_history.h) is
// whole:
// - every checkpoint (or savepoint) triggered ends -- completed, aborted by its coordinator, or
// lost
//   with the JobManager that ran it (RunObserver::job_manager_lost, which ends the checkpoints in
//   flight that the lost JobManager triggered: those triggered while an attempt of its ran) -- by
//   the end of a run whose job finished (a run cut short, or a job that failed, is not judged on
//   this: its last checkpoints may be under way, e.g. a metadata write the failure left to settle;
//   they are counted);
// - no attempt restores a checkpoint its coordinator aborted (the sinks aborted its transactions on
//   notifyCheckpointAborted: restoring it loses their records).
// Reports as figures the JobManager losses told and the checkpoints restored that no JobManager
// completed (the one completing them was lost; the next found them in the store or storage): a
// warning in the reports, not a violation.
//
// Does not check: the checkpoints' content (state_after_restore, storage do), their timing.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "oracles/oracle.h"

namespace eosim::oracles {

class CheckpointHistoryOracle final : public Oracle {
public:
    const char* name() const override { return "checkpoint_history"; }
    Verdict verdict() const override;
    // The run was cut before the job finished or failed: checkpoints still under way are not
    // judged.
    void set_run_cut() { run_cut_ = true; }

    void checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time t, int64_t id,
                              const engine::SourceOffsets& offsets) override;
    void checkpoint_aborted(sim::Time t, int64_t id, engine::CheckpointFailureReason reason,
                            const std::string& detail) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override;
    void job_manager_lost(sim::Time t, int64_t attempt, const std::string& why) override;
    void job_finished(sim::Time) override { finished_ = true; }

private:
    struct InFlight {
        sim::Time triggered;
        int64_t job_manager;  // the JobManager that triggered it: its attempts' number / 1000
    };
    std::map<int64_t, InFlight> in_flight_;  // triggered, not ended
    int64_t job_manager_ = -1;               // the JobManager running the current attempt
    std::set<int64_t> completed_;
    std::set<int64_t> aborted_;
    int64_t job_managers_lost_ = 0;
    std::set<int64_t> lost_;                       // ended by a JobManager's loss
    int64_t restored_uncompleted_ = 0;             // restored, never completed nor aborted
    std::optional<std::string> restored_aborted_;  // the first restore of an aborted checkpoint
    bool run_cut_ = false;
    bool finished_ = false;
};

}  // namespace eosim::oracles
