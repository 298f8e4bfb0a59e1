#include "sim/external/outside_system.h"

#include <cassert>

namespace eosim::sim::external {

OutsideSystem::OutsideSystem(Scheduler& scheduler, Network& network, NodeId node)
    : scheduler_(scheduler), network_(network), node_(node), races_(scheduler) {
    assert(node < scheduler.nodes().size());
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
