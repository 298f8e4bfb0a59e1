#include "oracles/output_comparison.h"

#include <algorithm>

#include "oracles/record_sort.h"

namespace eosim::oracles {

namespace {

// `records` itself when sorted (the common case: the model's output and the run's sink content
// are sorted once per run), else a sorted copy kept in `copy`.
const std::vector<engine::Record>& sorted(const std::vector<engine::Record>& records, std::vector<engine::Record>& copy) {
    if (std::is_sorted(records.begin(), records.end())) return records;
    copy = records;
    sort_records(copy);
    return copy;
}

}  // namespace

OutputComparison OutputComparison::of(const std::vector<engine::Record>& expected_records,
                                      const std::vector<engine::Record>& actual_records) {
    std::vector<engine::Record> expected_copy;
    std::vector<engine::Record> actual_copy;
    const std::vector<engine::Record>& expected = sorted(expected_records, expected_copy);
    const std::vector<engine::Record>& actual = sorted(actual_records, actual_copy);
    OutputComparison result;
    result.expected_records = static_cast<int64_t>(expected.size());
    result.actual_records = static_cast<int64_t>(actual.size());
    size_t e = 0;
    size_t a = 0;
    while (e < expected.size() || a < actual.size()) {
        const engine::Record record = (a == actual.size() || (e < expected.size() && expected[e] < actual[a])) ? expected[e] : actual[a];
        RecordCount count{record, 0, 0};
        while (e < expected.size() && expected[e] == record) ++count.expected, ++e;
        while (a < actual.size() && actual[a] == record) ++count.actual, ++a;
        if (count.actual < count.expected) {
            result.missing_records += count.expected - count.actual;
            if (!result.first_missing) result.first_missing = count;
        } else if (count.actual > count.expected) {
            result.duplicate_records += count.actual - count.expected;
            if (!result.first_duplicate) result.first_duplicate = count;
        }
    }
    return result;
}

std::string OutputComparison::describe(const RecordCount& count) {
    return "(key=" + std::to_string(count.record.key) + ", value=" + std::to_string(count.record.value) + ") expected " +
           std::to_string(count.expected) + "x, found " + std::to_string(count.actual) + "x";
}

}  // namespace eosim::oracles
