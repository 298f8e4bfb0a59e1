#include "oracles/output_comparison.h"


namespace eosim::oracles {

OutputComparison OutputComparison::of(const std::vector<engine::Record>& expected,
                                      const std::vector<engine::Record>& actual) {
    return of(RecordMultiset(expected), RecordMultiset(actual));
}

OutputComparison OutputComparison::of(const RecordMultiset& expected, const RecordMultiset& actual) {
    OutputComparison result;
    result.expected_records = static_cast<int64_t>(expected.size());
    result.actual_records = static_cast<int64_t>(actual.size());
    size_t e = 0;
    size_t a = 0;
    while (e < expected.size() || a < actual.size()) {
        const engine::Record next_expected = e < expected.size() ? expected[e] : engine::Record{};
        const engine::Record next_actual = a < actual.size() ? actual[a] : engine::Record{};
        const engine::Record record =
            (a == actual.size() || (e < expected.size() && next_expected < next_actual)) ? next_expected : next_actual;
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
