#pragma once
// Compares a sink's content with the reference model's output as multisets of records.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/runtime/record.h"
#include "oracles/record_multiset.h"

namespace eosim::oracles {

struct RecordCount {
    engine::Record record;
    int64_t expected = 0;
    int64_t actual = 0;
};

struct OutputComparison {
    int64_t expected_records = 0;
    int64_t actual_records = 0;
    int64_t missing_records = 0;     // sum over records of max(0, expected - actual)
    int64_t duplicate_records = 0;   // sum over records of max(0, actual - expected)
    std::optional<RecordCount> first_missing;    // smallest (key, value) with actual < expected
    std::optional<RecordCount> first_duplicate;  // smallest (key, value) with actual > expected

    // Merges the two sorted multisets: no copy.
    static OutputComparison of(const RecordMultiset& expected, const RecordMultiset& actual);
    // Any order (packed into multisets first).
    static OutputComparison of(const std::vector<engine::Record>& expected, const std::vector<engine::Record>& actual);
    static std::string describe(const RecordCount& count);
};

}  // namespace eosim::oracles
