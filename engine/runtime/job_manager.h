#pragma once
// The JobManager process: keeps the registry of TaskManagers (registration and heartbeats),
// deploys the job's attempts, runs the checkpoint coordinator, and fails the job over.
//
// Placement (engine/runtime/slot_placement.h): slot sharing groups, slots filled in TaskManager
// order or spread evenly; a JobManager's first deployment waits for the cluster's TaskManagers.
//
// Failover (Flink's full restart): when a task fails, a TaskManager running tasks stops answering
// heartbeats, a deployment times out, or too many checkpoints fail, the current attempt is
// cancelled everywhere; after the restart strategy's delay a new attempt is deployed on the
// TaskManagers registered then (restarted or spare), restoring every task from the latest
// completed checkpoint. More failovers than the strategy allows fail the job for good.
//
// Without HA (engine::NoHaRecovery), a JobManager that starts after a crash of the previous one
// finds no job graph and no completed checkpoint, as Flink's: in application mode (the default) the
// job is submitted again as it was, from its savepoint (restore_from) or from scratch; in a session
// cluster the job is lost (it ends FAILED); with the operator's script (storage_listing) it
// recovers the latest completed checkpoint found by listing durable storage. Every mode keeps the
// highest checkpoint id made durable, so ids (and files) never repeat. It then waits for the
// TaskManagers, which drop their tasks and register again once they miss its heartbeats. Attempt
// numbers are `attempt_base + incarnation * 1000 + n`, so attempts of different JobManagers (and
// deployments) never collide.
//
// With high availability (Engine::high_availability()), several JobManager processes run; each
// contends for leadership (engine/runtime/leader_election.h). A standby does nothing else and
// takes no TaskManager message. The leader recovers from the completed-checkpoint store and the id
// counter in the coordination service (never from a storage listing), announces itself to every
// TaskManager with its fencing token (its messages carry it; TaskManagers refuse older tokens),
// confirms its leadership with a fenced write before each deployment, and numbers its attempts
// `attempt_base + token * 1000 + n` (tokens strictly increase from leader to leader). A recovery
// round stuck on a read (slow storage) is abandoned for a new one after a timeout (the deployment
// timeout, doubled per round abandoned), so a leader either recovers or loses its leadership.
// A JobManager that loses leadership is replaced by a fresh standby process on its node.
//
// A deployment restored from a savepoint (Engine::restore_from) reads the savepoint's metadata
// when no checkpoint of its own exists (also after a JobManager restart, as Flink keeps the
// restore settings in the job graph), matches its operators by uid and refuses, failing the job
// with Flink's error, a savepoint it cannot take (engine/checkpointing/savepoint_storage.h).
// The user's savepoint requests (Engine::savepoint_requests) go to the coordinator whenever an
// attempt runs, until they are done.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "engine/checkpointing/checkpoint_coordinator.h"
#include "engine/vocabulary/deployment.h"

namespace eosim::engine {

class Engine;
class LeaderElection;

class JobManager {
public:
    JobManager(Engine& engine, sim::NodeId node, uint64_t instance);
    ~JobManager();

    sim::NodeId node() const { return node_; }
    uint64_t instance() const { return instance_; }
    // HA only (nullptr without).
    LeaderElection* election() { return election_.get(); }
    // The token this process's messages carry: its leader session (0 while it does not lead).
    int64_t fencing_token() const;
    // Whether TaskManager messages reach this process (without HA: always; with: while it leads).
    bool takes_task_manager_messages() const;
    CheckpointCoordinator& coordinator() { return coordinator_; }
    // Whether this process runs the job (without HA: until it ended; with: while it leads).
    bool runs_job() const;
    // The attempt it runs (or ran last).
    int64_t attempt() const { return attempt_; }
    // Whether the observers were told this process is lost (Engine::job_manager_lost: once).
    bool loss_told() const { return loss_told_; }
    void set_loss_told() { loss_told_ = true; }
    void boot();
    // The user asked for a savepoint (Engine::request_savepoint).
    void savepoint_requested();

    // RPCs from TaskManagers.
    // `instance` tells TaskManager processes apart: a new one on the same node restarted and lost
    // its tasks.
    void register_task_manager(sim::NodeId tm, uint32_t instance, int32_t slots);
    void heartbeat_reply(sim::NodeId tm);
    void task_ready(const TaskKey& task);
    void task_failed(const TaskKey& task, const std::string& reason);
    // A heartbeat says tasks of `attempt` on `tm` still wait for their start: send it again when
    // the attempt is the running one (the first start was lost).
    void tasks_waiting_to_start(sim::NodeId tm, int64_t attempt);
    void task_finished(const TaskKey& task);
    // Every acknowledgement reaches the coordinator, also one of an older attempt: its state is
    // discarded.
    void acknowledge_checkpoint(const TaskKey& task, int64_t checkpoint_id,
                                const std::string& handle, int64_t state_bytes,
                                const SourceOffsets& offsets, const SharedStateReport& shared = {});
    void decline_checkpoint(const TaskKey& task, int64_t checkpoint_id,
                            CheckpointFailureReason reason, const std::string& detail);

private:
    enum class Phase : uint8_t {
        recovering,
        waiting_for_resources,
        deploying,
        running,
        restarting,
        finished,
        failed,
        standby
    };
    struct Registered {
        uint32_t instance;
        int32_t slots;
        sim::Time last_heard;
    };

    void heartbeat_round();
    void send_start(sim::NodeId tm);
    void recover_checkpoints();
    // HA.
    void granted_leadership(int64_t token);
    void recover_from_store();
    void deploy_confirmed(
        int64_t attempt, const std::shared_ptr<const Deployment>& deployment,
        const std::map<sim::NodeId, std::vector<std::pair<int32_t, int32_t>>>& per_node);
    void send_deployment(
        const std::shared_ptr<const Deployment>& deployment,
        const std::map<sim::NodeId, std::vector<std::pair<int32_t, int32_t>>>& per_node);
    void recovered(const std::vector<std::string>& keys);
    void try_deploy();
    bool cluster_assembled();
    void read_savepoint(const StoredCheckpoints& found);
    void savepoint_read(const StoredCheckpoints& found, const std::string& path,
                        const std::string& text);
    void ask_for_savepoints();
    void fail_job(const std::string& reason);
    void failover(const std::string& reason);
    bool hosts_current_tasks(sim::NodeId tm) const;
    bool is_current(const TaskKey& task) const;
    int32_t total_subtasks() const;

    Engine& engine_;
    sim::NodeId node_;
    uint64_t instance_;
    std::unique_ptr<LeaderElection> election_;
    CheckpointCoordinator coordinator_;
    Phase phase_ = Phase::recovering;
    int64_t attempt_ = 0;
    bool loss_told_ = false;
    bool attempt_is_restart_ =
        false;  // the current attempt was started by failover() (for EngineStats::restarts)
    std::map<sim::NodeId, Registered> task_managers_;
    // The first deployment's wait for the cluster's TaskManagers (cluster_assembled).
    bool cluster_assembled_ = false;
    bool cluster_wait_started_ = false;
    Deployment deployment_;
    std::optional<CompletedCheckpoint> savepoint_restore_;  // restore_from, mapped to this job
    std::set<std::pair<int32_t, int32_t>> ready_;
    std::set<std::pair<int32_t, int32_t>> finished_;
    // HA recovery (recover_from_store): the running round, and how long the next one may take.
    uint64_t recovery_round_ = 0;
    sim::Duration recovery_timeout_ = sim::Duration::zero();
};

}  // namespace eosim::engine
