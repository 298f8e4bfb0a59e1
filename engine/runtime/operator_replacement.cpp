#include "engine/runtime/operator_replacement.h"

#include <map>
#include <stdexcept>

namespace eosim::engine {

namespace {
std::map<OperatorKind, OperatorFactory>& replacements() {
    static std::map<OperatorKind, OperatorFactory> table;
    return table;
}
}  // namespace

const OperatorFactory* operator_replacement(OperatorKind kind) {
    const auto& table = replacements();
    if (table.empty()) return nullptr;
    auto it = table.find(kind);
    return it == table.end() ? nullptr : &it->second;
}

ScopedOperatorReplacement::ScopedOperatorReplacement(OperatorKind kind, OperatorFactory factory)
    : kind_(kind) {
    if (!replacements().emplace(kind, std::move(factory)).second) {
        throw std::logic_error(std::string("an operator replacement for ") + to_string(kind) +
                               " is already set");
    }
}

ScopedOperatorReplacement::~ScopedOperatorReplacement() { replacements().erase(kind_); }

}  // namespace eosim::engine
