// sim::PackedInts and the compact forms built on it (sim/external/partition_log.h,
// sim/external/record_columns.h): every value comes back exactly as appended, whatever width each
// chunk was sealed with, and a chunk of values in a small range stays narrow.
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "sim/external/partition_log.h"
#include "sim/external/record_columns.h"
#include "sim/packed_ints.h"

namespace eosim::sim {
namespace {

TEST_CASE("packed ints: values of any width come back exactly, in order", "[packed]") {
    rc::prop("a column equals the vector of what was appended", [] {
        const auto values = *rc::gen::container<std::vector<int64_t>>(rc::gen::oneOf(
            rc::gen::inRange<int64_t>(-130, 130), rc::gen::inRange<int64_t>(-40000, 40000),
            rc::gen::arbitrary<int64_t>()));
        PackedInts column;
        for (int64_t v : values) column.push_back(v);
        RC_ASSERT(column.size() == values.size());
        for (size_t i = 0; i < values.size(); ++i) RC_ASSERT(column[i] == values[i]);
    });
}

TEST_CASE("packed ints: each sealed chunk takes the width its range needs", "[packed]") {
    const size_t chunk = PackedInts::kChunk;
    PackedInts equal;  // every value the same: nothing per value
    for (size_t i = 0; i < 3 * chunk; ++i) equal.push_back(-7);
    CHECK(equal.widest_sealed_width() == 0);
    CHECK(equal[2 * chunk + 5] == -7);
    std::vector<int64_t> copied(chunk + 2);
    equal.copy(chunk - 1, chunk + 2, copied.data());
    CHECK(copied == std::vector<int64_t>(chunk + 2, -7));
    PackedInts slow;  // a slowly rising count far from zero: one byte a value
    for (size_t i = 0; i < 3 * chunk; ++i)
        slow.push_back(1'000'000'000'000 + static_cast<int64_t>(i / 32));
    CHECK(slow.widest_sealed_width() == 1);
    PackedInts extremes;  // the whole int64 range in one chunk: eight bytes, still exact
    for (size_t i = 0; i < chunk + 3; ++i) {
        extremes.push_back(i % 2 == 0 ? std::numeric_limits<int64_t>::min()
                                      : std::numeric_limits<int64_t>::max());
    }
    CHECK(extremes.widest_sealed_width() == 8);
    for (size_t i = 0; i < extremes.size(); ++i) {
        CHECK(extremes[i] == (i % 2 == 0 ? std::numeric_limits<int64_t>::min()
                                         : std::numeric_limits<int64_t>::max()));
    }
    copied.assign(extremes.size(), 0);
    extremes.copy(0, extremes.size(), copied.data());
    for (size_t i = 0; i < extremes.size(); ++i) CHECK(copied[i] == extremes[i]);
}

TEST_CASE("packed ints: a column across many chunks hands back every value", "[packed]") {
    PackedInts column;
    std::vector<int64_t> expected;
    for (int64_t i = 0; i < 5 * static_cast<int64_t>(PackedInts::kChunk) + 17; ++i) {
        const int64_t v = i % 3 == 0 ? i * 977 : (i % 3 == 1 ? -i : i % 200);
        column.push_back(v);
        expected.push_back(v);
    }
    REQUIRE(column.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) REQUIRE(column[i] == expected[i]);
    // copy: any range, across sealed chunks and into the open one, as the values one by one.
    for (const auto& [begin, count] : std::vector<std::pair<size_t, size_t>>{
             {0, expected.size()},
             {5, 3},
             {PackedInts::kChunk - 2, 5},
             {3 * PackedInts::kChunk + 1, 2 * PackedInts::kChunk + 10},
             {expected.size(), 0}}) {
        std::vector<int64_t> out(count, 42);
        column.copy(begin, count, out.data());
        REQUIRE(out ==
                std::vector<int64_t>(expected.begin() + static_cast<ptrdiff_t>(begin),
                                     expected.begin() + static_cast<ptrdiff_t>(begin + count)));
    }
}

TEST_CASE(
    "packed ints: a window reads every value right, forwards, backwards, across chunks, as the column grows",
    "[packed]") {
    PackedInts column;
    std::vector<int64_t> expected;
    auto append = [&](size_t n) {
        for (size_t i = 0; i < n; ++i) {
            const auto v = static_cast<int64_t>((expected.size() * 7919) % 100003) - 50000;
            column.push_back(v);
            expected.push_back(v);
        }
    };
    append(PackedInts::kChunk + 5);
    PackedWindow<16> window;
    for (size_t i = 0; i < expected.size(); ++i)
        REQUIRE(window.read(column, i) == expected[i]);  // forwards, over the seal
    for (size_t i = expected.size(); i-- > 0;)
        REQUIRE(window.read(column, i) == expected[i]);  // backwards: a miss each window
    for (size_t i = 0; i < expected.size(); i += 37)
        REQUIRE(window.read(column, i) == expected[i]);  // strides past the window: a miss each
    // The window stopped at the column's end; values appended later are read, not stale ones.
    const size_t before = expected.size();
    REQUIRE(window.read(column, before - 1) == expected[before - 1]);
    append(2 * PackedInts::kChunk);
    for (size_t i = before - 1; i < expected.size(); ++i)
        REQUIRE(window.read(column, i) == expected[i]);
}

TEST_CASE("packed ints: for_each_decoded_range walks columns together, every entry once, in order",
          "[packed]") {
    PackedInts a, b;
    for (int64_t i = 0; i < 2 * static_cast<int64_t>(PackedInts::kChunk) + 300; ++i) {
        a.push_back(i * 31 % 1000);
        b.push_back(-i);
    }
    for (const auto& [first, end] : std::vector<std::pair<size_t, size_t>>{
             {0, a.size()}, {7, 7}, {100, 101}, {PackedInts::kChunk - 3, a.size()}}) {
        size_t next = first;
        for_each_decoded_range<64>(
            first, end,
            [&](size_t at, std::span<int64_t> as, std::span<int64_t> bs) {
                REQUIRE(at == next);
                REQUIRE(as.size() == bs.size());
                REQUIRE(!as.empty());
                REQUIRE(as.size() <= 64);
                for (size_t i = 0; i < as.size(); ++i) {
                    REQUIRE(as[i] == a[at + i]);
                    REQUIRE(bs[i] == b[at + i]);
                }
                next = at + as.size();
            },
            a, b);
        REQUIRE(next == end);
    }
}

TEST_CASE("partition log and record columns hand back every entry as appended", "[packed]") {
    rc::prop("entries round-trip", [] {
        const auto keys = *rc::gen::container<std::vector<int64_t>>(rc::gen::arbitrary<int64_t>());
        external::PartitionLog log;
        external::RecordColumns columns;
        for (size_t i = 0; i < keys.size(); ++i) {
            const int64_t transaction = i % 3 == 0 ? -1 : static_cast<int64_t>(i * 1000);
            log.push_back(external::PartitionLog::Entry{{keys[i], -keys[i] / 2}, transaction});
            columns.push_back(external::KafkaRecord{keys[i], static_cast<int64_t>(i)});
        }
        RC_ASSERT(log.size() == keys.size());
        size_t i = 0;
        for (const external::PartitionLog::Entry& entry : log) {
            RC_ASSERT(entry.record == (external::KafkaRecord{keys[i], -keys[i] / 2}));
            RC_ASSERT(entry.transaction == (i % 3 == 0 ? -1 : static_cast<int64_t>(i * 1000)));
            RC_ASSERT(columns[i] == (external::KafkaRecord{keys[i], static_cast<int64_t>(i)}));
            ++i;
        }
        RC_ASSERT(i == keys.size());
    });
}

}  // namespace
}  // namespace eosim::sim
