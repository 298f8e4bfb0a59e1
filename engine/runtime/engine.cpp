#include "engine/runtime/engine.h"

#include <algorithm>

#include "engine/checkpointing/savepoint_storage.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/job_manager.h"
#include "engine/runtime/leader_election.h"
#include "engine/runtime/task_manager.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kRetire{"engine.retire"};

// The checkpoint coordinator's way to the job: JobManager processes by node and instance, the
// TaskManagers by best-effort messages.
class EngineExecutionGateway final : public ExecutionGateway {
public:
    explicit EngineExecutionGateway(Engine& engine) : engine_(engine) {}
    sim::World& world() override { return engine_.world(); }
    const JobSpec& job() const override { return engine_.job(); }
    RunObserver& observer() override { return engine_.observer(); }
    EngineStats& stats() override { return engine_.stats(); }
    CheckpointCoordinator* coordinator_on(sim::NodeId node, uint64_t instance) override {
        JobManager* jm = engine_.job_manager_on(node, instance);
        return jm == nullptr ? nullptr : &jm->coordinator();
    }
    void trigger_checkpoint(sim::NodeId from, sim::NodeId to, int64_t attempt,
                            int64_t checkpoint_id, SnapshotType snapshot, sim::Time started,
                            std::vector<std::pair<int32_t, int32_t>> tasks) override {
        engine_.send_to_task_manager(
            from, to, messages::kTriggerCheckpoint, static_cast<uint64_t>(checkpoint_id),
            [attempt, checkpoint_id, snapshot, started, tasks = std::move(tasks)](TaskManager& t) {
                t.trigger_checkpoint(attempt, checkpoint_id, snapshot, started, tasks);
            });
    }
    void notify_checkpoint_complete(sim::NodeId from, sim::NodeId to, int64_t attempt,
                                    int64_t checkpoint_id) override {
        engine_.send_to_task_manager(from, to, messages::kNotifyComplete,
                                     static_cast<uint64_t>(checkpoint_id),
                                     [attempt, checkpoint_id](TaskManager& t) {
                                         t.checkpoint_complete(attempt, checkpoint_id);
                                     });
    }
    void notify_checkpoint_aborted(sim::NodeId from, sim::NodeId to, int64_t attempt,
                                   int64_t checkpoint_id) override {
        engine_.send_to_task_manager(from, to, messages::kNotifyAborted,
                                     static_cast<uint64_t>(checkpoint_id),
                                     [attempt, checkpoint_id](TaskManager& t) {
                                         t.checkpoint_aborted(attempt, checkpoint_id);
                                     });
    }
    void savepoint_completed(int32_t index, const CompletedCheckpoint& savepoint) override {
        engine_.savepoint_completed(index, savepoint);
    }
    bool resign_leadership(sim::NodeId node, uint64_t instance,
                           const std::string& reason) override {
        JobManager* jm = engine_.job_manager_on(node, instance);
        if (jm == nullptr || jm->election() == nullptr) return false;
        jm->election()->resign(reason);
        return true;
    }

private:
    Engine& engine_;
};
}  // namespace

Engine::Engine(sim::World& world, const JobSpec& job, ClusterShape shape, EngineServices services,
               RunObserver& observer, HighAvailability high_availability)
    : world_(world),
      job_(job),
      topology_(job),
      shape_(shape),
      services_(std::move(services)),
      observer_(observer),
      high_availability_(high_availability),
      execution_gateway_(std::make_unique<EngineExecutionGateway>(*this)) {
    sim::NodeTable& nodes = world_.nodes();
    job_manager_node_ = nodes.add("jobmanager" + shape_.node_suffix);
    job_manager_nodes_.push_back(job_manager_node_);
    for (int32_t i = 0; i < shape_.task_managers + shape_.spare_task_managers; ++i) {
        const sim::NodeId node = nodes.add("tm" + std::to_string(i) + shape_.node_suffix);
        task_manager_nodes_.push_back(node);
        nodes.set_process(
            node, [this, node] { boot_task_manager(node); }, [this, node] { retire(node); });
    }
    // Standby JobManagers (HA) after the TaskManagers, so that node ids without HA stay as they
    // were.
    for (int32_t i = 1; high_availability_.enabled() && i < high_availability_.job_managers; ++i) {
        job_manager_nodes_.push_back(
            nodes.add("jobmanager-" + std::to_string(i) + shape_.node_suffix));
    }
    for (sim::NodeId node : job_manager_nodes_) {
        nodes.set_process(
            node, [this, node] { boot_job_manager(node); },
            [this, node] {
                job_manager_lost(node, "crashed");
                retire(node);
            });
    }
}

Engine::~Engine() = default;

void Engine::attempt_placed(const Deployment& deployment) {
    placement_ = deployment.placement;
    std::vector<SubtaskPlacement> placed;
    for (size_t v = 0; v < deployment.placement.size(); ++v) {
        for (size_t s = 0; s < deployment.placement[v].size(); ++s) {
            placed.push_back(SubtaskPlacement{job_.vertices[v].id, static_cast<int32_t>(s),
                                              world_.nodes().name(deployment.placement[v][s]),
                                              deployment.slots[v][s]});
        }
    }
    observer_.attempt_deployed(world_.now(), deployment.attempt, placed);
}

sim::NodeId Engine::task_manager_running(const std::string& vertex, int32_t subtask) const {
    const int32_t v = job_.vertex_index(vertex);
    if (v < 0 || static_cast<size_t>(v) >= placement_.size() || subtask < 0) return sim::kNoNode;
    const std::vector<sim::NodeId>& subtasks = placement_[static_cast<size_t>(v)];
    return static_cast<size_t>(subtask) < subtasks.size() ? subtasks[static_cast<size_t>(subtask)]
                                                          : sim::kNoNode;
}

void Engine::start() {
    started_ = true;
    for (sim::NodeId node : job_manager_nodes_) boot_job_manager(node);
    for (sim::NodeId node : task_manager_nodes_) boot_task_manager(node);
}

void Engine::shut_down() {
    shut_down_ = true;
    for (sim::NodeId node : job_manager_nodes_) retire(node);
    for (sim::NodeId node : task_manager_nodes_) retire(node);
}

void Engine::cancel() {
    if (finished_ || failed_) return;
    cancelled_ = true;
    finished_ = true;
    shut_down();
}

int32_t Engine::request_savepoint(SnapshotType type) {
    const auto index = static_cast<int32_t>(savepoint_requests_.size());
    savepoint_requests_.push_back(SavepointRequest{type});
    for (sim::NodeId node : job_manager_nodes_) {
        if (JobManager* jm = job_manager_on(node)) jm->savepoint_requested();
    }
    return index;
}

void Engine::savepoint_completed(int32_t index, const CompletedCheckpoint& savepoint) {
    observer_.savepoint_completed(world_.now(), savepoint_metadata_key(job_, savepoint.id));
    if (index < 0 || index >= static_cast<int32_t>(savepoint_requests_.size())) return;
    SavepointRequest& request = savepoint_requests_[static_cast<size_t>(index)];
    request.savepoint_id = savepoint.id;
    request.path = savepoint_metadata_key(job_, savepoint.id);
    request.offsets = savepoint.offsets;
    if (!request.type.terminates()) request.done = true;
}

void Engine::job_finished_after_stop() {
    for (SavepointRequest& request : savepoint_requests_) {
        if (request.type.terminates() && request.savepoint_id != 0) request.done = true;
    }
}

void Engine::boot_job_manager(sim::NodeId node) {
    if (shut_down_ || !started_)
        return;  // a restart of a node whose deployment has not started boots nothing
    auto& slot = job_managers_[node];
    slot = std::make_unique<JobManager>(*this, node, ++job_manager_instances_);
    slot->boot();
}

bool Engine::is_job_manager_node(sim::NodeId node) const {
    return std::find(job_manager_nodes_.begin(), job_manager_nodes_.end(), node) !=
           job_manager_nodes_.end();
}

JobManager* Engine::job_manager_on(sim::NodeId node) {
    auto it = job_managers_.find(node);
    return it == job_managers_.end() ? nullptr : it->second.get();
}

JobManager* Engine::job_manager_on(sim::NodeId node, uint64_t instance) {
    JobManager* jm = job_manager_on(node);
    return jm != nullptr && jm->instance() == instance ? jm : nullptr;
}

void Engine::replace_job_manager(sim::NodeId node) {
    retire(node);
    boot_job_manager(node);
}

void Engine::job_manager_lost(sim::NodeId node, const std::string& why) {
    JobManager* jm = job_manager_on(node);
    if (jm == nullptr || !jm->runs_job() || jm->loss_told() || finished_ || failed_) return;
    if (high_availability_.enabled() && !high_availability_.tell_leader_loss) return;
    jm->set_loss_told();
    observer_.job_manager_lost(world_.now(), jm->attempt(),
                               "the JobManager on " + world_.nodes().name(node) + " " + why);
}

void Engine::leader_granted(sim::NodeId node) {
    for (sim::NodeId other : job_manager_nodes_) {
        if (other != node)
            job_manager_lost(
                other, "lost its leadership: a new leader was granted (it does not know yet)");
    }
}

void Engine::boot_task_manager(sim::NodeId node) {
    if (shut_down_ || !started_) return;
    if (node >= task_managers_.size()) task_managers_.resize(static_cast<size_t>(node) + 1);
    auto& slot = task_managers_[node];
    slot = std::make_unique<TaskManager>(*this, node);
    slot->boot();
}

void Engine::retire(sim::NodeId node) {
    if (is_job_manager_node(node)) {
        auto it = job_managers_.find(node);
        if (it == job_managers_.end() || !it->second) return;
        retired_job_managers_.push_back(std::move(it->second));
    } else {
        if (node >= task_managers_.size() || !task_managers_[node]) return;
        retired_task_managers_.push_back(std::move(task_managers_[node]));
    }
    world_.scheduler().schedule(sim::Duration::zero(), sim::kNoNode, kRetire, node, [this] {
        retired_job_managers_.clear();
        retired_task_managers_.clear();
    });
}

TaskManager* Engine::task_manager(sim::NodeId node) {
    return node < task_managers_.size() ? task_managers_[node].get() : nullptr;
}

void Engine::schedule_for_sink(sim::NodeId node, const TaskKey& key, sim::Duration delay,
                               const sim::EventKind& kind, std::function<void()> fn) {
    world_.scheduler().schedule(
        delay, node, kind, task_digest(key), [this, node, key, fn = std::move(fn)] {
            TaskManager* tm = task_manager(node);
            if (tm == nullptr) return;
            if (tm->find(key) != nullptr) {
                fn();
            } else if (sim::Time closed_at; Task* closed = tm->find_closed(key, &closed_at)) {
                observer_.closed_sink_timer_fired(world_.now(), closed->vertex().id, key.subtask,
                                                  closed_at);
                fn();
            }
        });
}

Task* Engine::find_task(sim::NodeId node, const TaskKey& key) {
    TaskManager* tm = task_manager(node);
    return tm == nullptr ? nullptr : tm->find(key);
}

// HA: a TaskManager's messages go to the leader it knows (none yet: dropped), and only a JobManager
// that leads takes them.
void Engine::send_to_job_manager(sim::NodeId from, const sim::EventKind& kind, uint64_t digest,
                                 std::function<void(JobManager&)> handler) {
    sim::NodeId to = job_manager_node_;
    if (high_availability_.enabled()) {
        TaskManager* tm = task_manager(from);
        to = tm == nullptr ? sim::kNoNode : tm->leader_node();
        if (to == sim::kNoNode) return;
    }
    world_.network().send_datagram(from, to, kind, digest,
                                   [this, to, handler = std::move(handler)] {
                                       JobManager* jm = job_manager_on(to);
                                       if (jm != nullptr && jm->takes_task_manager_messages())
                                           handler(*jm);
                                   });
}

// HA: a JobManager's message carries its fencing token (its leader session, 0 for a standby); the
// TaskManager refuses one older than the newest leader it knows (Flink's fenced RPCs).
void Engine::send_to_task_manager(sim::NodeId from, sim::NodeId to, const sim::EventKind& kind,
                                  uint64_t digest, std::function<void(TaskManager&)> handler) {
    if (high_availability_.enabled() && is_job_manager_node(from)) {
        JobManager* jm = job_manager_on(from);
        const int64_t token = jm == nullptr ? 0 : jm->fencing_token();
        world_.network().send_datagram(from, to, kind, digest,
                                       [this, from, to, token, handler = std::move(handler)] {
                                           TaskManager* tm = task_manager(to);
                                           if (tm == nullptr) return;
                                           if (!tm->admit_leader(from, token)) {
                                               ++stats_.fenced_messages;
                                               return;
                                           }
                                           handler(*tm);
                                       });
        return;
    }
    world_.network().send_datagram(from, to, kind, digest,
                                   [this, to, handler = std::move(handler)] {
                                       if (TaskManager* tm = task_manager(to)) handler(*tm);
                                   });
}

uint64_t Engine::task_digest(const TaskKey& key) {
    return sim::digest_mix(
        static_cast<uint64_t>(key.vertex) << 32 | static_cast<uint32_t>(key.subtask),
        static_cast<uint64_t>(key.attempt));
}

}  // namespace eosim::engine
