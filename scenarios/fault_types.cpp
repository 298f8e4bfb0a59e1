#include "scenarios/fault_types.h"

#include <stdexcept>

#include "scenarios/faults/builtin_fault_types.h"

namespace eosim::scenarios {

std::vector<std::string> FaultType::candidate_nodes(int32_t task_managers) const {
    std::vector<std::string> nodes;
    for (int32_t i = 0; i < task_managers; ++i) nodes.push_back("tm" + std::to_string(i));
    return nodes;
}

FaultTypes& FaultTypes::global() {
    static FaultTypes registry = [] {
        FaultTypes r;
        register_builtin_fault_types(r);
        return r;
    }();
    return registry;
}

void FaultTypes::add(const FaultType& type) {
    const FaultType* known = find(type.name());
    if (known == &type) return;
    if (known != nullptr)
        throw std::logic_error(std::string("fault kind \"") + type.name() +
                               "\" is registered twice");
    sim::FaultFirings::global().add(type.firing());
    types_.push_back(&type);
}

const FaultType* FaultTypes::find(std::string_view name) const {
    for (const FaultType* type : types_) {
        if (name == type->name()) return type;
    }
    return nullptr;
}

const FaultType& FaultTypes::of(sim::FaultKind kind) const {
    const FaultType* type = find(kind.name());
    if (type == nullptr)
        throw std::logic_error(std::string("fault kind \"") + kind.name() + "\" is not registered");
    return *type;
}

std::vector<std::string> FaultTypes::names() const {
    std::vector<std::string> out;
    for (const FaultType* type : types_) out.emplace_back(type->name());
    return out;
}

}  // namespace eosim::scenarios
