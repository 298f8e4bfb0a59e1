// The Kafka model's core: error names, topics and partitions, and whether a caller reaches the
// broker. Transactions are in kafka_transactions.cpp, produce and idempotence in kafka_produce.cpp,
// reads in kafka_fetch.cpp.
#include "sim/external/kafka.h"

#include <stdexcept>

#include "sim/invariant.h"

namespace eosim::sim::external {

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

KafkaCluster::KafkaCluster(Scheduler& scheduler, Network& network, NodeId broker,
                           KafkaOptions options)
    : scheduler_(scheduler), network_(network), broker_(broker), options_(options) {
    EOSIM_INVARIANT(broker < scheduler.nodes().size(), "the Kafka broker is a node of the world");
}

void KafkaCluster::create_topic(const std::string& topic, int32_t partitions) {
    if (partitions <= 0)
        throw std::invalid_argument("topic '" + topic + "' needs at least one partition");
    std::vector<Partition>& existing = topics_[topic];
    // Like Kafka, partitions can be added but never removed.
    if (existing.size() < static_cast<size_t>(partitions))
        existing.resize(static_cast<size_t>(partitions));
}

int32_t KafkaCluster::partitions(const std::string& topic) const {
    auto it = topics_.find(topic);
    return it == topics_.end() ? 0 : static_cast<int32_t>(it->second.size());
}

KafkaCluster::Partition* KafkaCluster::find_partition(const std::string& topic, int32_t partition) {
    auto it = topics_.find(topic);
    if (it == topics_.end() || partition < 0 || static_cast<size_t>(partition) >= it->second.size())
        return nullptr;
    return &it->second[static_cast<size_t>(partition)];
}

const KafkaCluster::Partition* KafkaCluster::find_partition(const std::string& topic,
                                                            int32_t partition) const {
    auto it = topics_.find(topic);
    if (it == topics_.end() || partition < 0 || static_cast<size_t>(partition) >= it->second.size())
        return nullptr;
    return &it->second[static_cast<size_t>(partition)];
}

KafkaError KafkaCluster::reachable(NodeId caller) const {
    const NodeTable& nodes = scheduler_.nodes();
    if (caller >= nodes.size() || !nodes.is_up(caller) || !nodes.is_up(broker_))
        return KafkaError::unavailable;
    if (!network_.call_reaches(caller, broker_)) return KafkaError::unavailable;
    if (scheduler_.now() < unavailable_until_) {
        ++refused_by_fault_;
        return KafkaError::unavailable;
    }
    return KafkaError::none;
}

}  // namespace eosim::sim::external
