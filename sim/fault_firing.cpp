#include "sim/fault_firing.h"

#include <cstdio>
#include <stdexcept>

namespace eosim::sim {

std::string fault_time_text(Time at) {
    char text[48];
    std::snprintf(text, sizeof text, "%lld.%03llds", static_cast<long long>(at.ns / 1'000'000'000),
                  static_cast<long long>((at.ns / 1'000'000) % 1000));
    return text;
}

std::vector<std::string> FaultAct::names(const std::vector<NodeId>& ids) const {
    std::vector<std::string> out;
    for (NodeId id : ids) out.push_back(world.nodes().name(id));
    return out;
}

FaultFiring::FaultFiring(FaultKind kind, FaultTargets targets)
    : kind_(kind),
      targets_(targets),
      trace_name_(std::string("fault.") + kind.name()),
      traced_as_(trace_name_) {}

std::string FaultFiring::check(const FaultSpec&, const OutsideFaults&) const { return ""; }

FaultFirings& FaultFirings::global() {
    static FaultFirings registry = [] {
        FaultFirings r;
        add_node_firings(r);
        add_network_firings(r);
        add_storage_firings(r);
        add_kafka_firings(r);
        add_system_firings(r);
        return r;
    }();
    return registry;
}

void FaultFirings::add(const FaultFiring& firing) {
    const FaultFiring* known = find(firing.kind());
    if (known == &firing) return;
    if (known != nullptr)
        throw std::logic_error(std::string("fault kind \"") + firing.kind().name() +
                               "\" is registered twice");
    firings_.push_back(&firing);
}

const FaultFiring* FaultFirings::find(FaultKind kind) const {
    for (const FaultFiring* firing : firings_) {
        if (firing->kind() == kind) return firing;
    }
    return nullptr;
}

std::vector<FaultKind> FaultFirings::kinds() const {
    std::vector<FaultKind> out;
    for (const FaultFiring* firing : firings_) out.push_back(firing->kind());
    return out;
}

}  // namespace eosim::sim
