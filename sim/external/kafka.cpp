#include "sim/external/kafka.h"

#include <algorithm>
#include <cassert>
#include <iterator>
#include <stdexcept>

namespace eosim::sim::external {

namespace {
constexpr EventKind kTransactionTimeout{"kafka.txn_timeout"};
}

const char* to_string(KafkaError error) {
    switch (error) {
        case KafkaError::none: return "none";
        case KafkaError::unavailable: return "unavailable";
        case KafkaError::write_failed: return "write_failed";
        case KafkaError::fenced: return "fenced";
        case KafkaError::invalid_txn_state: return "invalid_txn_state";
        case KafkaError::unknown_topic: return "unknown_topic";
        case KafkaError::invalid_producer_id_mapping: return "invalid_producer_id_mapping";
        case KafkaError::not_coordinator: return "not_coordinator";
        case KafkaError::concurrent_transactions: return "concurrent_transactions";
        case KafkaError::request_timeout: return "request_timeout";
        case KafkaError::out_of_order_sequence: return "out_of_order_sequence";
        case KafkaError::transaction_abortable: return "transaction_abortable";
        case KafkaError::invalid_transaction_timeout: return "invalid_transaction_timeout";
        case KafkaError::invalid_producer_epoch: return "invalid_producer_epoch";
    }
    return "unknown";
}

bool is_retriable(KafkaError error) {
    switch (error) {
        case KafkaError::unavailable:
        case KafkaError::write_failed:
        case KafkaError::not_coordinator:
        case KafkaError::concurrent_transactions:
        case KafkaError::request_timeout: return true;
        default: return false;
    }
}

KafkaCluster::KafkaCluster(Scheduler& scheduler, Network& network, NodeId broker, KafkaOptions options)
    : scheduler_(scheduler), network_(network), broker_(broker), options_(options) {
    assert(broker < scheduler.nodes().size());
}

void KafkaCluster::create_topic(const std::string& topic, int32_t partitions) {
    if (partitions <= 0) throw std::invalid_argument("topic '" + topic + "' needs at least one partition");
    std::vector<Partition>& existing = topics_[topic];
    // Like Kafka, partitions can be added but never removed.
    if (existing.size() < static_cast<size_t>(partitions)) existing.resize(static_cast<size_t>(partitions));
}

int32_t KafkaCluster::partitions(const std::string& topic) const {
    auto it = topics_.find(topic);
    return it == topics_.end() ? 0 : static_cast<int32_t>(it->second.size());
}

KafkaCluster::Partition* KafkaCluster::find_partition(const std::string& topic, int32_t partition) {
    auto it = topics_.find(topic);
    if (it == topics_.end() || partition < 0 || static_cast<size_t>(partition) >= it->second.size()) return nullptr;
    return &it->second[static_cast<size_t>(partition)];
}

const KafkaCluster::Partition* KafkaCluster::find_partition(const std::string& topic, int32_t partition) const {
    auto it = topics_.find(topic);
    if (it == topics_.end() || partition < 0 || static_cast<size_t>(partition) >= it->second.size()) return nullptr;
    return &it->second[static_cast<size_t>(partition)];
}

KafkaError KafkaCluster::reachable(NodeId caller) const {
    const NodeTable& nodes = scheduler_.nodes();
    if (caller >= nodes.size() || !nodes.is_up(caller) || !nodes.is_up(broker_)) return KafkaError::unavailable;
    if (!network_.call_reaches(caller, broker_)) return KafkaError::unavailable;
    if (scheduler_.now() < unavailable_until_) {
        ++refused_by_fault_;
        return KafkaError::unavailable;
    }
    return KafkaError::none;
}

KafkaError KafkaCluster::append(NodeId caller, const std::string& topic, int32_t partition, KafkaRecord record,
                                int64_t* offset) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    Partition* p = find_partition(topic, partition);
    if (p == nullptr) return KafkaError::unknown_topic;
    if (scheduler_.now() < write_failures_until_) {
        ++refused_by_fault_;
        return KafkaError::write_failed;
    }
    const auto at = static_cast<int64_t>(p->log.size());
    p->log.push_back(Entry{record, -1});
    if (offset != nullptr) *offset = at;
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

KafkaError KafkaCluster::append_all(NodeId caller, const std::string& topic,
                                    const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    std::vector<Partition>* partitions = partitions_for(topic, records);
    if (partitions == nullptr) return KafkaError::unknown_topic;
    if (scheduler_.now() < write_failures_until_) {
        ++refused_by_fault_;
        return KafkaError::write_failed;
    }
    for (const auto& [partition, record] : records) (*partitions)[static_cast<size_t>(partition)].log.push_back(Entry{record, -1});
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

std::vector<KafkaCluster::Partition>* KafkaCluster::partitions_for(const std::string& topic,
                                                                   const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    auto it = topics_.find(topic);
    if (it == topics_.end()) return nullptr;
    for (const auto& [partition, record] : records) {
        if (partition < 0 || static_cast<size_t>(partition) >= it->second.size()) return nullptr;
    }
    return &it->second;
}

KafkaError KafkaCluster::init_transactions(NodeId caller, const std::string& transactional_id,
                                           ProducerHandle* handle, std::optional<Duration> transaction_timeout) {
    assert(handle != nullptr);
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    if (transaction_timeout && *transaction_timeout > options_.transaction_timeout) {
        return KafkaError::invalid_transaction_timeout;  // checked before the id is touched, as Kafka does
    }
    auto it = producers_.find(transactional_id);
    if (it == producers_.end()) {
        it = producers_.emplace(transactional_id, Producer{next_producer_id_++, 0, std::nullopt, {}, std::nullopt}).first;
    } else {
        Producer& producer = it->second;
        // With fencing on, the broker aborts the previous incarnation's open transaction. With
        // fencing off (the negative control) it stays open and the new producer continues it.
        if (options_.fencing) {
            if (producer.open_transaction) finish(*producer.open_transaction, TxnState::aborted);
            producer.open_transaction.reset();
        }
        ++producer.epoch;
    }
    it->second.transaction_timeout = transaction_timeout;
    *handle = ProducerHandle{transactional_id, it->second.producer_id, it->second.epoch};
    return KafkaError::none;
}

KafkaError KafkaCluster::list_transactions(NodeId caller, const std::string& prefix,
                                           std::vector<std::string>* ongoing) const {
    assert(ongoing != nullptr);
    ongoing->clear();
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    for (const auto& [id, producer] : producers_) {
        if (producer.open_transaction && id.starts_with(prefix)) ongoing->push_back(id);
    }
    std::sort(ongoing->begin(), ongoing->end());  // the hash map's order means nothing
    return KafkaError::none;
}

KafkaError KafkaCluster::check_producer(const ProducerHandle& producer, Producer** out) {
    auto it = producers_.find(producer.transactional_id);
    if (it == producers_.end()) return KafkaError::invalid_txn_state;
    if (it->second.producer_id != producer.producer_id) return KafkaError::invalid_producer_id_mapping;
    // Like Kafka's coordinator, a client request must carry exactly the current epoch: an older one
    // (a newer producer exists) and a larger one (never issued) both answer PRODUCER_FENCED.
    if (producer.epoch != it->second.epoch && options_.fencing) {
        ++stats_.fenced_calls;
        return KafkaError::fenced;
    }
    if (out != nullptr) *out = &it->second;
    return KafkaError::none;
}

int32_t KafkaCluster::current_epoch(const ProducerHandle& producer) const {
    auto it = producers_.find(producer.transactional_id);
    return it == producers_.end() ? -1 : it->second.epoch;
}

int64_t KafkaCluster::transaction_of(const ProducerHandle& producer) const {
    if (!options_.fencing) {  // epochs unchecked: every handle of the id shares its open transaction
        auto it = producers_.find(producer.transactional_id);
        if (it != producers_.end() && it->second.open_transaction) return *it->second.open_transaction;
    }
    return find_transaction(producer.transactional_id, producer.epoch);
}

int64_t KafkaCluster::find_transaction(const std::string& transactional_id, int32_t epoch) const {
    auto producer = producers_.find(transactional_id);
    if (producer == producers_.end()) return -1;
    auto it = producer->second.latest_transaction.find(epoch);
    return it == producer->second.latest_transaction.end() ? -1 : it->second;
}

KafkaError KafkaCluster::begin(NodeId caller, const ProducerHandle& producer) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    Producer* state = nullptr;
    if (KafkaError e = check_producer(producer, &state); e != KafkaError::none) return e;
    const int64_t latest = transaction_of(producer);
    if (latest >= 0 && transactions_[static_cast<size_t>(latest)].state == TxnState::open) {
        return KafkaError::none;  // begin is idempotent (and, with fencing off, joins the id's open one)
    }
    const auto index = static_cast<int64_t>(transactions_.size());
    Transaction& txn = transactions_.emplace_back();
    txn.transactional_id = producer.transactional_id;
    txn.producer_id = producer.producer_id;
    txn.epoch = producer.epoch;
    txn.state = TxnState::open;
    txn.started = scheduler_.now();
    txn.timeout = state->transaction_timeout.value_or(options_.transaction_timeout);
    // No timer yet: beginTransaction is client-side in Kafka; the coordinator's timer starts with
    // the first partition added (note_batch), and an empty transaction never expires.
    state->latest_transaction[producer.epoch] = index;
    if (producer.epoch == state->epoch) state->open_transaction = index;
    ++stats_.transactions_begun;
    return KafkaError::none;
}

void KafkaCluster::start_timeout(int64_t transaction) {
    Transaction& txn = transactions_[static_cast<size_t>(transaction)];
    // Owned by the world, not the broker node: the coordinator's transaction log is durable, so
    // a broker crash must not lose the timeout (it would leave the transaction open forever).
    txn.timeout_timer = scheduler_.schedule(
        txn.timeout, kNoNode, kTransactionTimeout,
        digest_mix(digest_of(txn.transactional_id), static_cast<uint64_t>(transaction)),
        [this, transaction] { on_transaction_timeout(transaction); });
}

void KafkaCluster::on_transaction_timeout(int64_t transaction) {
    Transaction& txn = transactions_.at(static_cast<size_t>(transaction));
    txn.timeout_timer = TimerId{};
    if (txn.state != TxnState::open) return;
    txn.expired = true;
    abort_and_fence(transaction);
}

void KafkaCluster::abort_and_fence(int64_t transaction) {
    const Transaction& txn = transactions_.at(static_cast<size_t>(transaction));
    auto producer = producers_.find(txn.transactional_id);
    // Kafka's coordinator aborts a timed-out transaction with the epoch bumped (PrepareAbort at
    // epoch + 1), so the producer that let it time out is fenced from then on.
    if (options_.fencing && producer != producers_.end() && producer->second.epoch == txn.epoch) {
        ++producer->second.epoch;
    }
    finish(transaction, TxnState::aborted);
    ++stats_.aborted_by_timeout;
}

KafkaError KafkaCluster::send(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                              int32_t partition, KafkaRecord record) {
    return send_batch(caller, producer, topic, {{partition, record}});
}

KafkaError KafkaCluster::writable_transaction(const ProducerHandle& producer, int64_t* transaction) {
    if (KafkaError e = check_producer(producer, nullptr); e != KafkaError::none) return e;
    *transaction = transaction_of(producer);
    if (*transaction < 0) return KafkaError::invalid_txn_state;
    const Transaction& txn = transactions_[static_cast<size_t>(*transaction)];
    if (txn.state != TxnState::open) return KafkaError::invalid_txn_state;
    if (txn.abortable) return KafkaError::transaction_abortable;
    return KafkaError::none;
}

KafkaCluster::SequenceState& KafkaCluster::sequence_state(Partition& p, const ProducerHandle& producer) {
    SequenceState& state = p.sequences[producer.producer_id];
    // A new epoch starts the sequence over (an older one only reaches here with fencing off).
    if (producer.epoch > state.epoch) state = SequenceState{.epoch = producer.epoch};
    return state;
}

int32_t KafkaCluster::next_sequence(const ProducerHandle& producer, const std::string& topic, int32_t partition) const {
    const Partition* p = find_partition(topic, partition);
    if (p == nullptr) return 0;
    auto it = p->sequences.find(producer.producer_id);
    if (it == p->sequences.end() || producer.epoch > it->second.epoch) return 0;
    return it->second.next;
}

int64_t KafkaCluster::note_batch(int64_t transaction, const std::string& topic, int32_t partition, Partition& p,
                                 SequenceState& state, int32_t count) {
    const auto base_offset = static_cast<int64_t>(p.log.size());
    if (transaction >= 0 && count > 0) {
        Transaction& txn = transactions_[static_cast<size_t>(transaction)];
        if (txn.first_record == Time::never()) {
            // Kafka's AddPartitionsToTxn: Empty -> Ongoing, and the transaction's timeout starts now
            // (TransactionStateManager.timedOutTransactions looks at Ongoing transactions only).
            txn.first_record = scheduler_.now();
            start_timeout(transaction);
        } else if (options_.timer_restarts_on_write) {
            scheduler_.cancel(txn.timeout_timer);
            start_timeout(transaction);
        }
        txn.records += count;
        // The transaction's first offset on this partition, when this is its first batch here. A
        // sequence state whose last batch was written in this transaction knows it is not (this runs
        // for every batch a sink writes); otherwise the transaction's map says, looked up before
        // inserting (emplace would build and free a node for every batch that is not the first).
        if (state.last_transaction != transaction) {
            std::pair<std::string, int32_t> where{topic, partition};
            auto at = txn.first_offsets.lower_bound(where);
            if (at == txn.first_offsets.end() || at->first != where) {
                txn.first_offsets.emplace_hint(at, std::move(where), base_offset);
                p.open_first_offsets.emplace(base_offset, transaction);
            }
            state.last_transaction = transaction;
        }
    }
    record_written(state, count, base_offset);
    return base_offset;
}

void KafkaCluster::record_written(SequenceState& state, int32_t count, int64_t base_offset) {
    const WrittenBatch batch{state.next, count, base_offset};
    if (state.written < kRecentBatches) {
        state.recent[static_cast<size_t>((state.oldest + state.written) % kRecentBatches)] = batch;
        ++state.written;
    } else {  // Kafka keeps five: the oldest goes
        state.recent[static_cast<size_t>(state.oldest)] = batch;
        state.oldest = (state.oldest + 1) % kRecentBatches;
    }
    state.next += count;
}

KafkaError KafkaCluster::send_batch(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                                    const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    // A client that always knows its next sequence numbers: the ones the broker expects.
    std::vector<int32_t> sequences(static_cast<size_t>(partitions(topic)), 0);
    for (size_t p = 0; p < sequences.size(); ++p) sequences[p] = next_sequence(producer, topic, static_cast<int32_t>(p));
    return produce_request(caller, producer, topic, records, sequences);
}

KafkaError KafkaCluster::init_producer_id(NodeId caller, ProducerHandle* handle) {
    assert(handle != nullptr);
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    const int64_t producer_id = next_producer_id_++;
    idempotent_producers_.insert(producer_id);
    *handle = ProducerHandle{std::string(), producer_id, 0};
    return KafkaError::none;
}

KafkaCluster::BatchCheck KafkaCluster::check_batch(const SequenceState& state, int32_t epoch, int32_t base_sequence,
                                                    int32_t count) {
    // A retried batch of the same epoch, among the last five written, is acknowledged again.
    if (epoch == state.epoch && find_written(state, base_sequence, count) != nullptr) return BatchCheck::duplicate;
    if (epoch < state.epoch) return BatchCheck::invalid_epoch;
    // A new epoch starts the sequence over: its first batch starts at 0.
    const int32_t expected = epoch > state.epoch ? 0 : state.next;
    return base_sequence == expected ? BatchCheck::append : BatchCheck::out_of_order;
}

const KafkaCluster::WrittenBatch* KafkaCluster::find_written(const SequenceState& state, int32_t base_sequence, int32_t count) {
    int32_t at = state.oldest;
    for (int32_t i = 0; i < state.written; ++i) {  // oldest first
        const WrittenBatch& written = state.recent[static_cast<size_t>(at)];
        if (written.base_sequence == base_sequence && written.count == count) return &written;
        if (++at == kRecentBatches) at = 0;
    }
    return nullptr;
}

bool KafkaCluster::answer_lost() {
    if (scheduler_.now() >= produce_acks_lost_until_) return false;
    if (produce_answers_in_window_++ % 2 != 0) return false;  // every other answer gets through
    ++stats_.produce_acks_lost;
    return true;
}

KafkaError KafkaCluster::produce_request(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                                         const std::vector<std::pair<int32_t, KafkaRecord>>& records,
                                         std::span<const int32_t> sequences) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    const bool transactional = !producer.transactional_id.empty();
    int64_t index = -1;  // the transaction written into; -1: an idempotent producer's plain appends
    if (transactional) {
        if (KafkaError e = writable_transaction(producer, &index); e != KafkaError::none) {
            if (e == KafkaError::fenced) ++stats_.fenced_writes;
            return e;
        }
    } else if (!idempotent_producers_.contains(producer.producer_id)) {
        return KafkaError::invalid_producer_id_mapping;  // Kafka: UNKNOWN_PRODUCER_ID
    }
    auto topic_it = topics_.find(topic);
    if (topic_it == topics_.end()) return KafkaError::unknown_topic;
    std::vector<Partition>& partitions = topic_it->second;
    assert(sequences.size() >= partitions.size());
    // One batch per partition, records in their order; partitions in order of first appearance.
    // The records are counted by partition in one pass, into counters kept across calls, and later
    // appended straight from `records`: this runs for every buffer a sink writes and every round of
    // the input, and copying each record into a batch of its partition first (or scanning the
    // records once per partition) was a visible share of a run (issue 31).
    if (batch_counts_.size() < partitions.size()) batch_counts_.resize(partitions.size(), 0);
    batch_partitions_.clear();
    for (const auto& [partition, record] : records) {
        if (partition < 0 || static_cast<size_t>(partition) >= partitions.size()) {
            clear_batch_counts();
            return KafkaError::unknown_topic;
        }
        if (batch_counts_[static_cast<size_t>(partition)]++ == 0) batch_partitions_.push_back(partition);
    }
    if (scheduler_.now() < write_failures_until_) {
        clear_batch_counts();
        ++refused_by_fault_;
        // A failed produce (a batch that expired) leaves the transaction abortable, as in Kafka's
        // client, with an epoch bump due on abort (KIP-360).
        if (transactional) transactions_[static_cast<size_t>(index)].abortable = true;
        return KafkaError::write_failed;
    }
    // Every batch is checked before any is written: the request is written whole or not at all. A
    // batch written before (a retry after a lost answer) is acknowledged and not written again.
    // (A batch has records, so one at the next sequence number is not among those written.)
    batch_states_.clear();
    for (const int32_t partition : batch_partitions_) {
        const auto p = static_cast<size_t>(partition);
        // A hash map's element stays where it is as others join.
        SequenceState& state = partitions[p].sequences[producer.producer_id];
        // With fencing off (the negative control) a transactional zombie's older epoch is not checked.
        const int32_t epoch = transactional && !options_.fencing ? std::max(producer.epoch, state.epoch) : producer.epoch;
        const BatchCheck check = check_batch(state, epoch, sequences[p], batch_counts_[p]);
        if (check == BatchCheck::append || check == BatchCheck::duplicate) {
            batch_states_.push_back({&state, check == BatchCheck::duplicate});
            continue;
        }
        clear_batch_counts();
        if (transactional) transactions_[static_cast<size_t>(index)].abortable = true;
        if (check == BatchCheck::invalid_epoch) {
            ++stats_.invalid_epoch_batches;
            return KafkaError::invalid_producer_epoch;
        }
        ++stats_.out_of_order_batches;
        return KafkaError::out_of_order_sequence;
    }
    for (size_t i = 0; i < batch_partitions_.size(); ++i) {
        const int32_t partition = batch_partitions_[i];
        const auto p = static_cast<size_t>(partition);
        const auto [state, duplicate] = batch_states_[i];
        if (duplicate) {
            ++stats_.duplicate_batches;
            batch_counts_[p] = 0;  // none of its records is appended below
            continue;
        }
        // The partition's producer state takes a newer epoch when its first batch is written.
        if (producer.epoch > state->epoch) *state = SequenceState{.epoch = producer.epoch};
        note_batch(index, topic, partition, partitions[p], *state, batch_counts_[p]);
    }
    for (const auto& [partition, record] : records) {
        const auto p = static_cast<size_t>(partition);
        if (batch_counts_[p] != 0) partitions[p].log.push_back(Entry{record, index});
    }
    clear_batch_counts();
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

void KafkaCluster::clear_batch_counts() {
    for (const int32_t partition : batch_partitions_) batch_counts_[static_cast<size_t>(partition)] = 0;
}

KafkaError KafkaCluster::produce(NodeId caller, const ProducerHandle& producer, const std::string& topic,
                                 int32_t partition, int32_t base_sequence, const std::vector<KafkaRecord>& records,
                                 int64_t* base_offset) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    Partition* p = find_partition(topic, partition);
    if (p == nullptr) return KafkaError::unknown_topic;
    if (KafkaError e = check_producer(producer, nullptr); e != KafkaError::none) {
        // The partition leader checks the sequence before the epoch's owner: an epoch it never saw
        // must start at sequence 0 (Kafka's ProducerAppendInfo: "Invalid sequence number for new
        // epoch"), so a never-issued higher epoch with a later sequence is out of order, not fenced.
        if (e == KafkaError::fenced && producer.epoch > current_epoch(producer) && base_sequence != 0) {
            ++stats_.out_of_order_batches;
            return KafkaError::out_of_order_sequence;
        }
        if (e == KafkaError::fenced) ++stats_.fenced_writes;
        return e;
    }
    // A duplicate is recognised before anything else: its transaction may be abortable by now.
    SequenceState& state = sequence_state(*p, producer);
    const auto count = static_cast<int32_t>(records.size());
    if (const WrittenBatch* written = find_written(state, base_sequence, count)) {
        ++stats_.duplicate_batches;
        if (base_offset != nullptr) *base_offset = written->base_offset;
        return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
    }
    int64_t index = -1;
    if (KafkaError e = writable_transaction(producer, &index); e != KafkaError::none) return e;
    if (base_sequence != state.next) {
        ++stats_.out_of_order_batches;
        transactions_[static_cast<size_t>(index)].abortable = true;
        return KafkaError::out_of_order_sequence;
    }
    if (scheduler_.now() < write_failures_until_) {
        ++refused_by_fault_;
        transactions_[static_cast<size_t>(index)].abortable = true;
        return KafkaError::write_failed;
    }
    const int64_t at = note_batch(index, topic, partition, *p, state, count);
    for (const KafkaRecord& record : records) p->log.push_back(Entry{record, index});
    if (base_offset != nullptr) *base_offset = at;
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

void KafkaCluster::finish(int64_t transaction, TxnState state) {
    assert(state != TxnState::open);
    Transaction& txn = transactions_.at(static_cast<size_t>(transaction));
    assert(txn.state == TxnState::open);
    txn.state = state;
    txn.ended = scheduler_.now();
    for (const auto& [where, first_offset] : txn.first_offsets) {
        Partition* p = find_partition(where.first, where.second);
        assert(p != nullptr);
        p->open_first_offsets.erase(first_offset);
    }
    if (txn.timeout_timer.valid()) {
        scheduler_.cancel(txn.timeout_timer);
        txn.timeout_timer = TimerId{};
    }
    auto producer = producers_.find(txn.transactional_id);
    if (producer != producers_.end() && producer->second.open_transaction == transaction) {
        producer->second.open_transaction.reset();
    }
    if (state == TxnState::committed) {
        ++stats_.transactions_committed;
    } else {
        ++stats_.transactions_aborted;
    }
}

KafkaError KafkaCluster::end_transaction(const ProducerHandle& producer, bool commit, ProducerHandle* bumped) {
    Producer* state = nullptr;
    if (KafkaError e = check_producer(producer, &state); e != KafkaError::none) return e;
    const int64_t index = transaction_of(producer);
    if (index < 0) return KafkaError::invalid_txn_state;  // nothing begun (Kafka: the Empty state)
    Transaction& txn = transactions_[static_cast<size_t>(index)];
    switch (txn.state) {
        case TxnState::open: {
            if (commit && txn.abortable) return KafkaError::transaction_abortable;
            const bool bump = !commit && txn.abortable && options_.fencing;
            finish(index, commit ? TxnState::committed : TxnState::aborted);
            if (bump) {
                ++state->epoch;
                if (bumped != nullptr) *bumped = ProducerHandle{producer.transactional_id, state->producer_id, state->epoch};
            }
            return KafkaError::none;
        }
        case TxnState::committed: return commit ? KafkaError::none : KafkaError::invalid_txn_state;
        case TxnState::aborted: return commit ? KafkaError::invalid_txn_state : KafkaError::none;
    }
    return KafkaError::invalid_txn_state;
}

KafkaError KafkaCluster::commit(NodeId caller, const ProducerHandle& producer) {
    return abort_or_commit(caller, producer, true, nullptr);
}

KafkaError KafkaCluster::abort(NodeId caller, const ProducerHandle& producer, ProducerHandle* bumped) {
    return abort_or_commit(caller, producer, false, bumped);
}

KafkaError KafkaCluster::abort_or_commit(NodeId caller, const ProducerHandle& producer, bool commit,
                                         ProducerHandle* bumped) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    if (bumped != nullptr) *bumped = producer;
    const Time now = scheduler_.now();
    if (now < commit_errors_until_) {  // the coordinator answers before looking at the transaction
        static constexpr KafkaError kInTurn[] = {KafkaError::not_coordinator, KafkaError::concurrent_transactions,
                                                 KafkaError::request_timeout};
        return kInTurn[stats_.commit_errors++ % 3];
    }
    const KafkaError applied = end_transaction(producer, commit, bumped);
    if (now < commit_outcome_unknown_until_) {  // applied (or refused), but the answer is lost
        ++stats_.commit_outcomes_unknown;
        if (bumped != nullptr) *bumped = producer;  // the client never learns of a bump
        return KafkaError::request_timeout;
    }
    return applied;
}

void KafkaCluster::abort_open_transactions() {
    for (size_t i = 0; i < transactions_.size(); ++i) {
        if (transactions_[i].state != TxnState::open) continue;
        abort_and_fence(static_cast<int64_t>(i));
    }
}

int64_t KafkaCluster::last_stable_offset(const std::string& topic, int32_t partition) const {
    const Partition* p = find_partition(topic, partition);
    return p == nullptr ? 0 : last_stable_offset(*p);
}

int64_t KafkaCluster::last_stable_offset(const Partition& p) {
    if (p.open_first_offsets.empty()) return static_cast<int64_t>(p.log.size());
    return p.open_first_offsets.begin()->first;
}

KafkaError KafkaCluster::readable(NodeId caller, const std::string& topic, int32_t partition, Isolation isolation,
                                  const Partition** p, int64_t* bound) const {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    *p = find_partition(topic, partition);
    if (*p == nullptr) return KafkaError::unknown_topic;
    *bound = end_offset(**p, isolation);
    return KafkaError::none;
}

ReadResult KafkaCluster::read(NodeId caller, const std::string& topic, int32_t partition, int64_t from_offset,
                              size_t max_records, Isolation isolation) const {
    ReadResult result;
    result.next_offset = from_offset;
    const Partition* p = nullptr;
    int64_t bound = 0;
    result.error = readable(caller, topic, partition, isolation, &p, &bound);
    if (result.error != KafkaError::none) return result;
    // At most this many entries come back: one allocation per read.
    const int64_t first = std::max<int64_t>(from_offset, 0);
    if (first < bound) result.entries.reserve(std::min(max_records, static_cast<size_t>(bound - first)));
    auto collect = [&result](const ReadResult::Entry& entry) { result.entries.push_back(entry); };
    result.next_offset = visit_entries(*p, bound, from_offset, max_records, isolation, collect);
    return result;
}

int64_t KafkaCluster::end_offset(const std::string& topic, int32_t partition, Isolation isolation) const {
    const Partition* p = find_partition(topic, partition);
    return p == nullptr ? 0 : end_offset(*p, isolation);
}

int64_t KafkaCluster::end_offset(const Partition& p, Isolation isolation) const {
    // The negative control: read_committed readers are let through to the high watermark.
    if (isolation == Isolation::read_uncommitted || options_.read_committed_ignores_lso) {
        return static_cast<int64_t>(p.log.size());
    }
    return last_stable_offset(p);
}

std::vector<KafkaRecord> KafkaCluster::committed_records(const std::string& topic) const {
    std::vector<KafkaRecord> out;
    out.reserve(committed_count(topic));
    for_each_committed(topic, [&out](const KafkaRecord& record) { out.push_back(record); });
    return out;
}

void KafkaCluster::for_each_committed(const std::string& topic,
                                      const std::function<void(const KafkaRecord&)>& visit) const {
    auto it = topics_.find(topic);
    if (it == topics_.end()) return;
    for (const Partition& p : it->second) {
        for (const Entry& entry : p.log) {
            if (entry_state(entry.transaction) == TxnState::committed) visit(entry.record);
        }
    }
}

KafkaCluster::CommittedReadSummary KafkaCluster::read_committed_summary(NodeId caller, const std::string& topic,
                                                                      int32_t partition, int64_t from_offset) const {
    CommittedReadSummary summary;
    summary.next_offset = from_offset;
    const Partition* p = nullptr;
    int64_t bound = 0;
    summary.error = readable(caller, topic, partition, Isolation::read_committed, &p, &bound);
    if (summary.error != KafkaError::none) return summary;
    const int64_t begin = std::max<int64_t>(from_offset, 0);
    // Entries of one transaction come in runs: its state is looked up once a run.
    int64_t last_transaction = -1;
    TxnState last_state = TxnState::committed;  // a plain append's
    // A poll reads a dozen entries a partition: small ranges.
    for_each_decoded_range<32>(
        static_cast<size_t>(begin), static_cast<size_t>(std::max(begin, bound)),
        [&](size_t at, std::span<int64_t> transactions) {
            for (size_t i = 0; i < transactions.size(); ++i) {
                if (transactions[i] != last_transaction) {
                    last_transaction = transactions[i];
                    last_state = entry_state(last_transaction);
                }
                if (last_state == TxnState::aborted) continue;  // a read_committed reader skips it
                ++summary.entries;
                if (last_state != TxnState::committed && !summary.first_uncommitted) {
                    const Entry entry = p->log[at + i];
                    summary.first_uncommitted = ReadResult::Entry{static_cast<int64_t>(at + i), entry.record, entry.transaction};
                }
            }
        },
        p->log.transactions());
    summary.next_offset = std::max(from_offset, std::max(begin, bound));
    return summary;
}

void KafkaCluster::for_each_committed_batch(const std::string& topic, const CommittedColumns& visit) const {
    auto it = topics_.find(topic);
    if (it == topics_.end()) return;
    // Entries of one transaction come in runs: its state is looked up once a run.
    int64_t last_transaction = -1;
    bool last_committed = true;
    for (const Partition& p : it->second) {
        for_each_decoded_range(
            0, p.log.size(),
            [&](size_t, std::span<int64_t> keys, std::span<int64_t> values, std::span<int64_t> transactions) {
                size_t kept = 0;  // the committed entries, moved to the front of the range
                for (size_t i = 0; i < keys.size(); ++i) {
                    if (transactions[i] != last_transaction) {
                        last_transaction = transactions[i];
                        last_committed = entry_state(last_transaction) == TxnState::committed;
                    }
                    if (!last_committed) continue;
                    keys[kept] = keys[i];
                    values[kept] = values[i];
                    ++kept;
                }
                if (kept > 0) visit(keys.first(kept), values.first(kept));
            },
            p.log.keys(), p.log.values(), p.log.transactions());
    }
}

size_t KafkaCluster::committed_count(const std::string& topic) const {
    size_t count = 0;
    for_each_committed(topic, [&count](const KafkaRecord&) { ++count; });
    return count;
}

TransactionView KafkaCluster::transaction_view(int64_t transaction) const {
    const Transaction& txn = transactions_.at(static_cast<size_t>(transaction));
    TransactionView view{txn.transactional_id, txn.state, txn.started, txn.first_record, txn.ended, {}, txn.records,
                         txn.timeout, txn.expired};
    for (const auto& [where, first_offset] : txn.first_offsets) view.partitions.push_back(where);
    return view;
}

int64_t KafkaCluster::open_transaction_of(const std::string& transactional_id) const {
    auto it = producers_.find(transactional_id);
    if (it == producers_.end() || !it->second.open_transaction) return -1;
    return *it->second.open_transaction;
}

std::vector<int64_t> KafkaCluster::open_transactions(const std::string& topic, int32_t partition) const {
    std::vector<int64_t> out;
    if (const Partition* p = find_partition(topic, partition)) {
        for (const auto& [offset, transaction] : p->open_first_offsets) out.push_back(transaction);
    }
    return out;
}

}  // namespace eosim::sim::external
