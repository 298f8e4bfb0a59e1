#pragma once
// Deletes checkpoint files for the coordinator, asynchronously and best effort (Flink's
// CheckpointsCleaner): a failed delete is tried again up to 10 times, a heartbeat interval apart,
// as long as the JobManager process that asked lives (a crash leaves the file as an orphan).
// What it deletes is counted in the run's figures (EngineStats).
//
// What the coordinator discards through it (checkpoint_coordinator.h): the last `retained`
// completed checkpoints are kept; the state of every other checkpoint is discarded (older completed
// ones, aborted ones with the state acknowledged so far, and state acknowledged late for a
// checkpoint that is no longer pending), as Flink does. What is not discarded: state whose
// acknowledgement never arrives (lost, or its JobManager died), and the pending checkpoints of a
// crashed JobManager.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/checkpointing/execution_gateway.h"
#include "engine/vocabulary/deployment.h"

namespace eosim::engine {

class CheckpointsCleaner {
public:
    // For the coordinator of JobManager process `instance` on `node`.
    CheckpointsCleaner(ExecutionGateway& gateway, sim::NodeId node, uint64_t instance)
        : gateway_(gateway), node_(node), instance_(instance) {}

    // Every state file of `checkpoint` and its metadata (last), counted; `completed`: it was
    // completed (a savepoint's state files then stay: they are the user's). Its shared files are
    // the shared-state registry's to release.
    void discard_files(const CompletedCheckpoint& checkpoint, bool completed);
    // A state file no checkpoint holds (an acknowledgement that came late), counted.
    void discard_state(const std::string& key, int64_t bytes);
    // Shared files no checkpoint refers to any more: announced (shared_state.discarded), deleted,
    // counted.
    void discard_shared(const std::vector<std::string>& keys);
    // One file, not counted.
    void discard_file(const std::string& key);

private:
    void remove(const std::string& key, int32_t tries_left);

    ExecutionGateway& gateway_;
    sim::NodeId node_;
    uint64_t instance_;
};

}  // namespace eosim::engine
