#include "engine/runtime/join_operator.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace eosim::engine {

int64_t join_value(int64_t left, int64_t right) { return left * kJoinValueFactor + right; }

Record join_result(const Record& left, const Record& right) {
    Record result;
    result.key = left.key;
    result.value = join_value(left.value, right.value);
    result.timestamp = std::max(left.timestamp, right.timestamp);
    return result;
}

StateKey join_row_cell(int32_t side, const Record& row) {
    return StateKey{row.key, side, row.timestamp, row.value};
}

Record join_row(const StateKey& cell) {
    Record row;
    row.key = cell.key;
    row.value = cell.item;
    row.timestamp = cell.ns;
    return row;
}

JoinOperator::JoinOperator(std::unique_ptr<KeyedStateBackend> state) : state_(std::move(state)) {}

void JoinOperator::process(int32_t input, const Record& in, const Emit& out) {
    if (input != 0 && input != 1)
        throw std::logic_error("a join has two inputs, got a record on input " +
                               std::to_string(input));
    if (is_retraction(in.kind))
        throw std::logic_error(
            "the join reads append streams only (the loader refuses a changelog)");
    const int32_t side = input == 0 ? kJoinLeftState : kJoinRightState;
    const int32_t other = input == 0 ? kJoinRightState : kJoinLeftState;
    const StateKey cell = join_row_cell(side, in);
    state_->put(cell, state_->get(cell).value_or(0) + 1);
    // Collect first: `scan` hands cells to a visitor that must not write, and `out` may reach
    // anything downstream in the same task.
    std::vector<std::pair<Record, int64_t>> matches;
    state_->scan(in.key, other, [&](const StateKey& at, int64_t multiplicity) {
        matches.emplace_back(join_row(at), multiplicity);
    });
    for (const auto& [row, multiplicity] : matches) {
        const Record result = input == 0 ? join_result(in, row) : join_result(row, in);
        for (int64_t i = 0; i < multiplicity; ++i) out(result);
    }
}

}  // namespace eosim::engine
