#include "sim/world.h"

#include <exception>

#include "sim/invariant.h"

namespace eosim::sim {

namespace {
constexpr EventKind kProtocolPoint{"protocol.point"};
}

World::World(WorldOptions options)
    : root_prng_(options.seed),
      scheduler_(nodes_, trace_),
      network_(scheduler_, root_prng_.fork("network"), options.network),
      storage_(scheduler_, root_prng_.fork("storage"), options.storage) {}

void World::announce(std::string_view point, NodeId node, int64_t detail, PointTask task) {
    EOSIM_INVARIANT(!point.empty() && node < nodes_.size(),
                    "a protocol point is named and announced by a known node");
    const std::string note =
        trace_.logging() ? std::string(point) + " " + std::to_string(detail) : std::string();
    trace_.record(kProtocolPoint, now(), node,
                  digest_mix(digest_of(point), static_cast<uint64_t>(detail)), note);
    const ProtocolPointEvent event{point, node, detail, task};
    struct Depth {  // also when a listener throws
        int& depth;
        ~Depth() { --depth; }
    } depth{++announcing_};
    for (auto& listener : point_listeners_) listener(event);
    // The crash boundary (sim/scheduler.h), once the listeners are done: not from an announcement
    // made while a crash is being carried out (a halt announcing its own point), nor while a
    // handler is unwinding already (a destructor announcing).
    if (announcing_ == 1 && std::uncaught_exceptions() == 0) scheduler_.unwind_if_running_crashed();
}

}  // namespace eosim::sim
