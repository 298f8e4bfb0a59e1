// The join and dedup operators (engine/runtime/join_operator.h, dedup_operator.h) on their own,
// against brute force: the join emits every pair of equal-key rows exactly once whatever the
// arrival order of the two sides, and a snapshot/restore in the middle changes nothing; the dedup
// keeps exactly the first record of each period, expires periods by watermark without changing
// the outcome for in-bound input, and restores periods and timers from a snapshot.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "engine/runtime/dedup_operator.h"
#include "engine/runtime/join_operator.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {
namespace {

constexpr int32_t kJoinMaxParallelism = 128;

std::unique_ptr<KeyedStateBackend> heap_backend() {
    return make_heap_state_backend(KeyGroupRange{0, kJoinMaxParallelism - 1}, kJoinMaxParallelism);
}

Record row(int64_t key, int64_t value, int64_t timestamp) {
    Record r{key, value};
    r.timestamp = timestamp;
    return r;
}

std::vector<Record> sorted_records(std::vector<Record> records) {
    std::sort(records.begin(), records.end());
    return records;
}

TEST_CASE("join: the result of a pair", "[join]") {
    CHECK(join_value(12, 34) == 12034);
    CHECK(join_value(-1, 5) == -995);
    const Record result = join_result(row(7, 12, 100), row(7, 34, 250));
    CHECK(result.key == 7);
    CHECK(result.value == 12034);
    CHECK(result.timestamp == 250);
    CHECK(join_result(row(7, 12, 300), row(7, 34, 250)).timestamp == 300);
    const StateKey cell = join_row_cell(kJoinRightState, row(7, 34, 250));
    CHECK(cell == StateKey{7, kJoinRightState, 250, 34});
    CHECK(join_row(cell) == row(7, 34, 250));
}

// Every pair (l, r) with l.key == r.key, by brute force.
std::vector<Record> all_pairs(const std::vector<Record>& left, const std::vector<Record>& right) {
    std::vector<Record> out;
    for (const Record& l : left) {
        for (const Record& r : right) {
            if (l.key == r.key) out.push_back(join_result(l, r));
        }
    }
    return sorted_records(out);
}

TEST_CASE("join: every pair once whatever the interleaving, also across a snapshot and restore",
          "[join]") {
    rc::prop("random rows, random interleaving, restore at a random point", [] {
        const auto row_gen = rc::gen::build<Record>(
            rc::gen::set(&Record::key, rc::gen::inRange<int64_t>(0, 5)),
            rc::gen::set(&Record::value, rc::gen::inRange<int64_t>(1, 100)),
            rc::gen::set(&Record::timestamp, rc::gen::inRange<int64_t>(0, 1000)));
        const auto left = *rc::gen::container<std::vector<Record>>(row_gen);
        const auto right = *rc::gen::container<std::vector<Record>>(row_gen);
        // The arrival order: which side comes next while both have rows left.
        const size_t total = left.size() + right.size();
        const auto picks =
            *rc::gen::container<std::vector<bool>>(total, rc::gen::arbitrary<bool>());
        std::vector<int32_t> sides;
        for (size_t i = 0, l = 0, r = 0; i < total; ++i) {
            const bool take_left = r == right.size() || (l < left.size() && picks[i]);
            sides.push_back(take_left ? 0 : 1);
            ++(take_left ? l : r);
        }
        const size_t cut = *rc::gen::inRange<size_t>(0, sides.size() + 1);

        auto op = std::make_unique<JoinOperator>(heap_backend());
        std::vector<Record> out;
        const Emit emit([&out](const Record& r) { out.push_back(r); });
        size_t next[2] = {0, 0};
        for (size_t i = 0; i < sides.size(); ++i) {
            if (i == cut) {
                const std::string snapshot = op->keyed_state()->snapshot();
                auto restored = heap_backend();
                restored->restore({snapshot});
                RC_ASSERT(restored->cells() == op->keyed_state()->cells());
                op = std::make_unique<JoinOperator>(std::move(restored));
            }
            const int32_t side = sides[i];
            const Record& r = side == 0 ? left[next[0]++] : right[next[1]++];
            op->process(side, r, emit);
        }
        RC_ASSERT(sorted_records(out) == all_pairs(left, right));
        // The state: every row of each side, with its multiplicity.
        std::map<StateKey, int64_t> expected;
        for (const Record& r : left) ++expected[join_row_cell(kJoinLeftState, r)];
        for (const Record& r : right) ++expected[join_row_cell(kJoinRightState, r)];
        RC_ASSERT(op->keyed_state()->cells() == expected);
    });
}

TEST_CASE("dedup: the rule", "[dedup]") {
    CHECK(dedup_keeps(std::nullopt, 5, 100));
    CHECK_FALSE(dedup_keeps(0, 0, 100));
    CHECK_FALSE(dedup_keeps(0, 99, 100));
    CHECK(dedup_keeps(0, 100, 100));
    CHECK_FALSE(
        dedup_keeps(50, 10, 100));  // earlier than the period's first record: still a duplicate
}

// The records the rule keeps, per key in the given order, never expiring a period.
std::vector<Record> dedup_model(const std::vector<Record>& in, int64_t bound_ms) {
    std::map<int64_t, int64_t> period_start;
    std::vector<Record> out;
    for (const Record& r : in) {
        auto it = period_start.find(r.key);
        if (!dedup_keeps(it == period_start.end() ? std::nullopt : std::optional(it->second),
                         r.timestamp, bound_ms))
            continue;
        period_start[r.key] = r.timestamp;
        out.push_back(r);
    }
    return out;
}

TEST_CASE(
    "dedup: a hand-made sequence keeps the first of each period and expires periods by watermark",
    "[dedup]") {
    DedupOperator op(100, heap_backend());
    std::vector<Record> out;
    const Emit emit([&out](const Record& r) { out.push_back(r); });
    op.process(0, row(1, 1, 10), emit);   // kept: period [10, 110)
    op.process(0, row(1, 2, 60), emit);   // dropped
    op.process(0, row(2, 3, 20), emit);   // kept: period [20, 120) of key 2
    op.process(0, row(1, 4, 5), emit);    // dropped: before the period's first record
    op.process(0, row(1, 5, 110), emit);  // kept: a new period [110, 210); the old timer is deleted
    CHECK(op.keyed_state()->contents() == std::map<int64_t, int64_t>{{1, 110}, {2, 20}});
    op.advance_watermark(119, emit);
    CHECK(op.keyed_state()->contents() == std::map<int64_t, int64_t>{{1, 110}, {2, 20}});
    op.advance_watermark(120, emit);  // key 2's period ends
    CHECK(op.keyed_state()->contents() == std::map<int64_t, int64_t>{{1, 110}});
    op.process(0, row(2, 6, 125), emit);  // kept (in-bound: after the watermark)
    op.advance_watermark(300, emit);
    CHECK(op.keyed_state()->contents().empty());
    // Only the timer of the newest period was left: nothing but state 0 and timers ever existed.
    for (const auto& [cell, value] : op.keyed_state()->cells()) CHECK(cell.state < 0);
    std::vector<int64_t> values;
    for (const Record& r : out) values.push_back(r.value);
    CHECK(values == std::vector<int64_t>{1, 3, 5, 6});
}

TEST_CASE(
    "dedup: with in-bound input and watermarks, the output is the never-expiring rule's, also across a restore",
    "[dedup]") {
    rc::prop("random keys and disorder within the bound, watermarks after random records", [] {
        const int64_t bound_ms = *rc::gen::inRange<int64_t>(1, 300);
        const int64_t disorder_ms = *rc::gen::inRange<int64_t>(0, 100);
        const int64_t count = *rc::gen::inRange<int64_t>(0, 200);
        // Append times rise by 0-20 ms; timestamp = append time - uniform[0, disorder] (as the
        // input generator draws them); the watermark after a record is max timestamp - disorder
        // - 1.
        std::vector<Record> in;
        int64_t now = 0;
        for (int64_t i = 0; i < count; ++i) {
            now += *rc::gen::inRange<int64_t>(0, 21);
            in.push_back(row(*rc::gen::inRange<int64_t>(0, 4), i,
                             now - *rc::gen::inRange<int64_t>(0, disorder_ms + 1)));
        }
        const size_t cut = *rc::gen::inRange<size_t>(0, in.size() + 1);
        auto op = std::make_unique<DedupOperator>(bound_ms, heap_backend());
        std::vector<Record> out;
        const Emit emit([&out](const Record& r) { out.push_back(r); });
        int64_t max_timestamp = INT64_MIN;
        int64_t watermark = INT64_MIN;
        for (size_t i = 0; i < in.size(); ++i) {
            if (i == cut) {
                const std::string snapshot = op->keyed_state()->snapshot();
                auto restored = heap_backend();
                restored->restore({snapshot});
                op = std::make_unique<DedupOperator>(bound_ms, std::move(restored));
                op->advance_watermark(watermark,
                                      emit);  // the task's restored watermark, before any record
            }
            RC_ASSERT(in[i].timestamp > watermark);  // in-bound
            op->process(0, in[i], emit);
            max_timestamp = std::max(max_timestamp, in[i].timestamp);
            if (*rc::gen::inRange(0, 3) == 0 && max_timestamp - disorder_ms - 1 > watermark) {
                watermark = max_timestamp - disorder_ms - 1;
                op->advance_watermark(watermark, emit);
            }
        }
        RC_ASSERT(out == dedup_model(in, bound_ms));
    });
}

}  // namespace
}  // namespace eosim::engine
