#pragma once
// How the checkpoint coordinator's asynchronous callbacks (storage writes, the HA store, timers)
// find their coordinator again: by JobManager process, never by pointer.
#include <cstdint>
#include <utility>

#include "engine/checkpointing/execution_gateway.h"

namespace eosim::engine {

class CheckpointCoordinator;

// A callback that runs `f(coordinator, args...)` on the coordinator of JobManager process
// `instance` on `node`, if it is still there (a callback of a crashed incarnation never runs: the
// simulator drops it; an HA JobManager that lost leadership is replaced by a new process).
template <typename F>
auto on_coordinator(ExecutionGateway* gateway, sim::NodeId node, uint64_t instance, F f) {
    return [gateway, node, instance, f = std::move(f)](auto&&... args) {
        if (CheckpointCoordinator* coordinator = gateway->coordinator_on(node, instance))
            f(*coordinator, args...);
    };
}

}  // namespace eosim::engine
