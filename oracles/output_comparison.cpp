#include "oracles/output_comparison.h"


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

}  // namespace

OutputComparison OutputComparison::of(const RecordMultiset& expected, const RecordMultiset& actual) {
    OutputComparison result;
    result.expected_records = static_cast<int64_t>(expected.size());
    result.actual_records = static_cast<int64_t>(actual.size());
    SortedCursor e(expected);
    SortedCursor a(actual);
    while (!e.done() || !a.done()) {
        const engine::Record record =
            (a.done() || (!e.done() && e.current() < a.current())) ? e.current() : a.current();
        RecordCount count{record, 0, 0};
        while (!e.done() && e.current() == record) ++count.expected, e.advance();
        while (!a.done() && a.current() == record) ++count.actual, a.advance();
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
