#pragma once
// A Kafka-like log with transactions, the outside system the job reads from and writes to.
//
// What is modelled (after Kafka's transactional protocol, KIP-98):
// - topics with partitions; each partition an append-only log with offsets;
// - plain (non-transactional) appends, visible at once;
// - transactional producers: a transactional.id with a producer id and an epoch. init_transactions
//   bumps the epoch, which fences every older producer of that id and aborts its open transaction;
// - begin / send / commit / abort; commit and abort are idempotent for the transaction they name;
// - the broker aborts a transaction that stays open longer than the transaction timeout;
// - read_committed readers read up to the last stable offset (the first offset of an open
//   transaction) and skip records of aborted transactions; read_uncommitted readers see everything.
// - faults: the broker unavailable for a period; writes failing for a period; a switch that turns
//   fencing off (a negative control: zombies then write and commit); a switch that makes
//   read_committed ignore the last stable offset (a negative control for the visibility oracle).
//   With fencing off, epochs are not checked: every producer of a transactional.id acts on the id's
//   open transaction, so a zombie's writes land in its successor's transaction (and a successor
//   continues a transaction its predecessor left open) — what fencing exists to prevent.
//
// Calls are synchronous (the answer is known at once) but are made on behalf of a node: a call
// from a node that is down, or that a partition separates from the broker, fails with
// `unavailable`, as it would after a client timeout.
//
// Not modelled: replication, leader election, consumer groups, idempotent-producer sequence
// numbers, and latency of individual calls.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/network.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

struct KafkaRecord {
    int64_t key = 0;
    int64_t value = 0;
    auto operator<=>(const KafkaRecord&) const = default;
};

enum class KafkaError : uint8_t {
    none,
    unavailable,        // broker unreachable or down, or the caller is down: retriable
    write_failed,       // an injected write failure: retriable
    fenced,             // a newer producer with the same transactional.id exists
    invalid_txn_state,  // e.g. committing a transaction the broker already aborted
    unknown_topic,
};
const char* to_string(KafkaError error);

enum class Isolation : uint8_t { read_committed, read_uncommitted };
enum class TxnState : uint8_t { open, committed, aborted };

// What a transactional producer holds; what a two-phase-commit sink puts into its checkpoint.
struct ProducerHandle {
    std::string transactional_id;
    int64_t producer_id = -1;
    int32_t epoch = -1;
    auto operator<=>(const ProducerHandle&) const = default;
};

// Fault and behaviour knobs. Every default means "correct Kafka, no fault".
struct KafkaOptions {
    Duration transaction_timeout = Duration::seconds(60);
    bool fencing = true;                      // false: a negative control, never in a passing scenario
    bool read_committed_ignores_lso = false;  // true: a negative control for the visibility oracle
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
    TxnState state = TxnState::open;
    Time started;
    Time first_record = Time::never();  // when it first held a record; never when it holds none
    Time ended = Time::never();         // when it was committed or aborted; never while open
    std::vector<std::pair<std::string, int32_t>> partitions;  // (topic, partition) it holds records on
};

struct KafkaStats {
    uint64_t transactions_begun = 0;
    uint64_t transactions_committed = 0;
    uint64_t transactions_aborted = 0;
    uint64_t aborted_by_timeout = 0;
    uint64_t fenced_calls = 0;
    uint64_t fenced_writes = 0;  // of fenced_calls: sends of a superseded producer (a zombie writing)
};

class KafkaCluster {
public:
    KafkaCluster(Scheduler& scheduler, Network& network, NodeId broker, KafkaOptions options);

    NodeId broker() const { return broker_; }
    void create_topic(const std::string& topic, int32_t partitions);
    int32_t partitions(const std::string& topic) const;  // 0 when the topic does not exist

    // Plain produce: visible to every reader at once. Returns the offset or an error.
    KafkaError append(NodeId caller, const std::string& topic, int32_t partition, KafkaRecord record,
                      int64_t* offset = nullptr);

    // Fences older producers of the id, aborts their open transaction, returns the new handle.
    // `handle->epoch == 0` tells the id was never used before (how lingering transactions are probed).
    KafkaError init_transactions(NodeId caller, const std::string& transactional_id, ProducerHandle* handle);
    KafkaError begin(NodeId caller, const ProducerHandle& producer);
    KafkaError send(NodeId caller, const ProducerHandle& producer, const std::string& topic, int32_t partition,
                    KafkaRecord record);
    // Sends records (partition, record) in order within the open transaction: all or, on error, none.
    KafkaError send_batch(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                          const std::vector<std::pair<int32_t, KafkaRecord>>& records);
    // Commits/aborts the open transaction of `producer` (the handle may come from a checkpoint:
    // Flink's "resume transaction"). Committing an already committed transaction succeeds;
    // committing one the broker aborted fails with invalid_txn_state; a stale epoch with fenced.
    KafkaError commit(NodeId caller, const ProducerHandle& producer);
    KafkaError abort(NodeId caller, const ProducerHandle& producer);

    ReadResult read(NodeId caller, const std::string& topic, int32_t partition, int64_t from_offset,
                    size_t max_records, Isolation isolation) const;
    // The high watermark (read_uncommitted) or the last stable offset (read_committed).
    int64_t end_offset(const std::string& topic, int32_t partition, Isolation isolation) const;

    // Faults.
    void set_unavailable_until(Time until) { unavailable_until_ = until; }
    void set_write_failures_until(Time until) { write_failures_until_ = until; }
    void set_fencing(bool on) { options_.fencing = on; }
    // Aborts every open transaction now, as the broker would on timeout.
    void abort_open_transactions();

    // Narrow views for oracles (not for the engine).
    TxnState transaction_state(int64_t transaction) const { return transactions_.at(transaction).state; }
    // Every record a read_committed reader would eventually see, partition by partition.
    std::vector<KafkaRecord> committed_records(const std::string& topic) const;
    const KafkaStats& stats() const { return stats_; }
    TransactionView transaction_view(int64_t transaction) const;
    // The open transaction of the id's current producer, or -1.
    int64_t open_transaction_of(const std::string& transactional_id) const;
    // The open transactions that hold records on a partition (they hold its last stable offset),
    // by first offset.
    std::vector<int64_t> open_transactions(const std::string& topic, int32_t partition) const;

private:
    struct Entry {
        KafkaRecord record;
        int64_t transaction;
    };
    struct Partition {
        std::vector<Entry> log;
        std::map<int64_t, int64_t> open_first_offsets;  // first offset of each open transaction -> transaction
    };
    struct Transaction {
        std::string transactional_id;
        int64_t producer_id;
        int32_t epoch;
        TxnState state = TxnState::open;
        Time started;
        Time first_record = Time::never();
        Time ended = Time::never();
        std::map<std::pair<std::string, int32_t>, int64_t> first_offsets;  // partition -> first offset
        TimerId timeout_timer;  // the broker's timeout check, cancelled when the transaction ends
    };
    struct Producer {
        int64_t producer_id;
        int32_t epoch;
        std::optional<int64_t> open_transaction;
    };

    KafkaError reachable(NodeId caller) const;
    KafkaError check_producer(const ProducerHandle& producer, Producer** out);
    void finish(int64_t transaction, TxnState state);
    Partition* find_partition(const std::string& topic, int32_t partition);
    const Partition* find_partition(const std::string& topic, int32_t partition) const;
    int64_t last_stable_offset(const std::string& topic, int32_t partition) const;
    // The transaction a handle acts on: its (id, epoch)'s latest, or, with fencing off, the id's
    // open transaction whatever its epoch. -1 when none.
    int64_t transaction_of(const ProducerHandle& producer) const;
    // Latest transaction of (transactional.id, epoch), or -1.
    int64_t find_transaction(const std::string& transactional_id, int32_t epoch) const;
    // Checks the handle for commit/abort; on success `*transaction` is the latest instance of its
    // (id, epoch), or -1 when there is none.
    KafkaError resolve(const ProducerHandle& producer, bool is_commit, int64_t* transaction);
    void on_transaction_timeout(int64_t transaction);

    Scheduler& scheduler_;
    Network& network_;
    NodeId broker_;
    KafkaOptions options_;
    std::map<std::string, std::vector<Partition>> topics_;
    std::map<std::string, Producer> producers_;   // by transactional.id
    std::vector<Transaction> transactions_;
    std::map<std::pair<std::string, int32_t>, int64_t> latest_transaction_;  // (id, epoch) -> transaction
    int64_t next_producer_id_ = 1000;
    Time unavailable_until_ = Time::zero();
    Time write_failures_until_ = Time::zero();
    KafkaStats stats_;
};

}  // namespace eosim::sim::external
