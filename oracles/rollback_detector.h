#pragma once
// Rollbacks: restores older than what an exactly-once sink already committed. Flink restores the
// snapshot it is given -- `flink run -s` with an old savepoint or retained checkpoint, a fresh
// start without state, a JobManager without HA submitting the job again from its initial savepoint
// -- and an exactly-once sink then commits again, in new transactions, the output of every record
// past the snapshot that it had committed before. Each deployment is exactly-once from its own
// snapshot on (the reference model follows each over its own range), so no output oracle fails:
// this detector names each rollback for the reports (a warning), and `no_rollbacks` fails a run
// that has one.
//
// Checks: every restore (a deployment's start and every failover's) against the transactions each
// exactly-once Kafka sink committed: a commit whose checkpoint's source offsets are past the
// restored snapshot's on some split is rolled back. Per sink: the newest such checkpoint, and the
// records those transactions held (what the sink emits again). A committed transaction counts at
// the first rollback past it only.
// Does not check: other sinks (an idempotent or upsert sink absorbs a replay; an at-least-once one
// duplicates anyway), a verification job's restores (it writes throw-away topics), a checkpoint
// whose sink subtasks were only partly committed when the restore came (its committed part counts).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/run_observer.h"
#include "sim/external/kafka.h"

namespace eosim::oracles {

// One sink's share of a rollback.
struct RolledBackSink {
    std::string sink;                // its vertex id
    int64_t checkpoint = 0;          // the newest committed checkpoint the restore rolls back
    std::string deployment;          // the deployment that committed it ("v2")
    int64_t records_re_emitted = 0;  // records its rolled-back transactions held
};

struct Rollback {
    double at_s = 0;                  // when the restore started
    std::string deployment;           // the deployment restoring ("v3")
    std::string attempt;              // its attempt ("v3/1")
    std::string restored;             // "savepoint 13", "checkpoint 12", "nothing (from scratch)"
    int64_t restored_checkpoint = 0;  // the snapshot's id (0: nothing)
    int64_t rolled_back_checkpoint =
        0;  // the newest committed checkpoint rolled back, over the sinks
    std::string rolled_back_deployment;  // the deployment that committed it
    std::vector<RolledBackSink> sinks;   // the sinks rolled back, in the job's order
    int64_t records_re_emitted() const;
    // "v3/1 restored savepoint 13 at 10.200s, older than checkpoint 25 (v2) whose transactions were
    // committed: sink 'sink' re-emits 4000 committed records"
    std::string describe() const;
};

class RollbackDetector final : public engine::RunObserver {
public:
    // What the run calls an attempt (scenarios/job_history.h) and what it restores.
    struct AttemptNames {
        std::string deployment;  // "v3"
        std::string attempt;     // "v3/1"
        std::string restored;    // "savepoint 13"
        bool verification = false;
    };
    using Naming = std::function<AttemptNames(int64_t attempt, int64_t restored_id)>;

    // `sinks`: every sink the run may deploy (the exactly-once Kafka ones are watched); `kafka` may
    // be null (no Kafka: nothing to watch). Both must outlive this.
    RollbackDetector(const sim::external::KafkaCluster* kafka,
                     const std::vector<const engine::VertexSpec*>& sinks, Naming naming);

    void checkpoint_completed(sim::Time t, int64_t id,
                              const engine::SourceOffsets& offsets) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override;
    void transaction_event(sim::Time t, const std::string& transactional_id,
                           const char* what) override;

    const std::vector<Rollback>& rollbacks() const { return rollbacks_; }

private:
    struct Commit {
        int64_t checkpoint = 0;
        std::string deployment;
        engine::SourceOffsets offsets;
        int64_t records = 0;
        int64_t sequence = 0;  // over every sink's commits
    };
    struct WatchedSink {
        std::string id;
        std::string prefix;           // transactional ids "<prefix>-<subtask>-<checkpoint>"
        std::vector<Commit> commits;  // not yet rolled back, in commit order
    };
    // The sink whose transactional id this is, and the id's checkpoint; null when none is watched.
    WatchedSink* sink_of(const std::string& transactional_id, int64_t* checkpoint);

    const sim::external::KafkaCluster* kafka_;
    Naming naming_;
    std::vector<WatchedSink> sinks_;
    std::map<int64_t, engine::SourceOffsets>
        completed_;  // checkpoint id -> its offsets (the newest completion)
    std::map<std::string, int64_t> precommitted_;  // transactional id -> its broker transaction
    std::string deployment_ = "v1";                // the deployment running now
    int64_t commits_ = 0;
    std::vector<Rollback> rollbacks_;
};

}  // namespace eosim::oracles
