#include "engine/runtime/engine.h"

#include "engine/checkpointing/savepoint_storage.h"
#include "engine/runtime/job_manager.h"
#include "engine/runtime/task_manager.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kRetire{"engine.retire"};
}  // namespace

Engine::Engine(sim::World& world, const JobSpec& job, ClusterShape shape, EngineServices services, RunObserver& observer)
    : world_(world), job_(job), topology_(job), shape_(shape), services_(std::move(services)), observer_(observer) {
    sim::NodeTable& nodes = world_.nodes();
    job_manager_node_ = nodes.add("jobmanager" + shape_.node_suffix);
    nodes.set_process(job_manager_node_, [this] { boot_job_manager(); }, [this] { retire(job_manager_node_); });
    for (int32_t i = 0; i < shape_.task_managers + shape_.spare_task_managers; ++i) {
        const sim::NodeId node = nodes.add("tm" + std::to_string(i) + shape_.node_suffix);
        task_manager_nodes_.push_back(node);
        nodes.set_process(node, [this, node] { boot_task_manager(node); }, [this, node] { retire(node); });
    }
}

Engine::~Engine() = default;

void Engine::start() {
    boot_job_manager();
    for (sim::NodeId node : task_manager_nodes_) boot_task_manager(node);
}

void Engine::shut_down() {
    shut_down_ = true;
    if (job_manager_) retire(job_manager_node_);
    for (sim::NodeId node : task_manager_nodes_) retire(node);
}

int32_t Engine::request_savepoint(SnapshotType type) {
    const auto index = static_cast<int32_t>(savepoint_requests_.size());
    savepoint_requests_.push_back(SavepointRequest{type});
    if (JobManager* jm = job_manager()) jm->savepoint_requested();
    return index;
}

void Engine::savepoint_completed(int32_t index, const CompletedCheckpoint& savepoint) {
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

void Engine::boot_job_manager() {
    if (shut_down_) return;
    job_manager_ = std::make_unique<JobManager>(*this, job_manager_node_);
    job_manager_->boot();
}

void Engine::boot_task_manager(sim::NodeId node) {
    if (shut_down_) return;
    auto& slot = task_managers_[node];
    slot = std::make_unique<TaskManager>(*this, node);
    slot->boot();
}

void Engine::retire(sim::NodeId node) {
    if (node == job_manager_node_) {
        retired_job_managers_.push_back(std::move(job_manager_));
    } else {
        auto it = task_managers_.find(node);
        if (it == task_managers_.end() || !it->second) return;
        retired_task_managers_.push_back(std::move(it->second));
    }
    world_.scheduler().schedule(sim::Duration::zero(), sim::kNoNode, kRetire, node, [this] {
        retired_job_managers_.clear();
        retired_task_managers_.clear();
    });
}

TaskManager* Engine::task_manager(sim::NodeId node) {
    auto it = task_managers_.find(node);
    return it == task_managers_.end() ? nullptr : it->second.get();
}

Task* Engine::find_task(sim::NodeId node, const TaskKey& key) {
    TaskManager* tm = task_manager(node);
    return tm == nullptr ? nullptr : tm->find(key);
}

void Engine::send_to_job_manager(sim::NodeId from, const sim::EventKind& kind, uint64_t digest,
                                 std::function<void(JobManager&)> handler) {
    world_.network().send_datagram(from, job_manager_node_, kind, digest, [this, handler = std::move(handler)] {
        if (JobManager* jm = job_manager()) handler(*jm);
    });
}

void Engine::send_to_task_manager(sim::NodeId from, sim::NodeId to, const sim::EventKind& kind, uint64_t digest,
                                  std::function<void(TaskManager&)> handler) {
    world_.network().send_datagram(from, to, kind, digest, [this, to, handler = std::move(handler)] {
        if (TaskManager* tm = task_manager(to)) handler(*tm);
    });
}

uint64_t Engine::task_digest(const TaskKey& key) {
    return sim::digest_mix(static_cast<uint64_t>(key.vertex) << 32 | static_cast<uint32_t>(key.subtask),
                           static_cast<uint64_t>(key.attempt));
}

}  // namespace eosim::engine
