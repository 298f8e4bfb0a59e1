#include "sim/world.h"

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
    EOSIM_INVARIANT(!point.empty() && node < nodes_.size(), "a protocol point is named and announced by a known node");
    const std::string note = trace_.logging() ? std::string(point) + " " + std::to_string(detail) : std::string();
    trace_.record(kProtocolPoint, now(), node, digest_mix(digest_of(point), static_cast<uint64_t>(detail)), note);
    const ProtocolPointEvent event{point, node, detail, task};
    for (auto& listener : point_listeners_) listener(event);
}

}  // namespace eosim::sim
