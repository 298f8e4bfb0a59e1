#pragma once
// The TaskManager process on one node: registers with the JobManager (and again after every
// restart), answers heartbeats, and runs the tasks the JobManager deploys to it. Deploying a newer
// attempt cancels every task of older attempts still here. A TaskManager that misses the
// JobManager's heartbeats for heartbeat_timeout (the JobManager crashed, or a partition cut them)
// fails its tasks and registers again, as Flink's TaskExecutor does when it loses its JobManager.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <boost/container/flat_map.hpp>

#include "engine/runtime/task.h"
#include "engine/vocabulary/deployment.h"

namespace eosim::engine {

class Engine;

class TaskManager {
public:
    TaskManager(Engine& engine, sim::NodeId node);
    ~TaskManager();

    sim::NodeId node() const { return node_; }
    void boot();

    // RPCs from the JobManager.
    void registration_accepted();
    // The JobManager no longer knows this TaskManager: drop every task and register again.
    void reconnect();
    void heartbeat();
    // HA: the leader (admitted by its token) does not know this TaskManager: register with it.
    void leader_announced();
    void deploy(const Deployment& deployment,
                const std::vector<std::pair<int32_t, int32_t>>& subtasks);
    void start_tasks(int64_t attempt);
    void cancel_attempts_before(int64_t attempt);
    // Triggers `tasks` (vertex, subtask) of `attempt` here (the coordinator's plan:
    // checkpoint_plan.h).
    void trigger_checkpoint(int64_t attempt, int64_t checkpoint_id, SnapshotType snapshot,
                            sim::Time started,
                            const std::vector<std::pair<int32_t, int32_t>>& tasks);
    void checkpoint_complete(int64_t attempt, int64_t checkpoint_id);
    void checkpoint_aborted(int64_t attempt, int64_t checkpoint_id);

    // Inline: every channel message and timer of a task asks (see `by_subtask_`).
    Task* find(const TaskKey& key) {
        const size_t slot = subtask_slot(key);
        if (slot != SIZE_MAX) {
            Task* task = by_subtask_[slot];
            if (task != nullptr && task->key() == key) return task;
        }
        return find_in_map(key);
    }

    // Tasks deployed here now, of any attempt (what a crash of this node loses).
    size_t task_count() const { return tasks_.size(); }
    // Each task deployed here now, in key order (for observers that read, e.g. back pressure).
    template <typename F>
    void for_each_task(F&& f) const {
        for (const auto& [key, task] : tasks_) f(static_cast<const Task&>(*task));
    }
    // A sink task cancelled here (a failover, the JobManager lost): its sink was closed, but the
    // process lives on, and so do the sink's own timers (SinkContext::after) until it dies.
    // `*closed_at` gets when it was cancelled.
    Task* find_closed(const TaskKey& key, sim::Time* closed_at);

    // HA: the JobManager this TaskManager follows (kNoNode until a leader reached it).
    sim::NodeId leader_node() const { return leader_node_; }
    // HA: whether a message from the JobManager on `from` carrying fencing token `token` is taken.
    // A token older than the newest leader's (or 0: not a leader) is refused; a newer one makes
    // `from` the leader: this TaskManager drops its tasks and registers with it (Flink's
    // TaskExecutor on a new JobMaster leader).
    bool admit_leader(sim::NodeId from, int64_t token);

private:
    void send_registration();
    void watch_job_manager();
    void drop_tasks_and_register();
    template <typename F>
    void for_each_task_of(int64_t attempt, F&& f);
    // The slot of (vertex, subtask) in `by_subtask_`, or SIZE_MAX for a vertex or subtask the job
    // does not have.
    size_t subtask_slot(const TaskKey& key) const {
        const auto vertex = static_cast<size_t>(key.vertex);
        if (key.vertex < 0 || vertex + 1 >= first_slot_of_vertex_.size() || key.subtask < 0)
            return SIZE_MAX;
        const size_t slot = first_slot_of_vertex_[vertex] + static_cast<size_t>(key.subtask);
        return slot < first_slot_of_vertex_[vertex + 1] ? slot : SIZE_MAX;
    }
    Task* find_in_map(const TaskKey& key);
    void add_task(std::unique_ptr<Task> task);
    // Drops the task from `by_subtask_` (the caller erases it from `tasks_`).
    void forget_slot(const Task& task);
    // Cancels the task and keeps it in `closed_` when it has a sink.
    void cancel(std::unique_ptr<Task> task);

    Engine& engine_;
    sim::NodeId node_;
    bool registered_ = false;
    sim::NodeId leader_node_;
    int64_t leader_token_ = 0;
    sim::Time last_heard_from_job_manager_;
    // A sorted vector (a handful of tasks per TaskManager), iterated in key order.
    boost::container::flat_map<TaskKey, std::unique_ptr<Task>> tasks_;
    // Every channel message and timer of a task looks its task up (about 140k times in a standard
    // run; the map's binary search over three-field keys alone would be 2% of it). This table, by
    // the job's flat subtask index (`first_slot_of_vertex_[vertex] + subtask`), holds the task of
    // that (vertex, subtask) deployed last, so `find` usually costs one load and a key comparison;
    // when the entry is empty or holds another attempt, `find` asks the map, so the answer is the
    // map's. Invariant: every entry is null or a task in `tasks_`.
    std::vector<size_t> first_slot_of_vertex_;
    std::vector<Task*> by_subtask_;
    struct Closed {
        std::unique_ptr<Task> task;
        sim::Time at;
    };
    std::vector<Closed> closed_;  // cancelled sink tasks, in cancel order
};

}  // namespace eosim::engine
