#pragma once
// Nodes (processes) with incarnations. A crash ends the current incarnation: every timer and
// in-flight message of it is dropped (the scheduler and the network check the incarnation when an
// event comes due) and its node-local disk is wiped. `restart` begins a new incarnation and calls
// the node's boot function. `pause` freezes a node without losing anything: its due events wait
// until `resume` (a long GC pause; the node may wake up as a zombie).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace eosim::sim {

enum class NodeState : uint8_t { up, down, paused };

// A node's private disk: survives nothing but a pause.
using LocalDisk = std::map<std::string, std::string>;

struct NodeInfo {
    std::string name;
    NodeState state = NodeState::up;
    uint32_t incarnation = 0;
    LocalDisk disk;
    std::function<void()> boot;  // starts the node's process (called on restart)
    std::function<void()> halt;  // tears the process down (called on crash)
};

class NodeTable {
public:
    NodeId add(std::string name);
    size_t size() const { return nodes_.size(); }
    const std::string& name(NodeId id) const { return nodes_.at(id).name; }
    NodeId find(std::string_view name) const;  // kNoNode if absent

    NodeState state(NodeId id) const { return nodes_[id].state; }
    bool is_up(NodeId id) const { return nodes_[id].state != NodeState::down; }
    uint32_t incarnation(NodeId id) const { return nodes_[id].incarnation; }
    bool is_current(NodeId id, uint32_t incarnation) const {
        return nodes_[id].state != NodeState::down && nodes_[id].incarnation == incarnation;
    }
    LocalDisk& disk(NodeId id) { return nodes_[id].disk; }

    void set_process(NodeId id, std::function<void()> boot, std::function<void()> halt);
    void on_crash(std::function<void(NodeId)> listener) {
        crash_listeners_.push_back(std::move(listener));
    }

    // Lifecycle; the scheduler wraps these so that paused events are released or dropped.
    void crash(NodeId id);
    void restart(NodeId id);
    void set_paused(NodeId id, bool paused);

private:
    std::vector<NodeInfo> nodes_;
    std::vector<std::function<void(NodeId)>> crash_listeners_;
};

}  // namespace eosim::sim
