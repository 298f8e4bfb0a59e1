// sim::PackedInts and the compact forms built on it (sim/external/partition_log.h,
// sim/external/record_columns.h): every value comes back exactly as appended, whatever widths the
// column went through, and a column of small values stays narrow.
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

#include "sim/external/partition_log.h"
#include "sim/external/record_columns.h"
#include "sim/packed_ints.h"

namespace eosim::sim {
namespace {

TEST_CASE("packed ints: values of any width come back exactly, in order", "[packed]") {
    rc::prop("a column equals the vector of what was appended", [] {
        const auto values = *rc::gen::container<std::vector<int64_t>>(rc::gen::oneOf(
            rc::gen::inRange<int64_t>(-130, 130), rc::gen::inRange<int64_t>(-40000, 40000), rc::gen::arbitrary<int64_t>()));
        PackedInts column;
        for (int64_t v : values) column.push_back(v);
        RC_ASSERT(column.size() == values.size());
        for (size_t i = 0; i < values.size(); ++i) RC_ASSERT(column[i] == values[i]);
    });
}

TEST_CASE("packed ints: the width follows the widest value at each boundary", "[packed]") {
    PackedInts column;
    for (int64_t v : {0, 1, -1, 127, -128}) column.push_back(v);
    CHECK(column.width() == 1);
    column.push_back(128);
    CHECK(column.width() == 2);
    column.push_back(std::numeric_limits<int16_t>::min());
    CHECK(column.width() == 2);
    column.push_back(int64_t{std::numeric_limits<int16_t>::max()} + 1);
    CHECK(column.width() == 4);
    column.push_back(int64_t{std::numeric_limits<int32_t>::min()} - 1);
    CHECK(column.width() == 8);
    column.push_back(std::numeric_limits<int64_t>::min());
    const std::vector<int64_t> expected{0, 1, -1, 127, -128, 128, std::numeric_limits<int16_t>::min(),
                                        int64_t{std::numeric_limits<int16_t>::max()} + 1,
                                        int64_t{std::numeric_limits<int32_t>::min()} - 1,
                                        std::numeric_limits<int64_t>::min()};
    REQUIRE(column.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) CHECK(column[i] == expected[i]);
}

TEST_CASE("packed ints: a million small values take about a byte each", "[packed]") {
    PackedInts column;
    for (int64_t i = 0; i < 1'000'000; ++i) column.push_back(i % 100);
    CHECK(column.width() == 1);
    CHECK(column.bytes() < 2'200'000);  // the vector's growth leaves at most about 2x
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
