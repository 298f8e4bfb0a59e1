#pragma once
// The engine's root: creates the JobManager and TaskManager nodes, boots a fresh process object on
// each (re)start of a node and retires it on a crash, and carries messages between processes.
//
// Processes never hold pointers to each other. A message or timer names its target by node and
// ids and is resolved when it arrives; a target that crashed, or a task of an older attempt, is
// simply not found and the message is dropped, as on a real network.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "engine/checkpointing/checkpoint_failure_reason.h"
#include "engine/connectors/outside_systems.h"
#include "engine/runtime/deployment.h"
#include "engine/runtime/job_spec.h"
#include "engine/runtime/job_topology.h"
#include "engine/runtime/run_observer.h"
#include "sim/world.h"

namespace eosim::engine {

class JobManager;
class TaskManager;
class Task;

struct EngineServices {
    OutsideSystems systems;
    SourceOffsets input_end_offsets;  // the bounded input: where each source partition ends
};

struct ClusterShape {
    int32_t task_managers = 2;
    int32_t slots_per_task_manager = 4;
    int32_t spare_task_managers = 0;
};

// Figures of a run, kept outside the processes so that crashes do not erase them.
struct EngineStats {
    int64_t checkpoints_triggered = 0;
    int64_t checkpoints_completed = 0;
    int64_t checkpoints_aborted = 0;
    std::map<CheckpointFailureReason, int64_t> checkpoints_aborted_by_reason;
    int64_t checkpoint_trigger_failures = 0;  // the id could not be made durable (also counted as aborted)
    // Checkpoint files the coordinator deleted (or is deleting): aborted checkpoints' state, late
    // acknowledgements' state, completed checkpoints past `retained`.
    int64_t checkpoint_files_discarded = 0;
    int64_t checkpoint_bytes_discarded = 0;
    int64_t failovers = 0;
    int64_t records_read = 0;
    // Incremental state: shared files uploaded by completed checkpoints, and referred to by them.
    int64_t shared_bytes_uploaded = 0;
    int64_t shared_bytes_referenced = 0;
    int64_t shared_files_discarded = 0;
};

class Engine {
public:
    Engine(sim::World& world, const JobSpec& job, ClusterShape shape, EngineServices services, RunObserver& observer);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Boots every node's process at the current virtual time.
    void start();
    bool finished() const { return finished_; }
    bool failed() const { return failed_; }
    void mark_finished() { finished_ = true; }
    void mark_failed() { failed_ = true; }

    sim::World& world() { return world_; }
    const JobSpec& job() const { return job_; }
    const JobTopology& topology() const { return topology_; }
    const ClusterShape& shape() const { return shape_; }
    EngineServices& services() { return services_; }
    RunObserver& observer() { return observer_; }
    EngineStats& stats() { return stats_; }
    sim::NodeId job_manager_node() const { return job_manager_node_; }
    const std::vector<sim::NodeId>& task_manager_nodes() const { return task_manager_nodes_; }

    // The current process of a node; nullptr while it is down.
    JobManager* job_manager() { return job_manager_.get(); }
    TaskManager* task_manager(sim::NodeId node);
    Task* find_task(sim::NodeId node, const TaskKey& key);

    // Best-effort RPCs (datagrams): `handler` runs on the target's process when it arrives.
    void send_to_job_manager(sim::NodeId from, const sim::EventKind& kind, uint64_t digest,
                             std::function<void(JobManager&)> handler);
    void send_to_task_manager(sim::NodeId from, sim::NodeId to, const sim::EventKind& kind, uint64_t digest,
                              std::function<void(TaskManager&)> handler);
    // Runs `handler(Task&)` on task `key` at `node` after `delay`, if the task still exists then.
    // A template rather than a std::function parameter: the handler is stored inside the one
    // scheduler callback instead of a second heap-allocated function (every record buffer pays this).
    template <typename Handler>
    void schedule_for_task(sim::NodeId node, const TaskKey& key, sim::Duration delay, const sim::EventKind& kind,
                           Handler handler) {
        world_.scheduler().schedule(delay, node, kind, task_digest(key), [this, node, key, handler = std::move(handler)] {
            if (Task* task = find_task(node, key)) handler(*task);
        });
    }

private:
    static uint64_t task_digest(const TaskKey& key);
    void boot_job_manager();
    void boot_task_manager(sim::NodeId node);
    void retire(sim::NodeId node);

    sim::World& world_;
    const JobSpec& job_;
    JobTopology topology_;
    ClusterShape shape_;
    EngineServices services_;
    RunObserver& observer_;
    EngineStats stats_;
    sim::NodeId job_manager_node_;
    std::vector<sim::NodeId> task_manager_nodes_;
    std::unique_ptr<JobManager> job_manager_;
    std::map<sim::NodeId, std::unique_ptr<TaskManager>> task_managers_;
    // Processes of crashed incarnations: their code may still be on the stack when the crash
    // happens (a crash placed at a protocol point), so they are destroyed at the next event.
    std::vector<std::unique_ptr<JobManager>> retired_job_managers_;
    std::vector<std::unique_ptr<TaskManager>> retired_task_managers_;
    bool finished_ = false;
    bool failed_ = false;
};

}  // namespace eosim::engine
