#include "oracles/oracle_registry.h"

#include <stdexcept>

namespace eosim::oracles {

void OracleRunHooks::started() const {
    for (const auto& f : start_) f();
}

void OracleRunHooks::program_started(const engine::JobSpec& program,
                                     bool from_previous_stop) const {
    for (const auto& f : hand_over_) f(from_previous_stop);
    for (const auto& f : program_) f(program);
}

void OracleRunHooks::verification_ran(const VerificationRun& run) const {
    for (const auto& f : verification_) f(run);
}

void OracleRunHooks::cut(const std::string& why) const {
    for (const auto& f : cut_) f(why);
}

void OracleRunHooks::job_failed(const CommittedPrefix& prefix) const {
    for (const auto& f : job_failed_) f(prefix);
}

std::string CommittedPrefix::describe() const {
    const std::string cuts =
        lower_name == upper_name ? upper_name : lower_name + " .. " + upper_name;
    return "the committed prefix (" + cuts + ") of the failed job";
}

OracleRegistry& OracleRegistry::global() {
    static OracleRegistry registry = [] {
        OracleRegistry r;
        register_builtin_oracles(r);
        return r;
    }();
    return registry;
}

void OracleRegistry::add(OracleRegistration registration) {
    if (registration.name.empty() || !registration.needs || !registration.make) {
        throw std::logic_error("an oracle kind needs a name, a needs function and a make function");
    }
    if (find(registration.name) != nullptr) {
        throw std::logic_error("oracle kind \"" + registration.name + "\" is registered twice");
    }
    kinds_.push_back(std::move(registration));
}

const OracleRegistration* OracleRegistry::find(const std::string& name) const {
    for (const OracleRegistration& kind : kinds_) {
        if (kind.name == name) return &kind;
    }
    return nullptr;
}

std::vector<std::string> OracleRegistry::names() const {
    std::vector<std::string> out;
    for (const OracleRegistration& kind : kinds_) out.push_back(kind.name);
    return out;
}

}  // namespace eosim::oracles
