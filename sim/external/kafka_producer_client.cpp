#include "sim/external/kafka_producer_client.h"

namespace eosim::sim::external {

KafkaError KafkaProducerClient::init(NodeId caller) {
    if (!idempotent_) return KafkaError::none;
    if (KafkaError e = kafka_.init_producer_id(caller, &producer_); e != KafkaError::none) return e;
    sequences_.assign(static_cast<size_t>(kafka_.partitions(topic_)), 0);
    return KafkaError::none;
}

void KafkaProducerClient::use(const ProducerHandle& producer) {
    producer_ = producer;
    sequences_.assign(static_cast<size_t>(kafka_.partitions(topic_)), 0);
}

KafkaError KafkaProducerClient::send(NodeId caller,
                                     const std::vector<std::pair<int32_t, KafkaRecord>>& records) {
    KafkaError error = KafkaError::none;
    for (int32_t attempt = 0; attempt < kAttempts; ++attempt) {
        error = idempotent_ ? kafka_.produce_request(caller, producer_, topic_, records, sequences_)
                            : kafka_.append_all(caller, topic_, records);
        if (error != KafkaError::request_timeout) break;
    }
    if (error == KafkaError::none && idempotent_) {
        for (const auto& [partition, record] : records)
            ++sequences_[static_cast<size_t>(partition)];
    }
    if (error == KafkaError::request_timeout && idempotent_ && producer_.transactional_id.empty()) {
        // Written or not, nobody knows: the next batch must not reuse these sequence numbers (the
        // broker would take it for this one). (A transactional producer's transaction fails
        // instead: its sink declines the checkpoint.)
        bump_epoch(caller);
    }
    return error;
}

void KafkaProducerClient::bump_epoch(NodeId caller) {
    // Kafka's client bumps an idempotent producer's epoch itself (KIP-360), and takes a new
    // producer id only when the epoch is exhausted; the broker starts the sequence over at the new
    // epoch.
    if (producer_.epoch >= kMaxEpoch) {
        init(caller);
        return;
    }
    ++producer_.epoch;
    sequences_.assign(sequences_.size(), 0);
}

}  // namespace eosim::sim::external
