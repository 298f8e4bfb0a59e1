#pragma once
// Compares a sink's content with the reference model's output as multisets of records.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/vocabulary/record.h"
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
    int64_t missing_records = 0;                 // sum over records of max(0, expected - actual)
    int64_t duplicate_records = 0;               // sum over records of max(0, actual - expected)
    std::optional<RecordCount> first_missing;    // smallest (key, value) with actual < expected
    std::optional<RecordCount> first_duplicate;  // smallest (key, value) with actual > expected

    // Merges the two sorted multisets: no copy. With `differing`, every record whose counts differ
    // is also appended there, in (key, value) order (the anomaly table groups them).
    static OutputComparison of(const RecordMultiset& expected, const RecordMultiset& actual,
                               std::vector<RecordCount>* differing = nullptr);
    // Any order (packed into multisets first).
    static OutputComparison of(const std::vector<engine::Record>& expected,
                               const std::vector<engine::Record>& actual);
    static std::string describe(const RecordCount& count);
};

// A table of one (key, value) row per key compared with the expected rows, key by key.
struct TableComparison {
    int64_t repeated_keys =
        0;  // rows the reader showed twice for one key (a table shows a key once)
    std::vector<RecordCount> missing;  // expected 1 (the record: key and expected value), actual 0
    std::vector<std::pair<engine::Record, int64_t>>
        wrong;                          // (key and expected value, the value found)
    std::vector<engine::Record> extra;  // keys the expected table has not, with their values
    bool equal() const {
        return repeated_keys == 0 && missing.empty() && wrong.empty() && extra.empty();
    }
    static TableComparison of(const std::vector<engine::Record>& expected,
                              const RecordMultiset& shown);
};

// One row (key, count) per key of `output`, in key order: a key-counts sink's expected table.
std::vector<engine::Record> key_counts(const RecordMultiset& output);

}  // namespace eosim::oracles
