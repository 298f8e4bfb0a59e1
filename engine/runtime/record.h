#pragma once
// A stream record: a key and a value, both 64-bit integers. The jobs eosim runs are defined over
// integers so that the reference model can evaluate them exactly.
#include <compare>
#include <cstdint>
#include <vector>

namespace eosim::engine {

struct Record {
    int64_t key = 0;
    int64_t value = 0;
    auto operator<=>(const Record&) const = default;
};

using RecordBatch = std::vector<Record>;

}  // namespace eosim::engine
