// oracles::RecordMultiset: whatever form it packs into (4-byte codes, 8-byte codes, or whole
// records when a record is not a plain insert or the spans do not fit), it hands back exactly the
// records it was given, sorted; and OutputComparison over multisets finds what the plain
// comparison finds.
#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "oracles/output_comparison.h"
#include "oracles/record_multiset.h"

namespace eosim::oracles {
namespace {

using engine::Record;

std::vector<Record> sorted_copy(std::vector<Record> records) {
    std::sort(records.begin(), records.end());
    return records;
}

TEST_CASE("record multiset: hands back exactly the records given, sorted", "[record_multiset]") {
    rc::prop("small spans, wide spans, non-plain records", [] {
        const int shape = *rc::gen::inRange(0, 5);
        const auto key =
            shape == 1 ? rc::gen::arbitrary<int64_t>() : rc::gen::inRange<int64_t>(-50, 50);
        const auto value = shape == 0   ? rc::gen::inRange<int64_t>(0, 300)
                           : shape == 2 ? rc::gen::inRange<int64_t>(INT64_MIN / 4, INT64_MAX / 4)
                           : shape == 4
                               ? rc::gen::inRange<int64_t>(0, int64_t{1} << 40)  // 8-byte codes
                               : rc::gen::arbitrary<int64_t>();
        auto records =
            *rc::gen::container<std::vector<Record>>(rc::gen::construct<Record>(key, value));
        if (shape == 3 && !records.empty()) records.front().version = 7;  // not plain: kept whole
        // Built from a vector, from a stream read twice, and from a stream read once (twice only
        // when the records are kept whole).
        int reads = 0;
        const RecordMultiset::Stream stream = [&](const RecordMultiset::Visit& visit) {
            ++reads;
            for (const Record& r : records) visit(r);
        };
        for (const RecordMultiset& set :
             {RecordMultiset(records), RecordMultiset::from_stream(stream)}) {
            RC_ASSERT(set.size() == records.size());
            RC_ASSERT(set.records() == sorted_copy(records));
        }
        RC_ASSERT(reads == 2);
        reads = 0;
        const RecordMultiset once = RecordMultiset::from_stream_once(stream);
        RC_ASSERT(once.size() == records.size());
        RC_ASSERT(once.records() == sorted_copy(records));
        if (shape == 0) RC_ASSERT(reads == 1);  // plain records, small spans: packed in one read
        RC_ASSERT(reads <= 2);
        if (shape != 3) {  // plain records as key and value columns, in batches of up to 3
            const RecordMultiset columns =
                RecordMultiset::from_columns([&](const RecordMultiset::ColumnVisit& visit) {
                    std::vector<int64_t> keys, values;
                    for (size_t i = 0; i < records.size(); ++i) {
                        keys.push_back(records[i].key), values.push_back(records[i].value);
                        if (keys.size() == 3 || i + 1 == records.size())
                            visit(keys, values), keys.clear(), values.clear();
                    }
                });
            RC_ASSERT(columns.size() == records.size());
            RC_ASSERT(columns.records() == sorted_copy(records));
        }
    });
}

TEST_CASE("record multiset: small spans pack into 4 bytes a record", "[record_multiset]") {
    std::vector<Record> records;
    for (int64_t i = 0; i < 100'000; ++i) records.push_back(Record{i % 64, 1 + i / 64});
    const RecordMultiset set(records);
    CHECK(set.bytes() == 100'000 * sizeof(uint32_t));
    CHECK(set[0] == Record{0, 1});
    CHECK(set[set.size() - 1] == Record{63, 1 + 99'967 / 64});  // the last i with i % 64 == 63
}

TEST_CASE("record multiset: comparison over multisets agrees with counting", "[record_multiset]") {
    rc::prop("missing and duplicated counts", [] {
        const auto gen = rc::gen::construct<Record>(rc::gen::inRange<int64_t>(0, 4),
                                                    rc::gen::inRange<int64_t>(0, 4));
        auto expected = *rc::gen::container<std::vector<Record>>(gen);
        auto actual = *rc::gen::container<std::vector<Record>>(gen);
        if (*rc::gen::arbitrary<bool>()) {  // the same ranges on both sides: packed alike, merged
                                            // code by code
            for (const Record& corner : {Record{0, 0}, Record{3, 3}})
                expected.push_back(corner), actual.push_back(corner);
        }
        const OutputComparison c =
            OutputComparison::of(RecordMultiset(expected), RecordMultiset(actual));
        int64_t missing = 0, duplicated = 0;
        std::optional<RecordCount> first_missing, first_duplicate;
        for (int64_t k = 0; k < 4; ++k) {
            for (int64_t v = 0; v < 4; ++v) {
                const Record r{k, v};
                const auto e = std::count(expected.begin(), expected.end(), r);
                const auto a = std::count(actual.begin(), actual.end(), r);
                missing += std::max<int64_t>(0, e - a);
                duplicated += std::max<int64_t>(0, a - e);
                if (e > a && !first_missing) first_missing = RecordCount{r, e, a};
                if (a > e && !first_duplicate) first_duplicate = RecordCount{r, e, a};
            }
        }
        RC_ASSERT(c.missing_records == missing);
        RC_ASSERT(c.duplicate_records == duplicated);
        RC_ASSERT(c.first_missing.has_value() == first_missing.has_value());
        if (first_missing)
            RC_ASSERT(OutputComparison::describe(*c.first_missing) ==
                      OutputComparison::describe(*first_missing));
        RC_ASSERT(c.first_duplicate.has_value() == first_duplicate.has_value());
        if (first_duplicate) {
            RC_ASSERT(OutputComparison::describe(*c.first_duplicate) ==
                      OutputComparison::describe(*first_duplicate));
        }
        RC_ASSERT(c.expected_records == static_cast<int64_t>(expected.size()));
        RC_ASSERT(c.actual_records == static_cast<int64_t>(actual.size()));
    });
}

}  // namespace
}  // namespace eosim::oracles
