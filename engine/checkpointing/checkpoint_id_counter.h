#pragma once
// The checkpoint id counter of an HA JobManager, in the coordination service, after Flink's
// ZooKeeperCheckpointIDCounter (a shared count moved by compare-and-set): the node
// `/eosim/<job>/checkpoint-id-counter` holds the last id handed out. `increment` reads it and sets
// it one higher with the version it read and the leader's fence, so two JobManagers never hand out
// the same id and a deposed leader moves nothing; the id is durable before its trigger goes out.
// A value type, like CompletedCheckpointStore.
#include <cstdint>
#include <functional>
#include <string>

#include "engine/checkpointing/leader_session.h"
#include "sim/external/coordination_service.h"

namespace eosim::engine {

class CheckpointIdCounter {
public:
    using Value = std::function<void(bool ok, int64_t value)>;

    CheckpointIdCounter(const LeaderSession& session, sim::NodeId node);

    // The last id handed out (0: none yet).
    void get(Value done) const;
    // Hands out the next id, above `floor` too (a job restored from savepoint `floor` continues its
    // ids above it, as Flink's restoreSavepoint sets the counter).
    void increment(Value done, int64_t floor = 0) const;

private:
    sim::external::CoordinationService* service_;
    sim::NodeId node_;
    sim::external::SessionId session_;
    sim::external::Fence fence_;
    std::string path_;
};

}  // namespace eosim::engine
