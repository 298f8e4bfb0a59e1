#include "sim/external/outside_system.h"

#include "sim/invariant.h"

namespace eosim::sim::external {

OutsideSystem::OutsideSystem(Scheduler& scheduler, Network& network, NodeId node)
    : scheduler_(scheduler),
      network_(network),
      node_(node),
      races_(scheduler),
      latency_prng_(Prng(0x1a7e).fork(node)) {
    EOSIM_INVARIANT(node < scheduler.nodes().size(), "an outside system runs on a known node");
}

void OutsideSystem::set_latency(CallLatency latency, Prng prng) {
    EOSIM_INVARIANT(latency.min > Duration::zero() && latency.min <= latency.max,
                    "an outside system's latency range is positive and ordered");
    latency_ = latency;
    latency_prng_ = prng;
}

void OutsideSystem::set_slow_until(Time until, int64_t factor) {
    slow_until_ = until;
    slow_factor_ = factor < 1 ? 1 : factor;
}

Duration OutsideSystem::draw_latency() {
    const Duration drawn = latency_prng_.duration_between(latency_.min, latency_.max);
    return scheduler_.now() < slow_until_ ? drawn * slow_factor_ : drawn;
}

bool OutsideSystem::reachable(NodeId caller) const {
    const NodeTable& nodes = scheduler_.nodes();
    if (caller >= nodes.size() || !nodes.is_up(caller) || !nodes.is_up(node_)) return false;
    if (!network_.call_reaches(caller, node_)) return false;
    return scheduler_.now() >= unavailable_until_;
}

bool OutsideSystem::admit(NodeId caller) {
    ++stats_.calls;
    if (reachable(caller)) {
        races_.before_call();
        return true;
    }
    ++stats_.failed_calls;
    return false;
}

bool OutsideSystem::admit_write(NodeId caller, bool* unreachable) {
    *unreachable = false;
    if (!admit(caller)) {
        *unreachable = true;
        return false;
    }
    if (scheduler_.now() < write_errors_until_) {
        ++stats_.failed_calls;
        return false;
    }
    return true;
}

}  // namespace eosim::sim::external
