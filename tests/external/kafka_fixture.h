#pragma once
// What the Kafka model's tests (test_kafka.cpp, test_kafka_transactions.cpp) start from: a broker,
// a producer, another producer node and a reader, and a topic of two partitions.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/external/kafka.h"
#include "tests/external/external_test_world.h"

namespace eosim::test {

inline const std::string kKafkaTopic = "out";

// Catch prints these; a raw uint8_t enum would print as a character.
inline std::string kafka_err(sim::external::KafkaError e) { return sim::external::to_string(e); }

using KafkaValues = std::vector<int64_t>;

struct KafkaFixture : ExternalTestWorld {
    sim::NodeId broker = add_node("broker");
    sim::NodeId producer = add_node("producer");
    sim::NodeId other = add_node("other");
    sim::NodeId reader = add_node("reader");
    sim::external::KafkaCluster kafka;

    explicit KafkaFixture(sim::external::KafkaOptions options = sim::external::KafkaOptions{})
        : kafka(world.scheduler(), world.network(), broker, options) {
        kafka.create_topic(kKafkaTopic, 2);
    }

    KafkaValues values(int32_t partition, sim::external::Isolation isolation) const {
        sim::external::ReadResult r =
            kafka.read(reader, kKafkaTopic, partition, 0, 1'000'000, isolation);
        REQUIRE(kafka_err(r.error) == "none");
        KafkaValues out;
        for (const auto& e : r.entries) out.push_back(e.record.value);
        return out;
    }

    sim::external::ProducerHandle init(const std::string& id, sim::NodeId caller = sim::kNoNode) {
        sim::external::ProducerHandle h;
        REQUIRE(kafka_err(kafka.init_transactions(caller == sim::kNoNode ? producer : caller, id,
                                                  &h)) == "none");
        return h;
    }
};

}  // namespace eosim::test
