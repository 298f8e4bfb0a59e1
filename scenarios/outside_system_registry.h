#pragma once
// The registry of outside systems a scenario can name (besides Kafka and the append store, which
// every run has): one registration per system -- its name, what it is, whether it has batch
// requests with per-item failures, and how to build its model. Adding a system is one entry in
// `registrations()` (outside_system_registry.cpp); the loader, the fault injector's generic kinds
// (`system_unavailable`, `system_write_errors`, `bulk_partial_failure`, with "system": name) and
// the runner all read this table.
//
// A run builds only the systems its scenario uses (`Scenario::outside_systems`: named by a fault's
// "system", by a fault's nodes, or by the sink), each on a node of its own named after it, added
// after Kafka and the append store in registration order. A scenario that uses none adds no node,
// so its trace hash is what it was before the registry existed.
//
// A sink kind asks for a system while it reads its options (engine::SinkWorld::has_system): the
// loader then builds it for the run, and the runner hands it to the sinks (engine::OutsideSystems).
//
// Not here: the models themselves (sim/external/), and which sink uses which system (the sink kind
// says so).
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/connectors/outside_systems.h"
#include "sim/external/outside_system.h"
#include "sim/outside_fault_target.h"
#include "sim/world.h"

namespace eosim::scenarios {

struct OutsideSystemRegistration {
    std::string_view name;         // "documents": in faults' "system" and as the node's name
    std::string_view description;  // for people (schema, README, error messages)
    bool partial_batch_failures = false;  // accepts bulk_partial_failure
    // Builds the model on `node`; `world` gives its PRNG stream (world.prng(name)) if it needs one.
    std::unique_ptr<sim::OutsideFaultTarget> (*make)(sim::World& world, sim::NodeId node) = nullptr;
    // Hands the model (made by `make`) to the connectors: sets its pointer in `systems`.
    void (*expose)(sim::OutsideFaultTarget& model, engine::OutsideSystems& systems) = nullptr;
};

// Every registered system, in registration order.
const std::vector<OutsideSystemRegistration>& outside_system_registrations();
// nullptr when no system has that name.
const OutsideSystemRegistration* find_outside_system(std::string_view name);
std::vector<std::string> outside_system_names();

// The outside systems of one run, built in registration order.
class RunOutsideSystems {
public:
    RunOutsideSystems(sim::World& world, const std::vector<std::string>& used);

    // The model of `name` as a `T`, or nullptr when the run does not have it (or it is not a T).
    template <typename T>
    T* find(std::string_view name) const {
        for (const Entry& entry : systems_) {
            if (entry.name == name) return dynamic_cast<T*>(entry.model.get());
        }
        return nullptr;
    }
    // Sets the pointer of every system of the run in `systems` (for the sinks).
    void expose(engine::OutsideSystems& systems) const;
    // The statistics of every system of the run that keeps them (sim/external/outside_system.h), added up.
    sim::external::OutsideSystemStats total_stats() const;
    // Every system of the run by name, for the fault injector's generic kinds.
    std::map<std::string, sim::OutsideFaultTarget*> fault_targets() const;

private:
    struct Entry {
        std::string name;
        std::unique_ptr<sim::OutsideFaultTarget> model;
    };
    std::vector<Entry> systems_;
};

}  // namespace eosim::scenarios
