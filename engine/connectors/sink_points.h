#pragma once
// The protocol points a sink may announce, and the helper that announces one. A fault can be placed
// exactly at an announced point: a scenario's `"at_point"`, the job-level testkit's point faults,
// and the contract-level testkit's crashes at a point (testkit/sink_contract.h) all aim at these
// names. A sink that never announces a point is never hit there; the testkit says so after a run.
// Every point a sink announces is declared in its SinkConfig::announced_points() (sink_registry.h):
// the loader, the testkit and `eosim points` read that list, and announcing a sink point it does
// not list throws std::logic_error (SinkContext::announce).
//
//     bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
//         ... flush, prepare ...
//         eosim::engine::announce_point(context_, eosim::engine::sink_points::kPrecommitted,
//         checkpoint_id); return true;
//     }
//
// Announce a point where a crash is the most interesting: after the outside system holds what the
// step wrote, before the sink's own bookkeeping of it (a crash there must lose nothing and
// duplicate nothing). A crash at the point takes the announcing node down on the spot: every later
// call of the same step fails as `unavailable`, as a real process would not make it.
#include <cstdint>
#include <string_view>

#include "engine/connectors/sink.h"
#include "engine/vocabulary/sink_point_names.h"

namespace eosim::engine {

// Announces `point` on behalf of the sink's task (its node). Listeners (a fault placed at the
// point) run before this returns and may crash the node.
inline void announce_point(SinkContext& context, std::string_view point, int64_t detail) {
    context.announce(point, detail);
}

}  // namespace eosim::engine
