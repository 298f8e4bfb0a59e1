#pragma once
// The simulated world, wired in one place: nodes, the event queue, the trace, the network, durable
// storage, and the protocol-point hook. Everything the engine learns of time, randomness, network
// and storage comes through here. One root seed; each component forks its own PRNG stream.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/network.h"
#include "sim/nodes.h"
#include "sim/prng.h"
#include "sim/scheduler.h"
#include "sim/storage.h"
#include "sim/trace.h"

namespace eosim::sim {

struct WorldOptions {
    uint64_t seed = 1;
    NetworkOptions network;
    StorageOptions storage;
};

// A named moment of a protocol that the engine announces (e.g. "sink.precommitted") so that faults
// can be placed exactly there. `detail` is point-specific (usually a checkpoint id).
// The task that announced it, when a task did (a fault's `vertex`/`subtask` filters match it);
// not part of the trace.
struct PointTask {
    std::string_view vertex;  // empty: announced by a process (JobManager, TaskManager), not a task
    int32_t subtask = -1;
};

struct ProtocolPointEvent {
    std::string_view point;
    NodeId node;
    int64_t detail;
    PointTask task;
};

class World {
public:
    using PointListener = std::function<void(const ProtocolPointEvent&)>;

    explicit World(WorldOptions options);
    World(const World&) = delete;
    World& operator=(const World&) = delete;

    uint64_t seed() const { return root_prng_.seed(); }
    Time now() const { return scheduler_.now(); }
    Prng prng(std::string_view stream) const { return prng_of(seed(), stream); }
    // The stream `stream` of a world with seed `seed`, without the world: what prng(stream) gives.
    static Prng prng_of(uint64_t seed, std::string_view stream) { return Prng(seed).fork(stream); }

    NodeTable& nodes() { return nodes_; }
    Scheduler& scheduler() { return scheduler_; }
    Trace& trace() { return trace_; }
    Network& network() { return network_; }
    DurableStorage& storage() { return storage_; }

    // Announces a protocol point: folded into the trace, then handed to every listener (a fault may
    // crash or pause a node there). A crash at a point takes effect before the announced step; no
    // code of the crashed incarnation runs after it: when the node whose handler is running
    // crashed, announce throws CrashUnwind (never returns) and the scheduler ends that handler. A
    // crash of another node (one reached through a synchronous call, or a fault's named target)
    // only takes it down; the running handler goes on and meets its refusals. A pause of the
    // running node takes effect when its handler returns (sim/scheduler.h).
    void announce(std::string_view point, NodeId node, int64_t detail, PointTask task = {});
    void on_point(PointListener listener) { point_listeners_.push_back(std::move(listener)); }

private:
    Prng root_prng_;
    NodeTable nodes_;
    Trace trace_;
    Scheduler scheduler_;
    Network network_;
    DurableStorage storage_;
    std::vector<PointListener> point_listeners_;
    int announcing_ =
        0;  // announcements under way (one nests another when a crash's halt announces)
};

}  // namespace eosim::sim
