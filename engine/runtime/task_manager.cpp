#include "engine/runtime/task_manager.h"

#include <algorithm>

#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"
#include "engine/vocabulary/protocol_points.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kRegistrationRetry{"tm.registration_retry"};
constexpr sim::EventKind kWatchJobManager{"tm.watch_job_manager"};
}  // namespace

TaskManager::TaskManager(Engine& engine, sim::NodeId node)
    : engine_(engine),
      node_(node),
      leader_node_(engine.high_availability().enabled() ? sim::kNoNode
                                                        : engine.job_manager_node()) {
    size_t slots = 0;
    for (const VertexSpec& vertex : engine.job().vertices) {
        first_slot_of_vertex_.push_back(slots);
        slots += static_cast<size_t>(std::max(vertex.parallelism, 0));
    }
    first_slot_of_vertex_.push_back(slots);  // the end of the last vertex's slots
    by_subtask_.assign(slots, nullptr);
}

bool TaskManager::admit_leader(sim::NodeId from, int64_t token) {
    if (token == 0 || token < leader_token_) return false;
    if (token == leader_token_) return from == leader_node_;
    leader_token_ = token;
    leader_node_ = from;
    if (registered_) {
        drop_tasks_and_register();
    } else {  // its registration retries go to the new leader from now on; one goes right away
        const sim::NodeId node = node_;
        const int32_t slots = engine_.shape().slots_per_task_manager;
        const uint32_t instance = engine_.world().nodes().incarnation(node_);
        engine_.send_to_job_manager(node_, messages::kRegister, node_,
                                    [node, instance, slots](JobManager& jm) {
                                        jm.register_task_manager(node, instance, slots);
                                    });
    }
    return true;
}

TaskManager::~TaskManager() = default;

void TaskManager::boot() {
    send_registration();
    watch_job_manager();
}

void TaskManager::registration_accepted() {
    registered_ = true;
    last_heard_from_job_manager_ = engine_.world().now();
}

void TaskManager::watch_job_manager() {
    const RuntimeConfig& runtime = engine_.job().runtime;
    if (registered_ &&
        engine_.world().now() - last_heard_from_job_manager_ > runtime.heartbeat_timeout) {
        drop_tasks_and_register();
    }
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    engine_.world().scheduler().schedule(runtime.heartbeat_interval, node_, kWatchJobManager, node_,
                                         [engine, node] {
                                             if (TaskManager* tm = engine->task_manager(node))
                                                 tm->watch_job_manager();
                                         });
}

void TaskManager::drop_tasks_and_register() {
    for (auto& [key, task] : tasks_) cancel(std::move(task));
    tasks_.clear();
    std::fill(by_subtask_.begin(), by_subtask_.end(), nullptr);
    registered_ = false;
    send_registration();
}

void TaskManager::send_registration() {
    if (registered_) return;
    const sim::NodeId node = node_;
    const int32_t slots = engine_.shape().slots_per_task_manager;
    const uint32_t instance = engine_.world().nodes().incarnation(node_);
    engine_.send_to_job_manager(node_, messages::kRegister, node_,
                                [node, instance, slots](JobManager& jm) {
                                    jm.register_task_manager(node, instance, slots);
                                });
    Engine* engine = &engine_;
    engine_.world().scheduler().schedule(engine_.job().runtime.heartbeat_interval, node_,
                                         kRegistrationRetry, node_, [engine, node] {
                                             if (TaskManager* tm = engine->task_manager(node))
                                                 tm->send_registration();
                                         });
}

void TaskManager::leader_announced() {
    last_heard_from_job_manager_ = engine_.world().now();
    if (registered_) drop_tasks_and_register();
}

void TaskManager::reconnect() {
    if (registered_) drop_tasks_and_register();
}

// The reply reports the state of this TaskManager's tasks that the JobManager may have missed:
// those that failed and are not cancelled yet, those that finished (FLIP-147: a running job's
// checkpoints must leave them out), and the attempts whose tasks still wait for their start. A
// task's failure or finish report and the JobManager's start are single datagrams; when one is lost
// (a partition, a paused process) the JobManager learns of it here instead of waiting forever, as
// Flink's JobMaster reconciles a TaskExecutor's report of its executions with every heartbeat (and
// Flink's deployment and state updates are acknowledged RPCs, retried until answered).
void TaskManager::heartbeat() {
    last_heard_from_job_manager_ = engine_.world().now();
    const sim::NodeId node = node_;
    std::vector<std::pair<TaskKey, std::string>> failed;
    std::vector<TaskKey> finished;
    std::vector<int64_t> waiting;  // attempts with tasks still waiting to start
    for (const auto& [key, task] : tasks_) {
        if (task->failed()) failed.emplace_back(key, task->failure());
        if (task->finished()) finished.push_back(key);
        if (task->waiting_to_start() && (waiting.empty() || waiting.back() != key.attempt))
            waiting.push_back(key.attempt);
    }
    engine_.send_to_job_manager(node_, messages::kHeartbeatReply, node_,
                                [node, failed = std::move(failed), finished = std::move(finished),
                                 waiting = std::move(waiting)](JobManager& jm) {
                                    jm.heartbeat_reply(node);
                                    for (const auto& [key, reason] : failed) {
                                        jm.task_failed(
                                            key, reason + " (reported again with a heartbeat)");
                                    }
                                    for (const TaskKey& key : finished) jm.task_finished(key);
                                    for (int64_t attempt : waiting)
                                        jm.tasks_waiting_to_start(node, attempt);
                                });
}

void TaskManager::deploy(const Deployment& deployment,
                         const std::vector<std::pair<int32_t, int32_t>>& subtasks) {
    cancel_attempts_before(deployment.attempt);
    std::vector<Task*> created;
    for (const auto& [vertex, subtask] : subtasks) {
        const TaskKey key{deployment.attempt, vertex, subtask};
        if (tasks_.count(key) != 0) continue;  // a repeated deploy message
        auto task = std::make_unique<Task>(engine_, node_, key, deployment);
        created.push_back(task.get());
        add_task(std::move(task));
    }
    for (Task* task : created) task->restore();
}

void TaskManager::start_tasks(int64_t attempt) {
    for_each_task_of(attempt, [](Task& task) { task.start(); });
}

void TaskManager::cancel_attempts_before(int64_t attempt) {
    for (auto it = tasks_.begin(); it != tasks_.end();) {
        if (it->first.attempt < attempt) {
            forget_slot(*it->second);
            cancel(std::move(it->second));
            it = tasks_.erase(it);
        } else {
            ++it;
        }
    }
}

void TaskManager::trigger_checkpoint(int64_t attempt, int64_t checkpoint_id, SnapshotType snapshot,
                                     sim::Time started,
                                     const std::vector<std::pair<int32_t, int32_t>>& tasks) {
    for_each_task_of(attempt, [checkpoint_id, snapshot, started, &tasks](Task& task) {
        const std::pair<int32_t, int32_t> subtask{task.key().vertex, task.key().subtask};
        if (std::find(tasks.begin(), tasks.end(), subtask) != tasks.end())
            task.trigger_checkpoint(checkpoint_id, snapshot, started);
    });
}

void TaskManager::checkpoint_complete(int64_t attempt, int64_t checkpoint_id) {
    engine_.world().announce(points::kCheckpointNotified, node_, checkpoint_id);
    for_each_task_of(attempt,
                     [checkpoint_id](Task& task) { task.checkpoint_complete(checkpoint_id); });
}

void TaskManager::checkpoint_aborted(int64_t attempt, int64_t checkpoint_id) {
    for_each_task_of(attempt,
                     [checkpoint_id](Task& task) { task.checkpoint_aborted(checkpoint_id); });
}

void TaskManager::add_task(std::unique_ptr<Task> task) {
    const size_t slot = subtask_slot(task->key());
    if (slot != SIZE_MAX) by_subtask_[slot] = task.get();
    const TaskKey key = task->key();
    tasks_.emplace(key, std::move(task));
}

void TaskManager::forget_slot(const Task& task) {
    const size_t slot = subtask_slot(task.key());
    if (slot != SIZE_MAX && by_subtask_[slot] == &task) by_subtask_[slot] = nullptr;
}

void TaskManager::cancel(std::unique_ptr<Task> task) {
    task->cancel();
    if (task->chain().sink() != nullptr)
        closed_.push_back(Closed{std::move(task), engine_.world().now()});
}

Task* TaskManager::find_closed(const TaskKey& key, sim::Time* closed_at) {
    for (const Closed& closed : closed_) {
        if (closed.task->key() != key) continue;
        *closed_at = closed.at;
        return closed.task.get();
    }
    return nullptr;
}

Task* TaskManager::find_in_map(const TaskKey& key) {
    auto it = tasks_.find(key);
    return it == tasks_.end() ? nullptr : it->second.get();
}

template <typename F>
void TaskManager::for_each_task_of(int64_t attempt, F&& f) {
    // Keys first: a task's reaction may deploy or cancel nothing here, but stay safe if it does.
    std::vector<TaskKey> keys;
    for (const auto& [key, task] : tasks_) {
        if (key.attempt == attempt) keys.push_back(key);
    }
    for (const TaskKey& key : keys) {
        if (Task* task = find(key)) f(*task);
    }
}

}  // namespace eosim::engine
