#pragma once
// The outside systems of a run that connectors reach (the models in sim/external/). A system the
// scenario does not declare is nullptr; a sink kind that needs one says so when it is configured
// (SinkWorld::has_system), so a run never meets a missing system.
namespace eosim::sim::external {
class KafkaCluster;
class AppendStore;
class DocumentStore;
class KeyValueStore;
class ObjectStore;
class Database;
}  // namespace eosim::sim::external

namespace eosim::engine {

struct OutsideSystems {
    sim::external::KafkaCluster* kafka = nullptr;
    sim::external::AppendStore* append_store = nullptr;
    // Built only when the scenario uses them (scenarios/outside_system_registry.h); a sink kind
    // asks for one with SinkWorld::has_system("documents" / "key_values" / "objects" / "database").
    sim::external::DocumentStore* documents = nullptr;
    sim::external::KeyValueStore* key_values = nullptr;
    sim::external::ObjectStore* objects = nullptr;
    sim::external::Database* source_database = nullptr;  // a CDC source's (node mysql-source)
    sim::external::Database* target_database = nullptr;  // an upsert sink's (node mysql-target)
    // A user's database sink's (node "database", SinkWorld::has_system("database")): tables are
    // the sink's to create (Database::create_table, idempotent).
    sim::external::Database* database = nullptr;
};

}  // namespace eosim::engine
