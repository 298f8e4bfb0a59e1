#pragma once
// A regular inner join of two keyed inputs (Flink's StreamingJoinOperator for an inner join of two
// append streams on an equality key), not an interval join: an interval join drops a row that
// arrives after the other side's watermark passed its interval, so its output would depend on how
// the two inputs interleave; a regular join's output does not (docs: design-14, "Why the oracles
// stay exact").
//
// Input 0 is the left side, input 1 the right side; both arrive through hash edges, so all rows of
// a key reach one subtask. Each arriving row is added to its side's keyed state and joined with
// every row of the other side stored under the same key: one result per pair (l, r), emitted once,
// when the later of the two arrives. Result: key, value = join_value(l, r), timestamp = max of the
// two (design-14). Rows of a side are cells {key, state = side, ns = timestamp, item = value} ->
// multiplicity (equal rows share a cell).
//
// Rows are kept forever (no TTL, no cleanup by watermark): any later row of the other side may
// still match, and expiring rows by a time bound would make the output depend on when the expiry
// happened relative to the other side's arrivals (what the interval join does). The jobs eosim
// runs are bounded, so the state stays bounded by the input; the scenarios keep the inputs small.
//
// The reference model (oracles/) and the state-after-restore oracle call the same free functions.
#include <cstdint>
#include <memory>

#include "engine/runtime/operators.h"
#include "engine/state/state_backend.h"
#include "engine/vocabulary/record.h"

namespace eosim::engine {

// The keyed-state ids of the two sides (StateKey::state).
constexpr int32_t kJoinLeftState = 0;
constexpr int32_t kJoinRightState = 1;
// Values a side's row may carry for join_value to stay exact: |value| < kJoinValueFactor.
constexpr int64_t kJoinValueFactor = 1000;

// The value of the result of joining a left row with value `left` and a right row with `right`:
// left * 1000 + right (both sides readable in the output, as long as |right| < 1000).
int64_t join_value(int64_t left, int64_t right);
// The result of joining `left` with `right` (same key): value join_value, timestamp the later one.
Record join_result(const Record& left, const Record& right);
// The cell of keyed state that holds `row` of side `side` (0: left, 1: right).
StateKey join_row_cell(int32_t side, const Record& row);
// The row a cell of side state holds (an insert with the cell's key, timestamp and value).
Record join_row(const StateKey& cell);

class JoinOperator final : public Operator {
public:
    explicit JoinOperator(std::unique_ptr<KeyedStateBackend> state);
    // `input` 0: a left row, 1: a right row.
    void process(int32_t input, const Record& in, const Emit& out) override;
    KeyedStateBackend* keyed_state() override { return state_.get(); }

private:
    std::unique_ptr<KeyedStateBackend> state_;
};

}  // namespace eosim::engine
