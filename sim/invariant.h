#pragma once
// Always-on invariants for sim/: the engine's EOSIM_INVARIANT and its handlers (engine/invariant.h,
// compiled into the simulator library), under the simulator's namespace as well.
#include "engine/invariant.h"

namespace eosim::sim {
using engine::InvariantBrokenError;
using engine::InvariantFailure;
using engine::ScopedInvariantHandler;
using engine::throw_invariant_broken;
}  // namespace eosim::sim
