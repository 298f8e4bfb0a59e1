#pragma once
// Freshness: what a read_committed consumer of an exactly-once Kafka sink's topic waits for. Such a
// consumer reads up to the last stable offset, so one open transaction holding records stalls every
// record after it on that partition (FLINK-23854: lingering transactions not aborted on restore
// stall downstream jobs until the broker's transaction timeout). With `bound` the freshness bound:
// (a) at the end of a run that finished (or has no fault still active), no open transaction holds
//     records on the topic: every partition's last stable offset is its end;
// (b) once a checkpoint completes, every transaction pre-committed for it (or for an earlier one)
//     is committed within `bound`;
// (c) once a new attempt starts its restore, every transaction still open on the topic ends within
//     `bound`: the restored pre-committed ones (checkpoint <= the restored one) are committed, all
//     others (lingering ones of earlier attempts and zombies) are aborted;
// (d) a transaction holds records for at most `bound` before its checkpoint is triggered: the
//     checkpoint interval is what makes read_committed consumers wait, and a job that needs its
//     output within `bound` cannot checkpoint more rarely.
// A window of (b), (c) or (d) that a fault's effect overlaps is excused (the fault may block the
// path; a restore starts a new window for (c)), and so is a (d) window in which a checkpoint was
// aborted. A window that reaches past the end of the run is judged only by (a). A job that fails
// as the scenario expects ({"job_failure": ...}) is not judged by (a): what it left open (its
// pre-committed transactions await a restore, Flink's committer being gone) blocks readers until
// the broker's transaction timeout by design; (b) to (d) judge it up to the failure.
// A violation names the partition, the blocking transaction and how long it blocked.
//
// Does not check: the content of the output (the output oracles do), what a reader is handed (the
// visibility oracle does), or sinks other than Kafka's exactly-once sink.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "oracles/oracle.h"
#include "sim/external/kafka.h"

namespace eosim::oracles {

class FreshnessOracle final : public Oracle {
public:
    // Whether some fault's effect overlaps [from, to] (asked at the end of the run).
    using FaultDuring = std::function<bool(sim::Time from, sim::Time to)>;

    FreshnessOracle(const sim::external::KafkaCluster& kafka, std::string topic,
                    sim::Duration bound, FaultDuring fault_during, std::function<sim::Time()> now);
    const char* name() const override { return "freshness"; }
    Verdict verdict() const override;

    void checkpoint_triggered(sim::Time t, int64_t checkpoint_id, engine::SnapshotType) override;
    void checkpoint_completed(sim::Time t, int64_t checkpoint_id,
                              const engine::SourceOffsets&) override;
    void checkpoint_aborted(sim::Time t, int64_t, engine::CheckpointFailureReason,
                            const std::string&) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t checkpoint_id,
                         const engine::SourceOffsets&) override;
    void transaction_event(sim::Time t, const std::string& transactional_id,
                           const char* what) override;
    void job_finished(sim::Time) override { finished_ = true; }
    // The job failed as the scenario expects (OracleRunHooks::on_job_failed): (a) is not judged.
    void expect_failure() { failure_expected_ = true; }
    // The protocol point sink.precommitted (the runner forwards it): binds the transaction the
    // sink just reported pre-committed to `checkpoint_id`.
    void precommitted(sim::Time t, int64_t checkpoint_id);

    sim::Duration bound() const { return bound_; }

private:
    struct Precommitted {
        int64_t transaction;  // index in the broker's transaction table
        int64_t checkpoint_id;
    };
    // A window in which `transaction` must end (be committed, when `must_commit`).
    struct Obligation {
        int64_t transaction;
        sim::Time from;
        bool must_commit;
        std::string
            why;  // "checkpoint 7 completed", "the restore of attempt 3 (checkpoint 6) started"
    };

    std::string partitions_of(
        const sim::external::TransactionView& view) const;  // "output/0, output/3"
    std::string describe_blocking(int64_t transaction, const std::string& what, sim::Time from,
                                  sim::Time until) const;
    bool checkpoint_aborted_during(sim::Time from, sim::Time to) const;

    const sim::external::KafkaCluster& kafka_;
    std::string topic_;
    sim::Duration bound_;
    FaultDuring fault_during_;
    std::function<sim::Time()> now_;
    std::map<int64_t, sim::Time> triggered_;  // checkpoint id -> trigger time
    std::vector<sim::Time> aborted_at_;       // when checkpoints were aborted
    std::vector<Precommitted> precommitted_;  // in pre-commit order
    std::vector<size_t>
        awaiting_completion_;  // indices into precommitted_ whose checkpoint has not completed
    std::map<int64_t, int64_t>
        checkpoint_of_;  // transaction -> checkpoint it was pre-committed for
    std::vector<Obligation> obligations_;
    int64_t last_precommitted_ =
        -1;  // the transaction of the latest "precommitted" event, until its point
    bool finished_ = false;
    bool failure_expected_ = false;
};

}  // namespace eosim::oracles
