#pragma once
// The outside systems of a run that connectors reach (the models in sim/external/). A system the
// scenario does not declare is nullptr; a sink kind that needs one says so when it is configured
// (SinkWorld::has_system), so a run never meets a missing system.
namespace eosim::sim::external {
class KafkaCluster;
class AppendStore;
class ObjectStore;
}  // namespace eosim::sim::external

namespace eosim::engine {

struct OutsideSystems {
    sim::external::KafkaCluster* kafka = nullptr;
    sim::external::AppendStore* append_store = nullptr;
    sim::external::ObjectStore* object_store = nullptr;  // built when a sink's config names "objects"
};

}  // namespace eosim::engine
