// The Kafka model's transactions: producers by transactional.id with their epochs (init, fencing),
// begin, EndTxn (commit and abort, with the injected coordinator faults), the broker's timeout, and
// the views oracles take of the transaction table. Every change of a transaction's state goes
// through its TxnLifecycle (sim/external/kafka_txn_state.h), which checks it.
#include <algorithm>

#include "sim/external/kafka.h"
#include "sim/invariant.h"

namespace eosim::sim::external {

namespace {
constexpr EventKind kTransactionTimeout{"kafka.txn_timeout"};
}

KafkaError KafkaCluster::init_transactions(NodeId caller, const std::string& transactional_id,
                                           ProducerHandle* handle,
                                           std::optional<Duration> transaction_timeout) {
    EOSIM_INVARIANT(handle != nullptr, "init_transactions is given a handle to fill");
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    if (transaction_timeout && *transaction_timeout > options_.transaction_timeout) {
        return KafkaError::invalid_transaction_timeout;  // checked before the id is touched, as
                                                         // Kafka does
    }
    auto it = producers_.find(transactional_id);
    if (it == producers_.end()) {
        it = producers_
                 .emplace(transactional_id,
                          Producer{next_producer_id_++, 0, std::nullopt, {}, std::nullopt})
                 .first;
    } else {
        Producer& producer = it->second;
        // With fencing on, the broker aborts the previous incarnation's open transaction. With
        // fencing off (the negative control) it stays open and the new producer continues it.
        if (options_.fencing) {
            if (producer.open_transaction) abort_transaction(*producer.open_transaction);
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
    EOSIM_INVARIANT(ongoing != nullptr, "list_transactions is given a list to fill");
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
    if (it->second.producer_id != producer.producer_id)
        return KafkaError::invalid_producer_id_mapping;
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
    if (!options_
             .fencing) {  // epochs unchecked: every handle of the id shares its open transaction
        auto it = producers_.find(producer.transactional_id);
        if (it != producers_.end() && it->second.open_transaction)
            return *it->second.open_transaction;
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
    if (latest >= 0 && is_open(transactions_[static_cast<size_t>(latest)].lifecycle.state())) {
        return KafkaError::none;  // begin is idempotent (and, with fencing off, joins the id's open
                                  // one)
    }
    const auto index = static_cast<int64_t>(transactions_.size());
    Transaction& txn = transactions_.emplace_back();  // empty: its lifecycle's first state
    txn.transactional_id = producer.transactional_id;
    txn.producer_id = producer.producer_id;
    txn.epoch = producer.epoch;
    txn.started = scheduler_.now();
    txn.timeout = state->transaction_timeout.value_or(options_.transaction_timeout);
    // No timer yet: beginTransaction is client-side in Kafka; the coordinator's timer starts with
    // the first partition added (note_batch), and an empty transaction never expires.
    state->latest_transaction[producer.epoch] = index;
    if (producer.epoch == state->epoch) state->open_transaction = index;
    ++stats_.transactions_begun;
    return KafkaError::none;
}

KafkaError KafkaCluster::writable_transaction(const ProducerHandle& producer,
                                              int64_t* transaction) {
    if (KafkaError e = check_producer(producer, nullptr); e != KafkaError::none) return e;
    *transaction = transaction_of(producer);
    if (*transaction < 0) return KafkaError::invalid_txn_state;
    const TxnState state = transactions_[static_cast<size_t>(*transaction)].lifecycle.state();
    if (!is_open(state)) return KafkaError::invalid_txn_state;
    if (state == TxnState::abortable) return KafkaError::transaction_abortable;
    return KafkaError::none;
}

KafkaError KafkaCluster::fail_send(int64_t transaction, KafkaError error) {
    if (transaction >= 0) transactions_[static_cast<size_t>(transaction)].lifecycle.fail_send();
    return error;
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
    EOSIM_INVARIANT(is_open(txn.lifecycle.state()),
                    "a Kafka transaction's timeout fires only while it is open");
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
    abort_transaction(transaction);
    ++stats_.aborted_by_timeout;
}

void KafkaCluster::commit_transaction(int64_t transaction) {
    transactions_.at(static_cast<size_t>(transaction)).lifecycle.commit();
    close_transaction(transaction);
    ++stats_.transactions_committed;
}

void KafkaCluster::abort_transaction(int64_t transaction) {
    transactions_.at(static_cast<size_t>(transaction)).lifecycle.abort();
    close_transaction(transaction);
    ++stats_.transactions_aborted;
}

void KafkaCluster::close_transaction(int64_t transaction) {
    Transaction& txn = transactions_[static_cast<size_t>(transaction)];
    txn.ended = scheduler_.now();
    for (const auto& [where, first_offset] : txn.first_offsets) {
        Partition* p = find_partition(where.first, where.second);
        EOSIM_INVARIANT(p != nullptr,
                        "a transaction's partitions exist (partitions are never removed)");
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
}

KafkaError KafkaCluster::end_transaction(const ProducerHandle& producer, bool commit,
                                         ProducerHandle* bumped) {
    Producer* state = nullptr;
    if (KafkaError e = check_producer(producer, &state); e != KafkaError::none) return e;
    const int64_t index = transaction_of(producer);
    if (index < 0) return KafkaError::invalid_txn_state;  // nothing begun (Kafka: the Empty state)
    switch (transactions_[static_cast<size_t>(index)].lifecycle.state()) {
        case TxnState::empty:
        case TxnState::ongoing:
            if (commit) {
                commit_transaction(index);
            } else {
                abort_transaction(index);
            }
            return KafkaError::none;
        case TxnState::abortable:
            if (commit) return KafkaError::transaction_abortable;
            abort_transaction(index);
            if (options_
                    .fencing) {  // KIP-360: the abort of an abortable transaction bumps the epoch
                ++state->epoch;
                if (bumped != nullptr)
                    *bumped =
                        ProducerHandle{producer.transactional_id, state->producer_id, state->epoch};
            }
            return KafkaError::none;
        case TxnState::committed: return commit ? KafkaError::none : KafkaError::invalid_txn_state;
        case TxnState::aborted: return commit ? KafkaError::invalid_txn_state : KafkaError::none;
    }
    return KafkaError::invalid_txn_state;
}

KafkaError KafkaCluster::commit(NodeId caller, const ProducerHandle& producer) {
    return abort_or_commit(caller, producer, true, nullptr);
}

KafkaError KafkaCluster::abort(NodeId caller, const ProducerHandle& producer,
                               ProducerHandle* bumped) {
    return abort_or_commit(caller, producer, false, bumped);
}

KafkaError KafkaCluster::abort_or_commit(NodeId caller, const ProducerHandle& producer, bool commit,
                                         ProducerHandle* bumped) {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    if (bumped != nullptr) *bumped = producer;
    const Time now = scheduler_.now();
    if (now < commit_errors_until_) {  // the coordinator answers before looking at the transaction
        static constexpr KafkaError kInTurn[] = {KafkaError::not_coordinator,
                                                 KafkaError::concurrent_transactions,
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
        if (!is_open(transactions_[i].lifecycle.state())) continue;
        abort_and_fence(static_cast<int64_t>(i));
    }
}

TransactionView KafkaCluster::transaction_view(int64_t transaction) const {
    const Transaction& txn = transactions_.at(static_cast<size_t>(transaction));
    TransactionView view{
        txn.transactional_id, txn.lifecycle.state(), txn.started, txn.first_record, txn.ended, {},
        txn.records,          txn.timeout,           txn.expired};
    for (const auto& [where, first_offset] : txn.first_offsets) view.partitions.push_back(where);
    return view;
}

int64_t KafkaCluster::open_transaction_of(const std::string& transactional_id) const {
    auto it = producers_.find(transactional_id);
    if (it == producers_.end() || !it->second.open_transaction) return -1;
    return *it->second.open_transaction;
}

}  // namespace eosim::sim::external
