#pragma once
// A test seam: tests replace the operator built for a kind of vertex by a deliberately broken
// variant (a negative control: a join whose restore loses one side, a dedup that forgets its
// state), to show that the oracles catch it. The product never sets one; make_operator asks here
// first. Replacements are process-wide: a test sets one through ScopedOperatorReplacement, which
// removes it again at the end of its scope (tests run one at a time).
#include <functional>
#include <memory>

#include "engine/state/state_backend.h"
#include "engine/vocabulary/job_spec.h"

namespace eosim::engine {

class Operator;
using OperatorFactory =
    std::function<std::unique_ptr<Operator>(const VertexSpec&, std::unique_ptr<KeyedStateBackend>)>;

// The replacement for `kind`, or nullptr (the normal case).
const OperatorFactory* operator_replacement(OperatorKind kind);

class ScopedOperatorReplacement {
public:
    ScopedOperatorReplacement(OperatorKind kind, OperatorFactory factory);
    ~ScopedOperatorReplacement();
    ScopedOperatorReplacement(const ScopedOperatorReplacement&) = delete;
    ScopedOperatorReplacement& operator=(const ScopedOperatorReplacement&) = delete;

private:
    OperatorKind kind_;
};

}  // namespace eosim::engine
