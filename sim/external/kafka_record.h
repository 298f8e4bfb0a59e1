#pragma once
// A Kafka record as the model stores it: a key, a value and its timestamp (Kafka's CreateTime, in
// ms: the producer's event time of the record).
#include <compare>
#include <cstdint>

namespace eosim::sim::external {

struct KafkaRecord {
    int64_t key = 0;
    int64_t value = 0;
    int64_t timestamp = 0;  // ms
    auto operator<=>(const KafkaRecord&) const = default;
};

}  // namespace eosim::sim::external
