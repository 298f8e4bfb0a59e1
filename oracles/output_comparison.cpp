#include "oracles/output_comparison.h"

#include <algorithm>
#include <map>
#include <span>

namespace eosim::oracles {

OutputComparison OutputComparison::of(const std::vector<engine::Record>& expected,
                                      const std::vector<engine::Record>& actual) {
    return of(RecordMultiset(expected), RecordMultiset(actual));
}

namespace {

// Walks a sorted multiset in order, decoding each record once (a packed record costs a division to
// decode, and the merge below looks at the current record several times).
class SortedCursor {
public:
    explicit SortedCursor(const RecordMultiset& set) : set_(set), size_(set.size()) { load(); }
    bool done() const { return index_ == size_; }
    const engine::Record& current() const { return current_; }
    void advance() {
        ++index_;
        load();
    }

private:
    void load() {
        if (index_ < size_) current_ = set_[index_];
    }
    const RecordMultiset& set_;
    const size_t size_;
    size_t index_ = 0;
    engine::Record current_{};
};

// Adds one record's counts (however found) to the result.
void tally(OutputComparison& result, const RecordCount& count,
           std::vector<RecordCount>* differing) {
    if (differing != nullptr && count.actual != count.expected) differing->push_back(count);
    if (count.actual < count.expected) {
        result.missing_records += count.expected - count.actual;
        if (!result.first_missing) result.first_missing = count;
    } else if (count.actual > count.expected) {
        result.duplicate_records += count.actual - count.expected;
        if (!result.first_duplicate) result.first_duplicate = count;
    }
}

// The merge below over two code sequences of one packing (codes order as records do): equal codes
// are equal records, so only the records reported are decoded.
template <typename Code>
void merge_codes(std::span<const Code> e, std::span<const Code> a,
                 const RecordMultiset::Packing& packing, OutputComparison& result,
                 std::vector<RecordCount>* differing) {
    if (std::ranges::equal(e, a))
        return;  // the same records, as many times each: nothing missing or duplicated
    size_t i = 0, j = 0;
    while (i < e.size() || j < a.size()) {
        const Code code = (j == a.size() || (i < e.size() && e[i] < a[j])) ? e[i] : a[j];
        int64_t expected = 0, actual = 0;
        while (i < e.size() && e[i] == code) ++expected, ++i;
        while (j < a.size() && a[j] == code) ++actual, ++j;
        if (expected != actual)
            tally(result, RecordCount{packing.decode(code), expected, actual}, differing);
    }
}

}  // namespace

OutputComparison OutputComparison::of(const RecordMultiset& expected, const RecordMultiset& actual,
                                      std::vector<RecordCount>* differing) {
    OutputComparison result;
    result.expected_records = static_cast<int64_t>(expected.size());
    result.actual_records = static_cast<int64_t>(actual.size());
    if (expected.packed() && actual.packed() && expected.packing() == actual.packing()) {
        if (!expected.narrow_codes().empty() && !actual.narrow_codes().empty()) {
            merge_codes(expected.narrow_codes(), actual.narrow_codes(), expected.packing(), result,
                        differing);
            return result;
        }
        if (!expected.wide_codes().empty() && !actual.wide_codes().empty()) {
            merge_codes(expected.wide_codes(), actual.wide_codes(), expected.packing(), result,
                        differing);
            return result;
        }
    }
    SortedCursor e(expected);
    SortedCursor a(actual);
    while (!e.done() || !a.done()) {
        const engine::Record record =
            (a.done() || (!e.done() && e.current() < a.current())) ? e.current() : a.current();
        RecordCount count{record, 0, 0};
        while (!e.done() && e.current() == record) ++count.expected, e.advance();
        while (!a.done() && a.current() == record) ++count.actual, a.advance();
        tally(result, count, differing);
    }
    return result;
}

TableComparison TableComparison::of(const std::vector<engine::Record>& expected,
                                    const RecordMultiset& shown) {
    TableComparison c;
    std::map<int64_t, int64_t> actual;
    for (size_t i = 0; i < shown.size(); ++i) {
        const engine::Record r = shown[i];
        c.repeated_keys += actual.emplace(r.key, r.value).second ? 0 : 1;
    }
    for (const engine::Record& e : expected) {
        auto it = actual.find(e.key);
        if (it == actual.end()) {
            c.missing.push_back(RecordCount{e, 1, 0});
            continue;
        }
        if (it->second != e.value) c.wrong.emplace_back(e, it->second);
        actual.erase(it);
    }
    for (const auto& [key, value] : actual) c.extra.push_back(engine::Record{key, value});
    return c;
}

std::vector<engine::Record> key_counts(const RecordMultiset& output) {
    std::map<int64_t, int64_t> counts;
    for (size_t i = 0; i < output.size(); ++i) ++counts[output[i].key];
    std::vector<engine::Record> table;
    for (const auto& [key, count] : counts) table.push_back(engine::Record{key, count});
    return table;
}

std::string OutputComparison::describe(const RecordCount& count) {
    return "(key=" + std::to_string(count.record.key) +
           ", value=" + std::to_string(count.record.value) + ") expected " +
           std::to_string(count.expected) + "x, found " + std::to_string(count.actual) + "x";
}

}  // namespace eosim::oracles
