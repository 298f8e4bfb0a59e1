#pragma once
// A Kafka record as the model stores it: a key and a value.
#include <compare>
#include <cstdint>

namespace eosim::sim::external {

struct KafkaRecord {
    int64_t key = 0;
    int64_t value = 0;
    auto operator<=>(const KafkaRecord&) const = default;
};

}  // namespace eosim::sim::external
