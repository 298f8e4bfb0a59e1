#pragma once
// What a Kafka producer client does between a caller and the broker (sim/external/kafka.h): it
// keeps the sequence number of its next batch per partition and sends a request again when its
// answer was lost (request_timeout: written or not, the client cannot tell), as Kafka's producer
// does with `retries`. With idempotence (enable.idempotence=true, Kafka's default since 3.0, and
// always with transactions) the retried request carries the same sequence numbers and the broker
// acknowledges what it already wrote; without, the records are plain appends and a retry after a
// lost answer writes them twice -- the duplicates idempotence exists to prevent.
//
// Non-transactional idempotent producers take a producer id once (init) and bump its epoch after a
// send whose outcome stays unknown; a transactional one is given each transaction's handle (use),
// its sequences start over with it.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/external/kafka.h"

namespace eosim::sim::external {

class KafkaProducerClient {
public:
    // How many times one request is sent when its answer is lost, the first time included.
    static constexpr int32_t kAttempts = 4;

    KafkaProducerClient(KafkaCluster& kafka, std::string topic, bool idempotent)
        : kafka_(kafka), topic_(std::move(topic)), idempotent_(idempotent) {}

    bool idempotent() const { return idempotent_; }
    // A producer id for a non-transactional idempotent producer (InitProducerId); nothing to do
    // without idempotence.
    KafkaError init(NodeId caller);
    // The producer of a transaction (its handle from init_transactions): sequences start at 0.
    void use(const ProducerHandle& producer);
    // Sends `records` (partition, record) in one request: all or none written, sent again while
    // its answer is lost (up to kAttempts times); returns the last answer.
    KafkaError send(NodeId caller, const std::vector<std::pair<int32_t, KafkaRecord>>& records);

    const ProducerHandle& producer() const { return producer_; }
    // Kafka's epochs are 16-bit: at the largest, a bump takes a new producer id instead.
    static constexpr int32_t kMaxEpoch = 32767;

private:
    // After a send whose outcome is unknown (an idempotent producer without a transaction).
    void bump_epoch(NodeId caller);

    KafkaCluster& kafka_;
    std::string topic_;
    bool idempotent_;
    ProducerHandle producer_;
    std::vector<int32_t> sequences_;  // per partition: the first sequence number of the next batch
};

}  // namespace eosim::sim::external
