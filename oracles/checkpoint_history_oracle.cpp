#include "oracles/checkpoint_history_oracle.h"

#include "oracles/oracle_registry.h"

namespace eosim::oracles {

using sim::seconds_text;

void CheckpointHistoryOracle::checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType) {
    in_flight_[id] = InFlight{t, job_manager_};
}

void CheckpointHistoryOracle::checkpoint_completed(sim::Time, int64_t id,
                                                   const engine::SourceOffsets&) {
    in_flight_.erase(id);
    completed_.insert(id);
}

void CheckpointHistoryOracle::checkpoint_aborted(sim::Time, int64_t id,
                                                 engine::CheckpointFailureReason,
                                                 const std::string&) {
    in_flight_.erase(id);
    aborted_.insert(id);
}

void CheckpointHistoryOracle::job_manager_lost(sim::Time, int64_t attempt, const std::string&) {
    ++job_managers_lost_;
    for (auto it = in_flight_.begin(); it != in_flight_.end();) {
        if (it->second.job_manager != attempt / 1000) {
            ++it;
            continue;
        }
        lost_.insert(it->first);
        it = in_flight_.erase(it);
    }
}

void CheckpointHistoryOracle::restore_started(sim::Time t, int64_t attempt, int64_t id,
                                              const engine::SourceOffsets&) {
    job_manager_ = attempt / 1000;
    if (id == 0 || completed_.contains(id)) return;
    if (aborted_.contains(id)) {
        if (!restored_aborted_) {
            restored_aborted_ =
                "attempt " + std::to_string(attempt) + " restores checkpoint " +
                std::to_string(id) + " at " + seconds_text(t) +
                ", which its coordinator aborted (the sinks aborted its transactions)";
        }
        return;
    }
    if (lost_.contains(id) || in_flight_.erase(id) != 0)
        ++restored_uncompleted_;  // else a snapshot of another job
}

Verdict CheckpointHistoryOracle::verdict() const {
    const std::string figures =
        std::to_string(completed_.size()) + " completed, " + std::to_string(aborted_.size()) +
        " aborted, " + std::to_string(lost_.size()) + " lost with " +
        std::to_string(job_managers_lost_) + " JobManager(s), " +
        std::to_string(restored_uncompleted_) + " restored though no JobManager completed it";
    if (restored_aborted_) return Verdict{false, *restored_aborted_ + " (" + figures + ")"};
    if (!in_flight_.empty() && finished_ && !run_cut_) {
        const auto& [id, first] = *in_flight_.begin();
        return Verdict{
            false,
            std::to_string(in_flight_.size()) +
                " checkpoint(s) never ended in the history; first: checkpoint " +
                std::to_string(id) + " triggered at " + seconds_text(first.triggered) +
                ", neither completed, aborted nor lost with a JobManager the engine told lost (" +
                figures + ")"};
    }
    if (!in_flight_.empty()) {
        return Verdict{true, figures + "; " + std::to_string(in_flight_.size()) +
                                 " under way when the job " + (run_cut_ ? "was cut" : "failed") +
                                 " (not judged)"};
    }
    return Verdict{true, "every checkpoint ended: " + figures};
}

OracleRegistration checkpoint_history_registration() {
    return {
        "checkpoint_history",
        "every checkpoint ends in the history (completed, aborted, or lost with its JobManager), none aborted is restored",
        [](const OracleJobFacts&) { return std::string(); },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            auto oracle = std::make_unique<CheckpointHistoryOracle>();
            CheckpointHistoryOracle* history = oracle.get();
            run.hooks.on_cut([history](const std::string&) { history->set_run_cut(); });
            return oracle;
        }};
}

}  // namespace eosim::oracles
