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
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpointing/execution_gateway.h"
#include "engine/connectors/outside_systems.h"
#include "engine/runtime/job_topology.h"
#include "engine/runtime/record_batch_pool.h"
#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/engine_stats.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/run_observer.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/external/coordination_service.h"
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
    // Appended to every node name: a later deployment's cluster ("jobmanager.v2", "tm0.v2").
    std::string node_suffix{};
    // Flink's cluster.evenly-spread-out-slots: slots spread over the TaskManagers instead of
    // filling them in order (engine/runtime/slot_placement.h).
    bool evenly_spread_out_slots = false;
};

// A savepoint the user asked for, as a CLI or REST client does, kept outside every process (a
// crash loses none) and asked again until it is done, as a user retries a failed request: an
// intermediate one is done when it completed; a stop-with-savepoint when the job FINISHED after it.
struct SavepointRequest {
    SnapshotType type;
    bool done = false;
    int64_t savepoint_id = 0;  // the last savepoint that completed for it
    std::string path{};        // its _metadata (the path a user restores from)
    SourceOffsets offsets{};   // its source offsets
};

// Where a deployment restores from when it has no checkpoint of its own (Flink's
// SavepointRestoreSettings: `flink run -s PATH [--allowNonRestoredState]`).
struct SavepointRestoreSettings {
    std::string
        path;  // a savepoint's _metadata, or a retained checkpoint's (then `checkpoint_of` is set)
    bool allow_non_restored_state = false;
    // A retained checkpoint's: the job that wrote it. Flink's checkpoint metadata names operators
    // by id; eosim's by the writer's vertex index, which the writer's program maps to uids.
    const JobSpec* checkpoint_of = nullptr;
};

// JobManager high availability (engine/runtime/leader_election.h): `job_managers` JobManager
// processes ("jobmanager", "jobmanager-1", ...) elect a leader through `service`. Without a service
// there is one JobManager, and `without_ha` says what a restarted one does.
struct HighAvailability {
    sim::external::CoordinationService* service = nullptr;
    int32_t job_managers = 1;
    sim::Duration session_timeout = sim::Duration::seconds(2);
    // Flink's high-availability.zookeeper.client.tolerate-suspended-connections: a leader that
    // hears nothing from the service keeps leading until the service says its session expired
    // (instead of giving up after a session timeout of silence). Safety then rests on fencing
    // alone.
    bool tolerate_suspended_connections = false;
    // Negative-control switch: false, the engine does not tell its observers that the leader was
    // lost (RunObserver::job_manager_lost, as eosim did before): its checkpoints in flight then
    // never end in what the harness hears (the checkpoint_history oracle's negative control).
    bool tell_leader_loss = true;
    NoHaRecovery without_ha = NoHaRecovery::application;  // used only without a service
    bool enabled() const { return service != nullptr; }
};

class Engine {
public:
    Engine(sim::World& world, const JobSpec& job, ClusterShape shape, EngineServices services,
           RunObserver& observer, HighAvailability high_availability = {});
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    // Boots every node's process at the current virtual time.
    void start();
    // Retires every process of a finished (or failed) job, so that its cluster goes quiet while
    // a later deployment runs; a restart of one of its nodes boots nothing.
    void shut_down();
    // Flink's cancel of a running job: every process stops at once, nothing more is written, and
    // the retained checkpoints stay in storage (externalized checkpoints, RETAIN_ON_CANCELLATION),
    // for a later deployment to start from. The job counts as ended (finished() is true).
    void cancel();
    bool cancelled() const { return cancelled_; }

    // A later deployment: attempt numbers start above `attempt_base` (no collision with an
    // earlier deployment's in the oracles), and the first restore is from `restore_from`.
    void set_deployment(int64_t attempt_base,
                        std::optional<SavepointRestoreSettings> restore_from) {
        attempt_base_ = attempt_base;
        restore_from_ = std::move(restore_from);
    }
    int64_t attempt_base() const { return attempt_base_; }
    const std::optional<SavepointRestoreSettings>& restore_from() const { return restore_from_; }
    // The user's savepoint requests; a running JobManager is asked at once.
    int32_t request_savepoint(SnapshotType type);
    const std::vector<SavepointRequest>& savepoint_requests() const { return savepoint_requests_; }
    // The coordinator completed a savepoint for request `index` (-1: none).
    void savepoint_completed(int32_t index, const CompletedCheckpoint& savepoint);
    // The job FINISHED: a stop-with-savepoint request is done.
    void job_finished_after_stop();
    // Why the job failed, when it did.
    const std::string& failure() const { return failure_; }
    void set_failure(const std::string& reason) { failure_ = reason; }
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
    // What the checkpoint coordinator reaches the job through
    // (engine/checkpointing/execution_gateway.h).
    ExecutionGateway& execution_gateway() { return *execution_gateway_; }
    // Spare record buffers shared by this engine's tasks (engine/runtime/record_batch_pool.h).
    RecordBatchPool& record_batches() { return record_batches_; }
    sim::NodeId job_manager_node() const { return job_manager_node_; }
    const std::vector<sim::NodeId>& job_manager_nodes() const { return job_manager_nodes_; }
    const HighAvailability& high_availability() const { return high_availability_; }
    bool is_job_manager_node(sim::NodeId node) const;
    const std::vector<sim::NodeId>& task_manager_nodes() const { return task_manager_nodes_; }
    // A JobManager deployed `deployment`: kept (it outlives the JobManager) and told to the
    // observer.
    void attempt_placed(const Deployment& deployment);
    // The TaskManager the latest attempt deployed put subtask `subtask` of vertex `vertex` on;
    // kNoNode before any deployment, or for a vertex or subtask the job does not have.
    sim::NodeId task_manager_running(const std::string& vertex, int32_t subtask) const;

    // The current process of a node; nullptr while it is down.
    JobManager* job_manager() { return job_manager_on(job_manager_node_); }
    JobManager* job_manager_on(sim::NodeId node);
    // The JobManager process on `node` if it is still the one numbered `instance` (processes are
    // numbered in boot order; an HA JobManager that loses leadership is replaced by a fresh one on
    // the same node, and the old one's timers and answers must not reach the new one).
    JobManager* job_manager_on(sim::NodeId node, uint64_t instance);
    // HA: the JobManager on `node` lost leadership; a fresh process takes its place (a standby).
    void replace_job_manager(sim::NodeId node);
    // Tells the observers that the JobManager on `node` is gone ("crashed", "lost its leadership:
    // ..."), when it ran the job (RunObserver::job_manager_lost).
    void job_manager_lost(sim::NodeId node, const std::string& why);
    // HA: the JobManager on `node` was granted leadership; a previous leader that does not know yet
    // (paused, cut off from the service) lost it then: told now, not when it learns.
    void leader_granted(sim::NodeId node);
    TaskManager* task_manager(sim::NodeId node);
    Task* find_task(sim::NodeId node, const TaskKey& key);

    // Best-effort RPCs (datagrams): `handler` runs on the target's process when it arrives.
    void send_to_job_manager(sim::NodeId from, const sim::EventKind& kind, uint64_t digest,
                             std::function<void(JobManager&)> handler);
    void send_to_task_manager(sim::NodeId from, sim::NodeId to, const sim::EventKind& kind,
                              uint64_t digest, std::function<void(TaskManager&)> handler);
    // Runs `handler(Task&)` on task `key` at `node` after `delay`, if the task still exists then.
    // A template rather than a std::function parameter: the handler is stored inside the one
    // scheduler callback instead of a second heap-allocated function (every record buffer pays
    // this).
    template <typename Handler>
    void schedule_for_task(sim::NodeId node, const TaskKey& key, sim::Duration delay,
                           const sim::EventKind& kind, Handler handler) {
        world_.scheduler().schedule(delay, node, kind, task_digest(key),
                                    [this, node, key, handler = std::move(handler)] {
                                        if (Task* task = find_task(node, key)) handler(*task);
                                    });
    }

    // A sink's own timer (SinkContext::after): runs while the task runs, and after the task was
    // cancelled while its process lives (RunObserver::closed_sink_timer_fired), not after a crash.
    void schedule_for_sink(sim::NodeId node, const TaskKey& key, sim::Duration delay,
                           const sim::EventKind& kind, std::function<void()> fn);
    // The digest of task `key`'s own events (its timers): what a readable trace names it by.
    static uint64_t task_digest(const TaskKey& key);

private:
    void boot_job_manager(sim::NodeId node);
    void boot_task_manager(sim::NodeId node);
    void retire(sim::NodeId node);

    sim::World& world_;
    const JobSpec& job_;
    JobTopology topology_;
    ClusterShape shape_;
    EngineServices services_;
    RunObserver& observer_;
    EngineStats stats_;
    RecordBatchPool record_batches_;
    HighAvailability high_availability_;
    sim::NodeId job_manager_node_;
    std::vector<sim::NodeId> job_manager_nodes_;
    std::vector<sim::NodeId> task_manager_nodes_;
    std::vector<std::vector<sim::NodeId>>
        placement_;  // the latest attempt deployed: [vertex][subtask]
    std::map<sim::NodeId, std::unique_ptr<JobManager>> job_managers_;
    uint64_t job_manager_instances_ = 0;
    // By node id (a few dozen nodes at most): every message to a task looks its TaskManager up
    // here.
    std::vector<std::unique_ptr<TaskManager>> task_managers_;
    // Processes of crashed incarnations: their code may still be on the stack when the crash
    // happens (a crash placed at a protocol point), so they are destroyed at the next event.
    std::vector<std::unique_ptr<JobManager>> retired_job_managers_;
    std::vector<std::unique_ptr<TaskManager>> retired_task_managers_;
    bool finished_ = false;
    bool failed_ = false;
    bool started_ = false;  // start() ran: before it, a node's restart boots nothing (a later
                            // deployment's cluster)
    bool shut_down_ = false;
    bool cancelled_ = false;
    int64_t attempt_base_ = 0;
    std::optional<SavepointRestoreSettings> restore_from_;
    std::vector<SavepointRequest> savepoint_requests_;
    std::string failure_;
    std::unique_ptr<ExecutionGateway> execution_gateway_;
};

}  // namespace eosim::engine
