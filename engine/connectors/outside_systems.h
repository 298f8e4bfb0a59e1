#pragma once
// The outside systems of a run that connectors reach (the models in sim/external/). A system the
// scenario does not declare is nullptr; a sink kind that needs one says so when it is configured
// (SinkWorld::has_system), so a run never meets a missing system. The run builds and hands them
// over through the outside-system registry (scenarios/outside_system_registry.h).
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace eosim::sim::external {
class KafkaCluster;
class AppendStore;
class DocumentStore;
class KeyValueStore;
class ObjectStore;
class Database;
class CoordinationService;
}  // namespace eosim::sim::external

namespace eosim::engine {

// The databases a connector asks for by its role: a CDC source reads the scenario's "database"
// (node "mysql-source"); an upsert sink writes its own (node "mysql-target").
inline constexpr std::string_view kCdcSourceDatabase = "mysql-source";
inline constexpr std::string_view kUpsertTargetDatabase = "mysql-target";
// A user's database sink asks for its own database (node "database") with
// SinkWorld::has_system("database"); its tables are the sink's to create (Database::create_table,
// idempotent).
inline constexpr std::string_view kSinkDatabase = "database";

struct OutsideSystems {
    sim::external::KafkaCluster* kafka = nullptr;
    sim::external::AppendStore* append_store = nullptr;
    // Built only when the scenario uses them (scenarios/outside_system_registry.h); a sink kind
    // asks for one with SinkWorld::has_system("documents" / "key_values" / "objects" / "database").
    sim::external::DocumentStore* documents = nullptr;
    sim::external::KeyValueStore* key_values = nullptr;
    sim::external::ObjectStore* objects = nullptr;
    sim::external::CoordinationService* coordination =
        nullptr;  // JobManager HA's (with high_availability)
    // Databases by name, in the order the run built them.
    std::vector<std::pair<std::string, sim::external::Database*>> databases;

    // The database named `name` (kCdcSourceDatabase, kUpsertTargetDatabase, kSinkDatabase), nullptr
    // when the run has none.
    sim::external::Database* database(std::string_view name) const {
        for (const auto& [database_name, database] : databases) {
            if (database_name == name) return database;
        }
        return nullptr;
    }
};

}  // namespace eosim::engine
