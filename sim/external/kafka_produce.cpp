// The Kafka model's produce path: plain appends (a producer without idempotence), idempotent and
// transactional produce requests with their sequence numbers checked against each partition's
// producer state (duplicates acknowledged, gaps and old epochs refused), and the lost-answer fault.
#include <algorithm>

#include "sim/external/kafka.h"
#include "sim/invariant.h"

namespace eosim::sim::external {

KafkaError KafkaCluster::append(NodeId caller, const std::string& topic, int32_t partition,
                                KafkaRecord record, int64_t* offset) {
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
    for (const auto& [partition, record] : records)
        (*partitions)[static_cast<size_t>(partition)].log.push_back(Entry{record, -1});
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

std::vector<KafkaCluster::Partition>* KafkaCluster::partitions_for(
    const std::string& topic, const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    auto it = topics_.find(topic);
    if (it == topics_.end()) return nullptr;
    for (const auto& [partition, record] : records) {
        if (partition < 0 || static_cast<size_t>(partition) >= it->second.size()) return nullptr;
    }
    return &it->second;
}

KafkaError KafkaCluster::send(NodeId caller, const ProducerHandle& producer,
                              const std::string& topic, int32_t partition, KafkaRecord record) {
    return send_batch(caller, producer, topic, {{partition, record}});
}

KafkaCluster::SequenceState& KafkaCluster::sequence_state(Partition& p,
                                                          const ProducerHandle& producer) {
    SequenceState& state = p.sequences[producer.producer_id];
    // A new epoch starts the sequence over (an older one only reaches here with fencing off).
    if (producer.epoch > state.epoch) state = SequenceState{.epoch = producer.epoch};
    return state;
}

int32_t KafkaCluster::next_sequence(const ProducerHandle& producer, const std::string& topic,
                                    int32_t partition) const {
    const Partition* p = find_partition(topic, partition);
    if (p == nullptr) return 0;
    auto it = p->sequences.find(producer.producer_id);
    if (it == p->sequences.end() || producer.epoch > it->second.epoch) return 0;
    return it->second.next;
}

int64_t KafkaCluster::note_batch(int64_t transaction, const std::string& topic, int32_t partition,
                                 Partition& p, SequenceState& state, int32_t count) {
    const auto base_offset = static_cast<int64_t>(p.log.size());
    if (transaction >= 0 && count > 0) {
        Transaction& txn = transactions_[static_cast<size_t>(transaction)];
        if (txn.lifecycle.state() == TxnState::empty) {
            // Kafka's AddPartitionsToTxn: Empty -> Ongoing, and the transaction's timeout starts
            // now (TransactionStateManager.timedOutTransactions looks at Ongoing transactions
            // only).
            txn.lifecycle.add_first_records();
            txn.first_record = scheduler_.now();
            start_timeout(transaction);
        } else if (options_.timer_restarts_on_write) {
            scheduler_.cancel(txn.timeout_timer);
            start_timeout(transaction);
        }
        txn.records += count;
        // The transaction's first offset on this partition, when this is its first batch here. A
        // sequence state whose last batch was written in this transaction knows it is not (this
        // runs for every batch a sink writes); otherwise the transaction's map says, looked up
        // before inserting (emplace would build and free a node for every batch that is not the
        // first).
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

KafkaError KafkaCluster::send_batch(NodeId caller, const ProducerHandle& producer,
                                    const std::string& topic,
                                    const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    // A client that always knows its next sequence numbers: the ones the broker expects.
    std::vector<int32_t> sequences(static_cast<size_t>(partitions(topic)), 0);
    for (size_t p = 0; p < sequences.size(); ++p)
        sequences[p] = next_sequence(producer, topic, static_cast<int32_t>(p));
    return produce_request(caller, producer, topic, records, sequences);
}

KafkaError KafkaCluster::init_producer_id(NodeId caller, ProducerHandle* handle) {
    EOSIM_INVARIANT(handle != nullptr, "init_producer_id is given a handle to fill");
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    const int64_t producer_id = next_producer_id_++;
    idempotent_producers_.insert(producer_id);
    *handle = ProducerHandle{std::string(), producer_id, 0};
    return KafkaError::none;
}

KafkaCluster::BatchCheck KafkaCluster::check_batch(const SequenceState& state, int32_t epoch,
                                                   int32_t base_sequence, int32_t count) {
    // A retried batch of the same epoch, among the last five written, is acknowledged again.
    if (epoch == state.epoch && find_written(state, base_sequence, count) != nullptr)
        return BatchCheck::duplicate;
    if (epoch < state.epoch) return BatchCheck::invalid_epoch;
    // A new epoch starts the sequence over: its first batch starts at 0.
    const int32_t expected = epoch > state.epoch ? 0 : state.next;
    return base_sequence == expected ? BatchCheck::append : BatchCheck::out_of_order;
}

const KafkaCluster::WrittenBatch* KafkaCluster::find_written(const SequenceState& state,
                                                             int32_t base_sequence, int32_t count) {
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

KafkaError KafkaCluster::produce_request(
    NodeId caller, const ProducerHandle& producer, const std::string& topic,
    const std::vector<std::pair<int32_t, KafkaRecord>>& records,
    std::span<const int32_t> sequences) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    int64_t index = -1;  // the transaction written into; -1: an idempotent producer's plain appends
    if (KafkaError e = producing_into(producer, &index); e != KafkaError::none) return e;
    auto topic_it = topics_.find(topic);
    if (topic_it == topics_.end()) return KafkaError::unknown_topic;
    std::vector<Partition>& partitions = topic_it->second;
    EOSIM_INVARIANT(sequences.size() >= partitions.size(),
                    "a produce request has a sequence number per partition");
    const KafkaError e = produce_batches(producer, index, topic, partitions, records, sequences);
    clear_batch_counts();  // the request's one cleanup, however it ended
    if (e != KafkaError::none) return e;
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

KafkaError KafkaCluster::producing_into(const ProducerHandle& producer, int64_t* transaction) {
    *transaction = -1;
    if (producer.transactional_id.empty()) {
        if (idempotent_producers_.contains(producer.producer_id)) return KafkaError::none;
        return KafkaError::invalid_producer_id_mapping;  // Kafka: UNKNOWN_PRODUCER_ID
    }
    const KafkaError e = writable_transaction(producer, transaction);
    if (e == KafkaError::fenced) ++stats_.fenced_writes;
    return e;
}

KafkaError KafkaCluster::produce_batches(
    const ProducerHandle& producer, int64_t transaction, const std::string& topic,
    std::vector<Partition>& partitions, const std::vector<std::pair<int32_t, KafkaRecord>>& records,
    std::span<const int32_t> sequences) {
    if (!count_batches(partitions.size(), records)) return KafkaError::unknown_topic;
    if (scheduler_.now() < write_failures_until_) {
        ++refused_by_fault_;
        // A failed produce (a batch that expired) leaves the transaction abortable, as in Kafka's
        // client, with an epoch bump due on abort (KIP-360).
        return fail_send(transaction, KafkaError::write_failed);
    }
    if (KafkaError e = check_batches(producer, transaction >= 0, partitions, sequences);
        e != KafkaError::none) {
        return fail_send(transaction, e);
    }
    write_batches(producer, transaction, topic, partitions, records);
    return KafkaError::none;
}

bool KafkaCluster::count_batches(size_t partitions,
                                 const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    // One batch per partition, records in their order; partitions in order of first appearance.
    // The records are counted by partition in one pass, into counters kept across calls, and later
    // appended straight from `records`: this runs for every buffer a sink writes and every round of
    // the input, and copying each record into a batch of its partition first (or scanning the
    // records once per partition) was a visible share of a run.
    if (batch_counts_.size() < partitions) batch_counts_.resize(partitions, 0);
    batch_partitions_.clear();
    for (const auto& [partition, record] : records) {
        if (partition < 0 || static_cast<size_t>(partition) >= partitions) return false;
        if (batch_counts_[static_cast<size_t>(partition)]++ == 0)
            batch_partitions_.push_back(partition);
    }
    return true;
}

KafkaError KafkaCluster::check_batches(const ProducerHandle& producer, bool transactional,
                                       std::vector<Partition>& partitions,
                                       std::span<const int32_t> sequences) {
    // Every batch is checked before any is written: the request is written whole or not at all. A
    // batch written before (a retry after a lost answer) is acknowledged and not written again.
    // (A batch has records, so one at the next sequence number is not among those written.)
    batch_states_.clear();
    for (const int32_t partition : batch_partitions_) {
        const auto p = static_cast<size_t>(partition);
        // A hash map's element stays where it is as others join.
        SequenceState& state = partitions[p].sequences[producer.producer_id];
        // With fencing off (the negative control) a transactional zombie's older epoch is not
        // checked.
        const int32_t epoch = transactional && !options_.fencing
                                  ? std::max(producer.epoch, state.epoch)
                                  : producer.epoch;
        const BatchCheck check = check_batch(state, epoch, sequences[p], batch_counts_[p]);
        if (check == BatchCheck::append || check == BatchCheck::duplicate) {
            batch_states_.push_back({&state, check == BatchCheck::duplicate});
            continue;
        }
        if (check == BatchCheck::invalid_epoch) {
            ++stats_.invalid_epoch_batches;
            return KafkaError::invalid_producer_epoch;
        }
        ++stats_.out_of_order_batches;
        return KafkaError::out_of_order_sequence;
    }
    return KafkaError::none;
}

void KafkaCluster::write_batches(const ProducerHandle& producer, int64_t transaction,
                                 const std::string& topic, std::vector<Partition>& partitions,
                                 const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
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
        note_batch(transaction, topic, partition, partitions[p], *state, batch_counts_[p]);
    }
    for (const auto& [partition, record] : records) {
        const auto p = static_cast<size_t>(partition);
        if (batch_counts_[p] != 0) partitions[p].log.push_back(Entry{record, transaction});
    }
}

void KafkaCluster::clear_batch_counts() {
    for (const int32_t partition : batch_partitions_)
        batch_counts_[static_cast<size_t>(partition)] = 0;
}

KafkaError KafkaCluster::produce(NodeId caller, const ProducerHandle& producer,
                                 const std::string& topic, int32_t partition, int32_t base_sequence,
                                 const std::vector<KafkaRecord>& records, int64_t* base_offset) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    Partition* p = find_partition(topic, partition);
    if (p == nullptr) return KafkaError::unknown_topic;
    if (KafkaError e = check_producer(producer, nullptr); e != KafkaError::none) {
        // The partition leader checks the sequence before the epoch's owner: an epoch it never saw
        // must start at sequence 0 (Kafka's ProducerAppendInfo: "Invalid sequence number for new
        // epoch"), so a never-issued higher epoch with a later sequence is out of order, not
        // fenced.
        if (e == KafkaError::fenced && producer.epoch > current_epoch(producer) &&
            base_sequence != 0) {
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
        return fail_send(index, KafkaError::out_of_order_sequence);
    }
    if (scheduler_.now() < write_failures_until_) {
        ++refused_by_fault_;
        return fail_send(index, KafkaError::write_failed);
    }
    const int64_t at = note_batch(index, topic, partition, *p, state, count);
    for (const KafkaRecord& record : records) p->log.push_back(Entry{record, index});
    if (base_offset != nullptr) *base_offset = at;
    return answer_lost() ? KafkaError::request_timeout : KafkaError::none;
}

}  // namespace eosim::sim::external
