#pragma once
// A Kafka-like log with transactions, the outside system the job reads from and writes to.
//
// What is modelled (after Kafka's transactional protocol, KIP-98):
// - topics with partitions; each partition an append-only log with offsets;
// - plain (non-transactional) appends, visible at once;
// - transactional producers: a transactional.id with a producer id and an epoch. init_transactions
//   bumps the epoch, which fences every older producer of that id and aborts its open transaction;
// - begin / send / commit / abort; commit and abort are idempotent for the transaction they name,
//   for the producer epoch that owns it. As in Kafka's TransactionCoordinator (EndTxn, before
//   KIP-890's transaction version 2), any other epoch answers `fenced` (PRODUCER_FENCED): an older
//   one (a newer producer exists, even if the transaction was committed) or a larger one;
// - the broker aborts a transaction that stays *ongoing* longer than the transaction timeout,
//   counted from its first partition added (AddPartitionsToTxn; begin is client-side, so an empty
//   transaction never expires), and bumps the epoch as it does so (Kafka's "fence producer
//   epoch"): the old producer is fenced, the next init_transactions of the id gives epoch + 2.
//   The timeout is the producer's transaction.timeout.ms (init_transactions), at most the broker's
//   transaction.max.timeout.ms (KafkaOptions::transaction_timeout, also the timeout of a producer
//   that asks for none); a producer asking for more is refused (INVALID_TRANSACTION_TIMEOUT);
// - idempotent-producer sequence numbers per (producer id, partition): a batch already written
//   (one of the last five) is acknowledged again without being appended (a retried send), a batch
//   with a gap answers out_of_order_sequence, and so does a batch of an epoch never issued that
//   does not start at sequence 0 (the leader's check for a new epoch). Each partition keeps the
//   epoch it last saw per producer id, as Kafka's ProducerStateManager: a batch of an older epoch
//   answers invalid_producer_epoch (INVALID_PRODUCER_EPOCH, what a produce gets since Kafka 2.7), a
//   newer one must start at sequence 0 and then starts the sequence over, only a batch of the same
//   epoch is a duplicate of one written (an unknown producer's first batch must start at 0, where
//   Kafka accepts any sequence after retention removed its state: not modelled). A failed send (an
//   injected write failure, a sequence gap) makes the transaction abortable: it can no longer be
//   committed, and aborting it bumps the epoch (KIP-360: the client re-initialises with its own
//   producer id and epoch);
// - commit faults on their own: EndTxn (commit and abort) answering a retriable coordinator error
//   while produce and reads work (coordinator moving, CONCURRENT_TRANSACTIONS, a request timeout),
//   and EndTxn applied but answered with a request timeout (the outcome unknown to the caller);
// - read_committed readers read up to the last stable offset (the first offset of an open
//   transaction) and skip records of aborted transactions; read_uncommitted readers see everything.
// - idempotent producers without a transaction (init_producer_id: Kafka's default since 3.0) use
//   the same sequence numbers; plain appends (append, append_all) are a producer with
//   enable.idempotence=false, whose retried request is written again;
// - faults: the broker unavailable for a period; writes failing for a period; produce answers lost
//   for a period (written, answered request_timeout: the client retries); a switch that turns
//   fencing off (a negative control: zombies then write and commit); a switch that makes
//   read_committed ignore the last stable offset (a negative control for the visibility oracle);
//   a switch that restarts the timeout check at every write (a negative control: a transaction
//   kept busy past the timeout, Flink's documented misconfiguration, then never expires).
//   With fencing off, epochs are not checked: every producer of a transactional.id acts on the id's
//   open transaction, so a zombie's writes land in its successor's transaction (and a successor
//   continues a transaction its predecessor left open) — what fencing exists to prevent.
//
// Calls are synchronous (the answer is known at once) but are made on behalf of a node: a call
// from a node that is down, or that a partition separates from the broker, fails with
// `unavailable`, as it would after a client timeout.
//
// Not modelled (see sim/external/README.md): replication, leader election, consumer groups and
// sendOffsetsToTransaction, transaction markers taking offsets, the prepare states (PrepareCommit:
// EndTxn is synchronous here), KIP-890's epoch bump on every EndTxn, the
// coordinator's timeout check period (a transaction expires exactly at its timeout here), and
// latency of individual calls.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/external/kafka_record.h"
#include "sim/external/kafka_txn_state.h"
#include "sim/external/partition_log.h"
#include "sim/network.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

enum class KafkaError : uint8_t {
    none,
    unavailable,        // broker unreachable or down, or the caller is down: retriable
    write_failed,       // an injected write failure: retriable
    fenced,             // PRODUCER_FENCED: the handle's epoch is not the id's current one
    invalid_txn_state,  // e.g. committing a transaction the broker already aborted
    unknown_topic,
    invalid_producer_id_mapping,  // the handle's producer id is not the transactional.id's
    not_coordinator,  // EndTxn reached a broker that is no longer the coordinator: retriable
    concurrent_transactions,  // CONCURRENT_TRANSACTIONS: the coordinator is busy with the id:
                              // retriable
    request_timeout,  // no answer in time; the request may or may not have been applied: retriable
    out_of_order_sequence,  // OUT_OF_ORDER_SEQUENCE_NUMBER: a gap in the batch's sequence numbers
    transaction_abortable,  // an earlier send of this transaction failed: only abort is allowed
    invalid_transaction_timeout,  // INVALID_TRANSACTION_TIMEOUT: the producer's timeout is above
                                  // the broker's maximum
    invalid_producer_epoch,       // INVALID_PRODUCER_EPOCH: a produce with an epoch older than the
                                  // partition's
};
const char* to_string(KafkaError error);
// The errors after which a caller retries the same request (Kafka's RetriableException family).
bool is_retriable(KafkaError error);

enum class Isolation : uint8_t { read_committed, read_uncommitted };

// What a transactional producer holds; what a two-phase-commit sink puts into its checkpoint.
struct ProducerHandle {
    std::string transactional_id;
    int64_t producer_id = -1;
    int32_t epoch = -1;
    auto operator<=>(const ProducerHandle&) const = default;
};

// Fault and behaviour knobs. Every default means "correct Kafka, no fault".
struct KafkaOptions {
    // The broker's transaction.max.timeout.ms: the largest transaction timeout a producer may ask
    // for, and the timeout of a producer that asks for none.
    Duration transaction_timeout = Duration::seconds(60);
    bool fencing = true;  // false: a negative control, never in a passing scenario
    bool read_committed_ignores_lso = false;  // true: a negative control for the visibility oracle
    // true: a negative control (a planted slip): the broker's timeout check restarts at every write
    // of the transaction, so a transaction kept busy longer than the timeout is never aborted.
    bool timer_restarts_on_write = false;
};

struct ReadResult {
    struct Entry {
        int64_t offset;
        KafkaRecord record;
        int64_t transaction;  // index into the broker's transaction table, or -1 for a plain append
    };
    KafkaError error = KafkaError::none;
    std::vector<Entry> entries;
    int64_t next_offset = 0;  // where the next read should start
};

// One transaction as an oracle sees it (the broker's transaction table; not for the engine).
struct TransactionView {
    std::string transactional_id;
    TxnState state = TxnState::empty;
    Time started;
    Time first_record = Time::never();  // when it first held a record; never when it holds none
    Time ended = Time::never();         // when it was committed or aborted; never while open
    std::vector<std::pair<std::string, int32_t>>
        partitions;  // (topic, partition) it holds records on
    int64_t records =
        0;  // records written in it (a retried batch the broker acknowledged as a duplicate once)
    Duration timeout;      // its producer's transaction timeout
    bool expired = false;  // the broker aborted it at its timeout
};

struct KafkaStats {
    uint64_t transactions_begun = 0;
    uint64_t transactions_committed = 0;
    uint64_t transactions_aborted = 0;
    uint64_t aborted_by_timeout = 0;
    uint64_t fenced_calls = 0;
    uint64_t commit_errors = 0;  // EndTxn calls answered with an injected retriable error
    uint64_t commit_outcomes_unknown =
        0;                           // EndTxn calls applied but answered with a request timeout
    uint64_t duplicate_batches = 0;  // retried batches acknowledged without being appended again
    uint64_t out_of_order_batches = 0;
    uint64_t invalid_epoch_batches = 0;  // produce batches of an epoch older than their partition's
    uint64_t produce_acks_lost =
        0;  // produce requests written whose answer was lost (request_timeout)
    uint64_t fenced_writes =
        0;  // of fenced_calls: sends of a superseded producer (a zombie writing)
};

class KafkaCluster {
public:
    KafkaCluster(Scheduler& scheduler, Network& network, NodeId broker, KafkaOptions options);

    NodeId broker() const { return broker_; }
    void create_topic(const std::string& topic, int32_t partitions);
    int32_t partitions(const std::string& topic) const;  // 0 when the topic does not exist

    // Plain produce: visible to every reader at once. Returns the offset or an error.
    KafkaError append(NodeId caller, const std::string& topic, int32_t partition,
                      KafkaRecord record, int64_t* offset = nullptr);
    // Plain produce of records (partition, record) in one request, in order: all are appended, or
    // none and the error says why.
    KafkaError append_all(NodeId caller, const std::string& topic,
                          const std::vector<std::pair<int32_t, KafkaRecord>>& records);

    // Fences older producers of the id, aborts their open transaction, returns the new handle.
    // `handle->epoch == 0` tells the id was never used before (how lingering transactions are
    // probed). `transaction_timeout`: the producer's transaction.timeout.ms (none: the broker's
    // maximum), for the transactions it begins from then on; above the maximum:
    // invalid_transaction_timeout.
    KafkaError init_transactions(NodeId caller, const std::string& transactional_id,
                                 ProducerHandle* handle,
                                 std::optional<Duration> transaction_timeout = std::nullopt);
    // ListTransactions (KIP-664) filtered to the Ongoing state, with the filter on the id's prefix
    // applied here (as a client does with the answer): the transactional ids whose current producer
    // has an open transaction and that start with `prefix`, in id order. Reachability as every
    // call.
    KafkaError list_transactions(NodeId caller, const std::string& prefix,
                                 std::vector<std::string>* ongoing) const;
    KafkaError begin(NodeId caller, const ProducerHandle& producer);
    KafkaError send(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                    int32_t partition, KafkaRecord record);
    // Sends records (partition, record) in order within the open transaction: all or, on error,
    // none. The client assigns each partition's part its next sequence numbers, so it is never a
    // duplicate nor out of order. A write failure makes the transaction abortable. Kept for tests:
    // sends through produce_request with the sequence numbers the broker expects.
    KafkaError send_batch(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                          const std::vector<std::pair<int32_t, KafkaRecord>>& records);
    // InitProducerId without a transactional.id: an idempotent producer (Kafka's default since 3.0,
    // enable.idempotence=true), a new producer id at epoch 0; its handle's transactional_id is
    // empty.
    KafkaError init_producer_id(NodeId caller, ProducerHandle* handle);
    // One produce request as a client sends it: a batch per partition that `records` names
    // (partitions in order of first appearance, records in order), the batch of partition p
    // starting at the client's sequence number `sequences[p]`. A transactional producer writes into
    // its open transaction, an idempotent one (init_producer_id) appends. Every batch is checked
    // before any is written, so the request lands whole or not at all: a batch equal to one of the
    // last five written on its partition (a retry after a lost answer) is acknowledged and not
    // written again; any other sequence but the next answers out_of_order_sequence (and makes a
    // transaction abortable). With set_produce_acks_lost_until, a request may be written and
    // answered request_timeout: the client sends the same request again (KafkaProducerClient).
    KafkaError produce_request(NodeId caller, const ProducerHandle& producer,
                               const std::string& topic,
                               const std::vector<std::pair<int32_t, KafkaRecord>>& records,
                               std::span<const int32_t> sequences);
    // One produce request to one partition as the client puts it on the wire, with the batch's
    // first sequence number (per producer id and partition, from 0 for each epoch). A batch equal
    // to one of the last five written is acknowledged with its original offset and not appended (a
    // retried send); any other sequence but the next answers out_of_order_sequence and makes the
    // transaction abortable.
    KafkaError produce(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                       int32_t partition, int32_t base_sequence,
                       const std::vector<KafkaRecord>& records, int64_t* base_offset = nullptr);
    // The sequence number the broker expects next from this producer on this partition.
    int32_t next_sequence(const ProducerHandle& producer, const std::string& topic,
                          int32_t partition) const;
    // Commits/aborts the open transaction of `producer` (the handle may come from a checkpoint:
    // Flink's "resume transaction"). Committing an already committed transaction succeeds (for the
    // epoch that owns it); committing one the broker aborted fails with invalid_txn_state; any
    // other epoch than the id's current one with fenced; an abortable transaction cannot be
    // committed (transaction_abortable). Aborting an abortable transaction bumps the epoch: the
    // new handle goes to `*bumped` when given (the same client carries on with it).
    KafkaError commit(NodeId caller, const ProducerHandle& producer);
    KafkaError abort(NodeId caller, const ProducerHandle& producer,
                     ProducerHandle* bumped = nullptr);

    ReadResult read(NodeId caller, const std::string& topic, int32_t partition, int64_t from_offset,
                    size_t max_records, Isolation isolation) const;
    // What read(caller, topic, partition, from_offset, SIZE_MAX, read_committed) hands a reader,
    // without building its entries: the same error and next offset, how many entries, and the first
    // of them whose transaction is not committed (a plain append counts as committed), if any. For
    // an oracle that polls a topic throughout a run (the visibility oracle).
    struct CommittedReadSummary {
        KafkaError error = KafkaError::none;
        int64_t next_offset = 0;
        int64_t entries = 0;
        std::optional<ReadResult::Entry> first_uncommitted;
    };
    CommittedReadSummary read_committed_summary(NodeId caller, const std::string& topic,
                                                int32_t partition, int64_t from_offset) const;
    // The same read without collecting: each entry `read` would return goes to `visit(entry)`, in
    // offset order (a source poll appends them straight to its buffer: no vector a poll). Returns
    // the error (nothing is visited then); `*next_offset` is where the next read should start.
    template <typename Visit>
    KafkaError read_each(NodeId caller, const std::string& topic, int32_t partition,
                         int64_t from_offset, size_t max_records, Isolation isolation,
                         int64_t* next_offset, Visit&& visit) const {
        *next_offset = from_offset;
        const Partition* p = nullptr;
        int64_t bound = 0;
        if (KafkaError e = readable(caller, topic, partition, isolation, &p, &bound);
            e != KafkaError::none)
            return e;
        *next_offset = visit_entries(*p, bound, from_offset, max_records, isolation, visit);
        return KafkaError::none;
    }
    // The high watermark (read_uncommitted) or the last stable offset (read_committed).
    int64_t end_offset(const std::string& topic, int32_t partition, Isolation isolation) const;

    // Faults.
    void set_unavailable_until(Time until) { unavailable_until_ = until; }
    void set_write_failures_until(Time until) { write_failures_until_ = until; }
    // Calls refused because of set_unavailable_until / set_write_failures_until (what those faults
    // hit).
    uint64_t calls_refused_by_fault() const { return refused_by_fault_; }
    void set_fencing(bool on) { options_.fencing = on; }
    // EndTxn (commit, abort) answers a retriable coordinator error and does nothing until `until`
    // (not_coordinator, concurrent_transactions, request_timeout in turn); produce and reads work.
    void set_commit_errors_until(Time until) { commit_errors_until_ = until; }
    // EndTxn is applied but answered with request_timeout until `until`.
    void set_commit_outcome_unknown_until(Time until) { commit_outcome_unknown_until_ = until; }
    // Produce requests (idempotent, transactional and plain appends) are written but every other
    // answer is lost (request_timeout) until `until`: the client retries, and only idempotence
    // keeps the retry from writing the records twice.
    void set_produce_acks_lost_until(Time until) { produce_acks_lost_until_ = until; }
    // Aborts every open transaction now and fences its producer, as the broker would on timeout.
    void abort_open_transactions();

    // Narrow views for oracles (not for the engine).
    TxnState transaction_state(int64_t transaction) const {
        return transactions_.at(transaction).lifecycle.state();
    }
    // Every record a read_committed reader would eventually see, partition by partition.
    std::vector<KafkaRecord> committed_records(const std::string& topic) const;
    // The same records handed one by one (no copy of the whole topic), and how many there are.
    void for_each_committed(const std::string& topic,
                            const std::function<void(const KafkaRecord&)>& visit) const;
    size_t committed_count(const std::string& topic) const;
    // A digest of every topic's log (key and value, and whether its transaction committed, aborted
    // or is still open), topic by topic and partition by partition
    // (sim/external/content_digest.cpp).
    uint64_t content_digest() const;
    // The same records' keys and values in batches (timestamps are not handed), for readers that
    // walk a whole topic: partition by partition in offset order, each call the keys and values of
    // up to a few thousand consecutive committed records, as two columns of equal length. One call
    // per batch instead of one per record, the log's columns decoded a range at a time.
    using CommittedColumns =
        std::function<void(std::span<const int64_t> keys, std::span<const int64_t> values)>;
    void for_each_committed_batch(const std::string& topic, const CommittedColumns& visit) const;
    const KafkaStats& stats() const { return stats_; }
    TransactionView transaction_view(int64_t transaction) const;
    size_t transaction_count() const { return transactions_.size(); }  // views 0 .. count - 1
    // Every entry of every partition of `topic` (whatever its transaction's state), partition by
    // partition in offset order: visit(partition, entry) (sim/external/content_digest.cpp).
    void for_each_entry(const std::string& topic,
                        const std::function<void(int32_t, const ReadResult::Entry&)>& visit) const;
    // The open transaction of the id's current producer, or -1.
    int64_t open_transaction_of(const std::string& transactional_id) const;
    // The open transactions that hold records on a partition (they hold its last stable offset),
    // by first offset.
    std::vector<int64_t> open_transactions(const std::string& topic, int32_t partition) const;

private:
    using Entry = PartitionLog::Entry;
    struct WrittenBatch {
        int32_t base_sequence;
        int32_t count;
        int64_t base_offset;
    };
    static constexpr int32_t kRecentBatches = 5;  // batches a sequence state remembers, as Kafka's
    struct SequenceState {  // the broker's producer state for one (producer id, partition)
        int32_t epoch = 0;
        int32_t next = 0;
        // The last five batches written, a ring in place (no allocation a state): the oldest is
        // recent[oldest], then the next `written - 1` in order.
        std::array<WrittenBatch, kRecentBatches> recent{};
        int32_t oldest = 0;
        int32_t written = 0;
        // The transaction of the last non-empty batch written (its first offset here is known), or
        // -1.
        int64_t last_transaction = -1;
    };
    struct Partition {
        PartitionLog log;  // compact: a few bytes an entry
        std::map<int64_t, int64_t>
            open_first_offsets;  // first offset of each open transaction -> transaction
        // The sequence states of the producers that wrote here, by producer id: looked up on every
        // batch written (thousands of producer ids), never iterated.
        std::unordered_map<int64_t, SequenceState> sequences;
    };
    struct Transaction {
        std::string transactional_id;
        int64_t producer_id;
        int32_t epoch;
        TxnLifecycle lifecycle;  // its state, changed by the lifecycle's verbs only
        Time started;
        Time first_record = Time::never();
        Time ended = Time::never();
        std::map<std::pair<std::string, int32_t>, int64_t>
            first_offsets;      // partition -> first offset
        TimerId timeout_timer;  // the broker's timeout check, cancelled when the transaction ends
        Duration timeout;       // its producer's transaction timeout
        bool expired = false;   // aborted by the broker at its timeout
        int64_t records = 0;    // records appended in it
    };
    struct Producer {
        int64_t producer_id;
        int32_t epoch;
        std::optional<int64_t> open_transaction;
        std::map<int32_t, int64_t> latest_transaction;  // epoch -> its latest transaction
        std::optional<Duration> transaction_timeout;    // asked for at its last init_transactions
    };

    KafkaError reachable(NodeId caller) const;
    KafkaError check_producer(const ProducerHandle& producer, Producer** out);
    // The transitions that end a transaction (TxnLifecycle checks each), then close_transaction.
    void commit_transaction(int64_t transaction);
    void abort_transaction(int64_t transaction);
    // What ending a transaction releases: its partitions' last stable offsets, its timer, its
    // producer's open transaction.
    void close_transaction(int64_t transaction);
    // A failed send of `transaction` (-1: none, an idempotent producer's) makes it abortable;
    // returns `error`.
    KafkaError fail_send(int64_t transaction, KafkaError error);
    Partition* find_partition(const std::string& topic, int32_t partition);
    // The partitions of `topic` when it exists and has every partition `records` names; nullptr
    // otherwise.
    std::vector<Partition>* partitions_for(
        const std::string& topic, const std::vector<std::pair<int32_t, KafkaRecord>>& records);
    const Partition* find_partition(const std::string& topic, int32_t partition) const;
    int64_t last_stable_offset(const std::string& topic, int32_t partition) const;
    // The same for a partition already found (a read looks its partition up once, not three times).
    static int64_t last_stable_offset(const Partition& p);
    int64_t end_offset(const Partition& p, Isolation isolation) const;
    // What a read checks first: the caller reaches the broker and the partition exists; then `*p`
    // is the partition and `*bound` the end offset a reader of `isolation` reads up to.
    KafkaError readable(NodeId caller, const std::string& topic, int32_t partition,
                        Isolation isolation, const Partition** p, int64_t* bound) const;
    // The state of the transaction a log entry was written in; a plain append's (-1) is committed.
    TxnState entry_state(int64_t transaction) const {
        return transaction < 0 ? TxnState::committed
                               : transactions_[static_cast<size_t>(transaction)].lifecycle.state();
    }
    // A read's loop over partition `p` up to `bound`: visits what a reader of `isolation` sees from
    // `from_offset` on, at most `max_records` entries; returns where the next read should start.
    template <typename Visit>
    int64_t visit_entries(const Partition& p, int64_t bound, int64_t from_offset,
                          size_t max_records, Isolation isolation, Visit& visit) const {
        int64_t offset = std::max<int64_t>(from_offset, 0);
        size_t visited = 0;
        for (; offset < bound && visited < max_records; ++offset) {
            const Entry entry = p.log[static_cast<size_t>(offset)];
            if (isolation == Isolation::read_uncommitted ||
                entry_state(entry.transaction) != TxnState::aborted) {
                visit(ReadResult::Entry{offset, entry.record, entry.transaction});
                ++visited;
            }
        }
        return std::max(from_offset, offset);
    }
    // The transaction a handle acts on: its (id, epoch)'s latest, or, with fencing off, the id's
    // open transaction whatever its epoch. -1 when none.
    int64_t transaction_of(const ProducerHandle& producer) const;
    // Latest transaction of (transactional.id, epoch), or -1.
    int64_t find_transaction(const std::string& transactional_id, int32_t epoch) const;
    // EndTxn applied: checks the handle, then commits or aborts the latest transaction of its
    // (id, epoch); the abort of an abortable one bumps the epoch (the new handle to `*bumped`).
    KafkaError end_transaction(const ProducerHandle& producer, bool commit, ProducerHandle* bumped);
    // EndTxn as the sink sees it: the injected coordinator errors and lost answers around
    // end_transaction.
    KafkaError abort_or_commit(NodeId caller, const ProducerHandle& producer, bool commit,
                               ProducerHandle* bumped);
    // The broker's timeout check of an ongoing transaction, from its first partition added.
    void start_timeout(int64_t transaction);
    void on_transaction_timeout(int64_t transaction);
    // The epoch the id's producer holds now (-1: an unknown id).
    int32_t current_epoch(const ProducerHandle& producer) const;
    // Aborts an open transaction as the broker does on timeout: the producer's epoch is bumped.
    void abort_and_fence(int64_t transaction);
    static SequenceState& sequence_state(Partition& p, const ProducerHandle& producer);
    // Kafka's checks of a produce batch against its partition's producer state (UnifiedLog's
    // duplicate check, then ProducerAppendInfo's checkProducerEpoch and checkSequence), `epoch`
    // being the batch's.
    enum class BatchCheck : uint8_t { append, duplicate, invalid_epoch, out_of_order };
    static BatchCheck check_batch(const SequenceState& state, int32_t epoch, int32_t base_sequence,
                                  int32_t count);
    // The batch of the last five written that starts at `base_sequence` with `count` records, or
    // nullptr.
    static const WrittenBatch* find_written(const SequenceState& state, int32_t base_sequence,
                                            int32_t count);
    static void record_written(SequenceState& state, int32_t count, int64_t base_offset);
    // With the lost-answer fault on: whether this produce request's answer is lost (every other
    // one).
    bool answer_lost();
    // Notes a checked batch of `count` records about to be appended to `p` (partition `partition`
    // of `topic`) in `transaction` (its timeout, its first offset here; -1: plain appends) and in
    // the producer's sequence state `state` (sequence_state of `p`); returns the batch's base
    // offset. The caller then appends the records.
    int64_t note_batch(int64_t transaction, const std::string& topic, int32_t partition,
                       Partition& p, SequenceState& state, int32_t count);
    // Zeroes produce_request's counts per partition (batch_counts_) of the partitions it wrote.
    void clear_batch_counts();
    // produce_request's steps. What `producer` writes into: its open transaction (`*transaction`)
    // or, for an idempotent producer, plain appends (-1); or an error.
    KafkaError producing_into(const ProducerHandle& producer, int64_t* transaction);
    // Everything after the producer and topic are known, counts per partition left for the caller
    // to clear: the records counted into batches, the write-failure fault, each batch checked, and
    // the batches written.
    KafkaError produce_batches(const ProducerHandle& producer, int64_t transaction,
                               const std::string& topic, std::vector<Partition>& partitions,
                               const std::vector<std::pair<int32_t, KafkaRecord>>& records,
                               std::span<const int32_t> sequences);
    // Counts `records` per partition (batch_counts_, batch_partitions_); false when one names a
    // partition the topic lacks.
    bool count_batches(size_t partitions,
                       const std::vector<std::pair<int32_t, KafkaRecord>>& records);
    // Checks every counted batch against its partition's producer state (batch_states_ then holds
    // each one's state and whether it is a duplicate); the first refusal's error.
    KafkaError check_batches(const ProducerHandle& producer, bool transactional,
                             std::vector<Partition>& partitions,
                             std::span<const int32_t> sequences);
    // Writes the checked batches that are not duplicates, records in their order.
    void write_batches(const ProducerHandle& producer, int64_t transaction,
                       const std::string& topic, std::vector<Partition>& partitions,
                       const std::vector<std::pair<int32_t, KafkaRecord>>& records);
    // The open transaction a send of `producer` writes into, or an error.
    KafkaError writable_transaction(const ProducerHandle& producer, int64_t* transaction);

    Scheduler& scheduler_;
    Network& network_;
    NodeId broker_;
    KafkaOptions options_;
    std::map<std::string, std::vector<Partition>> topics_;
    // A hash map: looked up on every send (by ids with long common prefixes, thousands of them),
    // never iterated where the order could reach behaviour (list_transactions sorts what it finds).
    std::unordered_map<std::string, Producer> producers_;  // by transactional.id
    std::vector<Transaction> transactions_;
    int64_t next_producer_id_ = 1000;
    std::set<int64_t> idempotent_producers_;  // producer ids issued by init_producer_id
    Time unavailable_until_ = Time::zero();
    Time write_failures_until_ = Time::zero();
    mutable uint64_t refused_by_fault_ = 0;  // counted in reachable(), a const check
    Time commit_errors_until_ = Time::zero();
    Time commit_outcome_unknown_until_ = Time::zero();
    Time produce_acks_lost_until_ = Time::zero();
    uint64_t produce_answers_in_window_ = 0;
    KafkaStats stats_;
    // produce_request's scratch (kept only for their capacity; empty or zero between calls in
    // meaning): the partitions written in order of first appearance, each one's sequence state and
    // whether its batch was written before (a retry), and the records a request has per partition
    // of the topic.
    std::vector<int32_t> batch_partitions_;
    std::vector<std::pair<SequenceState*, bool>> batch_states_;
    std::vector<int32_t> batch_counts_;
};

}  // namespace eosim::sim::external
