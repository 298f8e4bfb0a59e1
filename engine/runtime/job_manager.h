#pragma once
// The JobManager process: keeps the registry of TaskManagers (registration and heartbeats),
// deploys the job's attempts, runs the checkpoint coordinator, and fails the job over.
//
// Failover (Flink's full restart): when a task fails, a TaskManager running tasks stops answering
// heartbeats, a deployment times out, or too many checkpoints fail, the current attempt is
// cancelled everywhere; after the restart strategy's delay a new attempt is deployed on the
// TaskManagers registered then (restarted or spare), restoring every task from the latest
// completed checkpoint. More failovers than the strategy allows fail the job for good.
//
// A JobManager that starts after a crash of the previous one first recovers the latest completed
// checkpoint (and the highest checkpoint id ever made durable) from durable storage, then waits for the
// TaskManagers, which drop their tasks and register again once they miss its heartbeats. Attempt
// numbers are `incarnation * 1000 + n`, so attempts of different JobManagers never collide.
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "engine/checkpointing/checkpoint_coordinator.h"
#include "engine/runtime/deployment.h"

namespace eosim::engine {

class Engine;

class JobManager {
public:
    JobManager(Engine& engine, sim::NodeId node);

    sim::NodeId node() const { return node_; }
    CheckpointCoordinator& coordinator() { return coordinator_; }
    void boot();

    // RPCs from TaskManagers.
    // `instance` tells TaskManager processes apart: a new one on the same node restarted and lost its tasks.
    void register_task_manager(sim::NodeId tm, uint32_t instance, int32_t slots);
    void heartbeat_reply(sim::NodeId tm);
    void task_ready(const TaskKey& task);
    void task_failed(const TaskKey& task, const std::string& reason);
    // A heartbeat says tasks of `attempt` on `tm` still wait for their start: send it again when
    // the attempt is the running one (the first start was lost).
    void tasks_waiting_to_start(sim::NodeId tm, int64_t attempt);
    void task_finished(const TaskKey& task);
    // Every acknowledgement reaches the coordinator, also one of an older attempt: its state is discarded.
    void acknowledge_checkpoint(const TaskKey& task, int64_t checkpoint_id, const std::string& handle, int64_t state_bytes,
                                const SourceOffsets& offsets, const SharedStateReport& shared = {});
    void decline_checkpoint(const TaskKey& task, int64_t checkpoint_id, CheckpointFailureReason reason,
                            const std::string& detail);

private:
    enum class Phase : uint8_t { recovering, waiting_for_resources, deploying, running, restarting, finished, failed };
    struct Registered {
        uint32_t instance;
        int32_t slots;
        sim::Time last_heard;
    };

    void heartbeat_round();
    void send_start(sim::NodeId tm);
    void recover_checkpoints();
    void recovered(const std::vector<std::string>& keys);
    void try_deploy();
    void failover(const std::string& reason);
    bool hosts_current_tasks(sim::NodeId tm) const;
    bool is_current(const TaskKey& task) const;
    int32_t total_subtasks() const;

    Engine& engine_;
    sim::NodeId node_;
    CheckpointCoordinator coordinator_;
    Phase phase_ = Phase::recovering;
    int64_t attempt_ = 0;
    std::map<sim::NodeId, Registered> task_managers_;
    Deployment deployment_;
    std::set<std::pair<int32_t, int32_t>> ready_;
    std::set<std::pair<int32_t, int32_t>> finished_;
};

}  // namespace eosim::engine
