#include "scenarios/outside_system_registry.h"

#include <algorithm>

#include "sim/external/database.h"
#include "sim/external/document_store.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"

namespace eosim::scenarios {

namespace {

std::vector<OutsideSystemRegistration> make_registrations() {
    return {
        {"documents", "an Elasticsearch-like document store (sim/external/document_store.h)", true,
         [](sim::World& world, sim::NodeId node) -> std::unique_ptr<sim::OutsideFaultTarget> {
             return std::make_unique<sim::external::DocumentStore>(world.scheduler(), world.network(), node,
                                                                   world.prng("documents"));
         },
         [](sim::OutsideFaultTarget& model, engine::OutsideSystems& systems) {
             systems.documents = &dynamic_cast<sim::external::DocumentStore&>(model);
         }},
        {"key_values", "a Redis-like key-value store (sim/external/key_value_store.h)", false,
         [](sim::World& world, sim::NodeId node) -> std::unique_ptr<sim::OutsideFaultTarget> {
             return std::make_unique<sim::external::KeyValueStore>(world.scheduler(), world.network(), node);
         },
         [](sim::OutsideFaultTarget& model, engine::OutsideSystems& systems) {
             systems.key_values = &dynamic_cast<sim::external::KeyValueStore&>(model);
         }},
        {"objects", "an S3/HDFS-like object store (sim/external/object_store.h)", false,
         [](sim::World& world, sim::NodeId node) -> std::unique_ptr<sim::OutsideFaultTarget> {
             return std::make_unique<sim::external::ObjectStore>(world.scheduler(), world.network(), node);
         },
         [](sim::OutsideFaultTarget& model, engine::OutsideSystems& systems) {
             systems.objects = &dynamic_cast<sim::external::ObjectStore&>(model);
         }},
        {"database", "a MySQL-like database with a binlog, for a user's database sink (sim/external/database.h)", false,
         [](sim::World& world, sim::NodeId node) -> std::unique_ptr<sim::OutsideFaultTarget> {
             return std::make_unique<sim::external::Database>(world.scheduler(), world.network(), node);
         },
         [](sim::OutsideFaultTarget& model, engine::OutsideSystems& systems) {
             systems.database = &dynamic_cast<sim::external::Database&>(model);
         }},
    };
}

}  // namespace

const std::vector<OutsideSystemRegistration>& outside_system_registrations() {
    static const std::vector<OutsideSystemRegistration> registrations = make_registrations();
    return registrations;
}

const OutsideSystemRegistration* find_outside_system(std::string_view name) {
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (r.name == name) return &r;
    }
    return nullptr;
}

std::vector<std::string> outside_system_names() {
    std::vector<std::string> names;
    for (const OutsideSystemRegistration& r : outside_system_registrations()) names.emplace_back(r.name);
    return names;
}

RunOutsideSystems::RunOutsideSystems(sim::World& world, const std::vector<std::string>& used) {
    for (const OutsideSystemRegistration& r : outside_system_registrations()) {
        if (std::find(used.begin(), used.end(), r.name) == used.end()) continue;
        const sim::NodeId node = world.nodes().add(std::string(r.name));
        systems_.push_back(Entry{std::string(r.name), r.make(world, node)});
    }
}

void RunOutsideSystems::expose(engine::OutsideSystems& systems) const {
    for (const Entry& entry : systems_) find_outside_system(entry.name)->expose(*entry.model, systems);
}

sim::external::OutsideSystemStats RunOutsideSystems::total_stats() const {
    sim::external::OutsideSystemStats total;
    for (const Entry& entry : systems_) {
        const auto* system = dynamic_cast<const sim::external::OutsideSystem*>(entry.model.get());
        if (system == nullptr) continue;
        total.calls += system->stats().calls;
        total.failed_calls += system->stats().failed_calls;
        total.writes_applied += system->stats().writes_applied;
        total.absorbed_duplicates += system->stats().absorbed_duplicates;
    }
    return total;
}

std::map<std::string, sim::OutsideFaultTarget*> RunOutsideSystems::fault_targets() const {
    std::map<std::string, sim::OutsideFaultTarget*> out;
    for (const Entry& entry : systems_) out.emplace(entry.name, entry.model.get());
    return out;
}

}  // namespace eosim::scenarios
