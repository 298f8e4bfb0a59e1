#pragma once
// The Kafka sink, after Flink's KafkaSink, with delivery guarantee none, at-least-once or
// exactly-once.
//
// Exactly-once: one transaction per checkpoint, transactional.id `prefix-subtask-N`. Pre-commit at
// the barrier checks every write and puts the pending transaction into the snapshot; commit on
// checkpoint_complete(N) of every pending transaction up to N, in order; a commit answered with a
// retriable error (broker unreachable, coordinator moving, CONCURRENT_TRANSACTIONS, a request
// timeout whose outcome is unknown) is retried after the commit retry delay, as Flink's
// KafkaCommitter asks for retryLater -- a retried commit of a transaction the broker already
// committed succeeds. A commit refused for good (PRODUCER_FENCED: the broker aborted the
// transaction on timeout and fenced its epoch, or a newer producer took the id; invalid_txn_state)
// is reported as likely data loss, as Flink's committer logs it (timeline "txn.lost", figure
// transactions_lost). On restore: commit the transactions found in every state the subtask was
// given, then list the ongoing transactions of the ids of its own subtask index, of every subtask
// whose state it was given and of every other subtask index that restoring_subtask maps to it (one
// that ran after the restored checkpoint, e.g. after a scale-out, left no state) (Kafka's
// ListTransactions, KIP-664, as Flink's Kafka connector 4.x does) and abort every one above the
// restored checkpoint (timeline "txn.aborted-lingering"): no completed checkpoint holds those,
// while an open one at or below it is held by a restored state -- after rescales possibly another
// subtask's -- and committed from there, as Flink's TransactionAborter aborts from the restored
// checkpoint + 1 on. On a scale-in a remaining subtask gets the removed subtasks' states (old
// subtask j goes to j % parallelism, engine/connectors/sink.h), so it commits their pre-committed
// transactions and aborts their lingering ones, as Flink's KafkaWriter probes the ids of subtask,
// subtask + parallelism, ... Ids are not contiguous (a checkpoint that never reached the subtask
// leaves its id unused), so the older probe of ids N+1, N+2, ... until an unused one (Flink's
// FlinkKafkaProducer / TransactionAborter) could stop before a lingering transaction; listing
// cannot. A failed listing fails the task (the restart retries).
//
// At-least-once and none: appends at once, by an idempotent producer unless "idempotence" is false;
// at-least-once fails the checkpoint when a write failed, none ignores failed writes. Every write
// goes through a producer client (sim/external/kafka_producer_client.h) that numbers its batches
// and sends a request again when its answer was lost.
//
// Registered as sink kind "kafka"; options: "topic" (required, a topic of the world that no source
// reads), "guarantee" ("none" | "at_least_once" | "exactly_once", default exactly_once),
// "transactional_id_prefix" (default: the vertex id; unique among every job writing to the cluster:
// the restore aborts every ongoing transaction of `prefix-subtask-N`), "idempotence" (default true;
// false only with at_least_once or none, as Kafka refuses transactions without it),
// "transaction_timeout_ms" (the producer's transaction.timeout.ms, Flink's knob in the sink's
// producer properties; default: the broker's maximum, world.kafka.transaction_timeout, which is
// Kafka's transaction.max.timeout.ms; above it the broker refuses the producer, as Kafka answers
// InvalidTxnTimeout, and every attempt's sink fails), "settled_early"
// (default false; a negative control: settled() while commits are outstanding).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "engine/connectors/sink_registry.h"
#include "engine/vocabulary/job_spec.h"
#include "sim/external/kafka.h"
#include "sim/external/kafka_producer_client.h"

namespace eosim::engine {

struct KafkaSinkOptions {
    std::string topic;
    DeliveryGuarantee guarantee = DeliveryGuarantee::exactly_once;
    std::string transactional_id_prefix;  // never empty once configured
    // enable.idempotence: sequence numbers on every batch, so that a request sent again after its
    // answer was lost is not written twice. Only at_least_once and none may turn it off (a
    // negative control: duplicates without any failover).
    bool idempotence = true;
    std::optional<sim::Duration> transaction_timeout =
        std::nullopt;  // transaction.timeout.ms; none: the broker's maximum
    // A negative control (a planted slip): the sink reports itself settled while a commit is still
    // outstanding, so its finished task stops before a refused commit of its final checkpoint is
    // retried. Only with exactly_once.
    bool settled_early = false;
};

// The configured sink kind (what a scenario's "options" become); tests make one directly.
class KafkaSinkConfig final : public SinkConfig {
public:
    explicit KafkaSinkConfig(KafkaSinkOptions options) : options_(std::move(options)) {}
    const KafkaSinkOptions& options() const { return options_; }
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig& runtime) const override;
    std::vector<Record> read_output(const OutsideSystems& systems) const override;
    // read_output's records handed one by one, without a copy of the whole topic (for big runs).
    void for_each_output(const OutsideSystems& systems,
                         const std::function<void(const Record&)>& visit) const;
    std::string kafka_topic() const override { return options_.topic; }
    std::vector<std::string> claims() const override;
    // sink.precommitted, sink.committed, sink.recovered: with guarantee exactly_once only.
    std::vector<std::string_view> announced_points() const override;

private:
    KafkaSinkOptions options_;
};

// Not final: the tests derive deliberately broken committers from it (retry_commit).
class KafkaSink : public Sink {
public:
    KafkaSink(const KafkaSinkOptions& options, SinkContext& context,
              sim::external::KafkaCluster& kafka, const RuntimeConfig& runtime);

    bool open(int64_t restored_checkpoint_id,
              const std::vector<RestoredSinkState>& restored) override;
    void write(const RecordBatch& records) override;
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override;
    void checkpoint_complete(int64_t checkpoint_id) override;
    bool settled() const override { return options_.settled_early || pending_.empty(); }
    void close() override;

protected:
    // Whether a commit answered with `error` (never none) is retried later rather than given up.
    virtual bool retry_commit(sim::external::KafkaError error) const {
        return sim::external::is_retriable(error);
    }

private:
    struct Pending {
        int64_t checkpoint_id;
        sim::external::ProducerHandle producer;
    };

    std::string transactional_id(int64_t checkpoint_id) const;
    bool begin_transaction(int64_t checkpoint_id);
    // Aborts the open transaction at close, retried after commit_retry_delay while refused with a
    // retriable error.
    void abort_open_transaction();
    // Aborts the ongoing transactions (of `ongoing`, our prefix's) of `subtask`'s ids above the
    // restored checkpoint.
    bool abort_lingering(int32_t subtask, int64_t restored_checkpoint_id,
                         const std::vector<std::string>& ongoing);
    // The subtask index in one of our transactional ids, or -1 when it is not one of ours.
    int32_t subtask_of(const std::string& id) const;
    // Commits pending transactions up to `checkpoint_id`; false when one must be retried later.
    bool commit_up_to(int64_t checkpoint_id);
    void schedule_commit_retry();

    const KafkaSinkOptions& options_;
    SinkContext& context_;
    sim::external::KafkaCluster& kafka_;
    const RuntimeConfig& runtime_;
    int32_t partitions_;
    std::vector<std::pair<int32_t, sim::external::KafkaRecord>>
        outgoing_;                               // reused buffer for a write
    sim::external::KafkaProducerClient client_;  // sequence numbers and retries of every write
    bool client_ready_ = false;                  // at_least_once / none: the producer id taken
    sim::external::KafkaError write_error_ = sim::external::KafkaError::none;
    sim::external::ProducerHandle current_;  // exactly-once: the open transaction
    std::vector<Pending> pending_;           // pre-committed, not yet committed; ascending ids
    int64_t commit_target_ = 0;              // the highest checkpoint known complete
    bool retry_scheduled_ = false;
};

}  // namespace eosim::engine
