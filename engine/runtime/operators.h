#pragma once
// The record-at-a-time operators between sources and sinks: map, filter, union (identity), and
// the keyed running count and keyed sum, which keep one value per key in a KeyedStateBackend (and,
// over a changelog, retract on update_before and delete).
// The reference model (oracles/) evaluates the same `apply_*` functions, so there is exactly one
// definition of what each operator computes.
#include <functional>
#include <memory>

#include "engine/runtime/job_spec.h"
#include "engine/runtime/record.h"
#include "engine/state/state_backend.h"

namespace eosim::engine {

using Emit = std::function<void(const Record&)>;

Record apply_map(const MapSpec& spec, const Record& in);
bool passes_filter(const FilterSpec& spec, const Record& in);
// The keyed operators: the new state value for `in` given the current one (absent: first record).
int64_t fold_keyed(OperatorKind kind, std::optional<int64_t> current, const Record& in);
// The new state value when `in` (an update_before or delete) withdraws an earlier row.
int64_t retract_keyed(OperatorKind kind, int64_t current, const Record& in);

class Operator {
public:
    virtual ~Operator() = default;
    virtual void process(const Record& in, const Emit& out) = 0;
    // The keyed state, for keyed operators; nullptr otherwise.
    virtual KeyedStateBackend* keyed_state() { return nullptr; }
};

bool is_keyed(OperatorKind kind);
// Builds the operator of a map, filter, union or keyed vertex; `state` only for keyed ones.
std::unique_ptr<Operator> make_operator(const VertexSpec& vertex, std::unique_ptr<KeyedStateBackend> state);

}  // namespace eosim::engine
