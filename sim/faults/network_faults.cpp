// The network fault kinds' firings: partition, slow_link, message_loss (sim/fault_firing.h).
#include <algorithm>

#include "sim/fault_firing.h"

namespace eosim::sim {

namespace {

constexpr EventKind kFaultHeal{"fault.heal"};

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
    return out;
}

// `Network::partition(nodes, other_nodes, one_way)`, healed after duration. Empty `other_nodes`
// means every other node of the world; an announcer among `other_nodes` is skipped.
class PartitionFiring final : public FaultFiring {
public:
    PartitionFiring() : FaultFiring(FaultKind::partition, FaultTargets::node_or_announcer) {}

    void fire(FaultAct& act) const override {
        const std::vector<NodeId>& side_a = act.targets;
        const auto on_side_a = [&](NodeId id) {
            return std::find(side_a.begin(), side_a.end(), id) != side_a.end();
        };
        std::vector<NodeId> side_b;
        for (NodeId id : act.other_nodes) {
            if (!on_side_a(id)) side_b.push_back(id);
        }
        if (act.other_nodes.empty()) {  // every other node of the world
            for (NodeId id = 0; id < act.world.nodes().size(); ++id) {
                if (!on_side_a(id)) side_b.push_back(id);
            }
        }
        act.record.nodes = act.names(side_a);
        if (side_b.empty()) {  // the announcer is the other side itself: nothing to cut
            act.record.skipped = true;
            act.record.action = "skipped: the announcing node is on both sides of the partition";
            return;
        }
        const std::vector<std::string> other = act.names(side_b);
        act.record.nodes.insert(act.record.nodes.end(), other.begin(), other.end());
        const Time heal_at = act.until();
        Network* network = &act.world.network();
        const PartitionId partition = network->partition(side_a, side_b, act.spec.one_way);
        act.record.handle = partition;
        act.record.action = "partitioned {" + join(act.names(side_a)) + "} " +
                            (act.spec.one_way ? "-/->" : "<-/->") + " {" + join(other) +
                            "} until " + fault_time_text(heal_at);
        act.lasts_until(heal_at);
        act.world.scheduler().schedule_at(heal_at, kNoNode, kFaultHeal, partition,
                                          [network, partition] { network->heal(partition); });
    }
};

// `Network::slow_link(nodes[0], nodes[1], multiplier, duration)`.
class SlowLinkFiring final : public FaultFiring {
public:
    SlowLinkFiring() : FaultFiring(FaultKind::slow_link, FaultTargets::link) {}

    std::string check(const FaultSpec& spec, const OutsideFaults&) const override {
        return spec.multiplier < 1 ? "multiplier must be at least 1" : "";
    }
    void fire(FaultAct& act) const override {
        act.world.network().slow_link(act.targets[0], act.targets[1], act.spec.multiplier,
                                      act.spec.duration);
        act.record.nodes = act.names(act.targets);
        act.record.action = "latency x" + std::to_string(act.spec.multiplier) + " until " +
                            fault_time_text(act.until());
        act.lasts_until(act.until());
    }
};

// Datagrams of the named kinds are lost with `ratio` for duration (`Network::lose_datagrams`).
class MessageLossFiring final : public FaultFiring {
public:
    MessageLossFiring() : FaultFiring(FaultKind::message_loss, FaultTargets::none) {}

    void fire(FaultAct& act) const override {
        std::vector<uint64_t> kinds;
        std::string names;
        for (const std::string& message : act.spec.messages) {
            kinds.push_back(stable_hash(message));
            names += (names.empty() ? "" : ", ") + message;
        }
        act.record.handle =
            act.world.network().lose_datagrams(std::move(kinds), act.spec.ratio, act.until());
        act.record.action = "lose " + std::to_string(act.spec.ratio.numerator) + "/" +
                            std::to_string(act.spec.ratio.denominator) + " of " + names +
                            " until " + fault_time_text(act.until());
        act.lasts_until(act.until());
    }
};

}  // namespace

void add_network_firings(FaultFirings& registry) {
    static const PartitionFiring partition;
    static const SlowLinkFiring slow_link;
    static const MessageLossFiring message_loss;
    registry.add(partition);
    registry.add(slow_link);
    registry.add(message_loss);
}

}  // namespace eosim::sim
