#include "sim/nodes.h"

#include <stdexcept>

namespace eosim::sim {

NodeId NodeTable::add(std::string name) {
    NodeInfo& node = nodes_.emplace_back();
    node.name = std::move(name);
    return static_cast<NodeId>(nodes_.size() - 1);
}

NodeId NodeTable::find(std::string_view name) const {
    for (NodeId id = 0; id < nodes_.size(); ++id) {
        if (nodes_[id].name == name) return id;
    }
    return kNoNode;
}

void NodeTable::set_process(NodeId id, std::function<void()> boot, std::function<void()> halt) {
    nodes_.at(id).boot = std::move(boot);
    nodes_.at(id).halt = std::move(halt);
}

void NodeTable::crash(NodeId id) {
    NodeInfo& node = nodes_.at(id);
    if (node.state == NodeState::down) return;
    node.state = NodeState::down;
    ++node.incarnation;  // nothing scheduled before this moment can run any more
    node.disk.clear();
    for (auto& listener : crash_listeners_) listener(id);
    if (node.halt) node.halt();
}

void NodeTable::restart(NodeId id) {
    NodeInfo& node = nodes_.at(id);
    if (node.state != NodeState::down)
        throw std::logic_error("restart of node '" + node.name + "' that is not down");
    node.state = NodeState::up;
    ++node.incarnation;
    if (node.boot) node.boot();
}

void NodeTable::set_paused(NodeId id, bool paused) {
    NodeInfo& node = nodes_.at(id);
    if (node.state == NodeState::down) return;
    node.state = paused ? NodeState::paused : NodeState::up;
}

}  // namespace eosim::sim
