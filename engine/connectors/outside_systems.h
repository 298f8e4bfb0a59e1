#pragma once
// The outside systems of a run that connectors reach (the models in sim/external/). A system the
// scenario does not declare is nullptr; a sink kind that needs one says so when it is configured
// (SinkWorld::has_system), so a run never meets a missing system.
namespace eosim::sim::external {
class KafkaCluster;
class AppendStore;
class Database;
}  // namespace eosim::sim::external

namespace eosim::engine {

struct OutsideSystems {
    sim::external::KafkaCluster* kafka = nullptr;
    sim::external::AppendStore* append_store = nullptr;
    sim::external::Database* source_database = nullptr;  // a CDC source's (node mysql-source)
    sim::external::Database* target_database = nullptr;  // an upsert sink's (node mysql-target)
};

}  // namespace eosim::engine
