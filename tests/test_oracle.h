#pragma once
// Registers a test's own oracle kind in the global registry (once per process, whatever the order
// tests run in), so that a scenario the test writes can list it by name: a stand-in for a
// component that misbehaves, seen through the harness as a user's oracle would be.
#include <memory>
#include <string>

#include "oracles/oracle_registry.h"

namespace eosim::testing {

// `OracleKind` is default-constructed for every run; it applies to every job.
template <typename OracleKind>
void register_test_oracle(const char* name, const char* description) {
    static const bool registered = [&] {
        oracles::OracleRegistry::global().add(
            {name, description, [](const oracles::OracleJobFacts&) { return std::string(); },
             [](oracles::OracleRunContext&) -> std::unique_ptr<oracles::Oracle> {
                 return std::make_unique<OracleKind>();
             }});
        return true;
    }();
    (void)registered;
}

}  // namespace eosim::testing
