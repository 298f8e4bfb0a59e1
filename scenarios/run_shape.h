#pragma once
// An abstraction of one run's event order, for `eosim explore --strategy guided`: the
// order in which checkpoints and transactions happened, as Mallory (CCS 2023) summarises a
// distributed run by its happens-before order rather than by lines covered.
//
// Symbols, in the order the engine tells them (engine/vocabulary/run_observer.h): the job's
// checkpoint events (T triggered, S savepoint triggered, C completed, A:<reason> aborted), F a
// failover, R a restore, and per transactional id its transaction events (begun, precommitted,
// committed, aborted, aborted-lingering, lost). Keys are trigrams: "job:T>C>T" over the job's
// stream, "txn:begun>precommitted>committed" over each transactional id's own stream (ids are
// abstracted away: the key says what happened to some subtask's transaction, not to which), and
// "txn@job:<job symbol>>" what the first transaction event after a job event was. A run's shape is
// the set of its keys; a guided input is kept when its shape (with the fault x phase coverage)
// holds a key no earlier run had.
//
// What it does not do: change the run (an observer never does), or count how often a key
// happened (a set: the corpus wants new situations, not more of the same).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/vocabulary/run_observer.h"

namespace eosim::scenarios {

class RunShapeObserver final : public engine::RunObserver {
public:
    void checkpoint_triggered(sim::Time, int64_t, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time, int64_t, const engine::SourceOffsets&) override;
    void checkpoint_aborted(sim::Time, int64_t, engine::CheckpointFailureReason reason,
                            const std::string&) override;
    void restore_started(sim::Time, int64_t, int64_t checkpoint_id,
                         const engine::SourceOffsets&) override;
    void failover(sim::Time, int64_t, const std::string&) override;
    void transaction_event(sim::Time, const std::string& transactional_id,
                           const char* what) override;
    void likely_data_loss(sim::Time, const std::string& transactional_id,
                          const std::string&) override;

    // The run's shape so far: every trigram key seen.
    const std::set<std::string>& keys() const { return keys_; }

private:
    struct Stream {
        std::string previous[2];  // the last two symbols, oldest first ("" before any)
    };
    void job_event(const std::string& symbol);
    void append(Stream& stream, const std::string& prefix, const std::string& symbol);

    Stream job_;
    std::map<std::string, Stream> transactions_;  // by transactional id (ordered: no address order)
    std::string last_job_symbol_;
    bool transaction_since_job_event_ = true;
    std::set<std::string> keys_;
};

}  // namespace eosim::scenarios
