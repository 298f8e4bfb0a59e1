#include "engine/checkpointing/checkpoint_coordinator.h"

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"
#include "engine/runtime/protocol_points.h"
#include "engine/runtime/task_manager.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kTick{"coordinator.tick"};
constexpr sim::EventKind kTimeout{"coordinator.timeout"};
}  // namespace

CheckpointCoordinator::CheckpointCoordinator(Engine& engine, sim::NodeId node, FailJob fail_job, Settled settled)
    : engine_(engine), node_(node), fail_job_(std::move(fail_job)), settled_(std::move(settled)),
      config_(engine.job().checkpointing) {}

void CheckpointCoordinator::start(int64_t attempt, const std::vector<std::vector<sim::NodeId>>& placement) {
    running_ = true;
    attempt_ = attempt;
    placement_ = placement;
    ++generation_;
    if (config_.enabled) schedule_tick(config_.interval);
}

void CheckpointCoordinator::recover(int64_t highest_id, const CompletedCheckpoint* latest) {
    last_id_ = std::max(last_id_, highest_id);
    if (latest != nullptr) completed_.push_back(*latest);
}

void CheckpointCoordinator::stop(const std::string& reason) {
    running_ = false;
    ++generation_;
    // Pending checkpoints are counted and observed as aborted, like every other abort (Flink fails
    // them when the job fails over or finishes). Unlike abort(), no notifyCheckpointAborted goes
    // out and checkpoint.aborted is not announced: the tasks of this attempt are being cancelled
    // (or have finished), so there is no one to tell, and the step's own point (failover.started,
    // job.finished) is where a fault belongs. Nor does it count towards tolerable_failures.
    for (auto& [id, pending] : pending_) {
        engine_.world().scheduler().cancel(pending.timeout);
        if (pending.writing_metadata) {
            settling_.emplace(id, std::move(pending.result));  // its metadata write decides
        } else {
            report_aborted(id, reason);
        }
    }
    pending_.clear();
}

void CheckpointCoordinator::schedule_tick(sim::Duration delay) {
    Engine* engine = &engine_;
    const uint64_t generation = generation_;
    engine_.world().scheduler().schedule(delay, node_, kTick, static_cast<uint64_t>(attempt_), [engine, generation] {
        JobManager* jm = engine->job_manager();
        if (jm != nullptr && jm->coordinator().generation_ == generation) jm->coordinator().tick();
    });
}

void CheckpointCoordinator::tick() {
    const sim::Time now = engine_.world().now();
    const bool may_trigger = static_cast<int32_t>(pending_.size()) < config_.max_concurrent &&
                             now >= last_completion_ + config_.min_pause && now >= last_trigger_ + config_.interval;
    if (may_trigger) trigger();
    schedule_tick(config_.interval / 10);
}

void CheckpointCoordinator::trigger() {
    const int64_t id = ++last_id_;
    last_trigger_ = engine_.world().now();
    ++engine_.stats().checkpoints_triggered;
    Pending& pending = pending_[id];
    pending.id = id;
    pending.result.id = id;
    for (int32_t v = 0; v < static_cast<int32_t>(placement_.size()); ++v) {
        for (int32_t s = 0; s < static_cast<int32_t>(placement_[static_cast<size_t>(v)].size()); ++s) pending.awaiting.insert({v, s});
    }
    Engine* engine = &engine_;
    const uint64_t generation = generation_;
    pending.timeout = engine_.world().scheduler().schedule(config_.timeout, node_, kTimeout, static_cast<uint64_t>(id),
                                                           [engine, generation, id] {
                                                               JobManager* jm = engine->job_manager();
                                                               if (jm == nullptr) return;
                                                               CheckpointCoordinator& c = jm->coordinator();
                                                               if (c.generation_ == generation && c.pending_.contains(id)) {
                                                                   c.abort(id, "checkpoint expired before completing", true);
                                                               }
                                                           });
    engine_.observer().checkpoint_triggered(engine_.world().now(), id);
    engine_.world().announce(points::kCheckpointTriggered, node_, id);
    const int64_t attempt = attempt_;
    for (sim::NodeId tm : nodes_running(true)) {
        engine_.send_to_task_manager(node_, tm, messages::kTriggerCheckpoint, static_cast<uint64_t>(id),
                                     [attempt, id](TaskManager& t) { t.trigger_checkpoint(attempt, id); });
    }
}

void CheckpointCoordinator::acknowledge(const TaskKey& task, int64_t checkpoint_id, const std::string& handle,
                                        const SourceOffsets& offsets) {
    if (!running_ || task.attempt != attempt_) return;
    auto it = pending_.find(checkpoint_id);
    if (it == pending_.end()) return;
    Pending& pending = it->second;
    if (pending.awaiting.erase({task.vertex, task.subtask}) == 0) return;
    pending.result.handles[{task.vertex, task.subtask}] = handle;
    for (const auto& [where, offset] : offsets) pending.result.offsets[where] = offset;
    if (pending.awaiting.empty() && !pending.writing_metadata) write_metadata(pending);
}

void CheckpointCoordinator::write_metadata(Pending& pending) {
    pending.writing_metadata = true;
    // Fully acknowledged: from here the metadata write alone decides, not the timeout.
    engine_.world().scheduler().cancel(pending.timeout);
    const int64_t id = pending.id;
    engine_.world().announce(points::kCheckpointAcknowledged, node_, id);
    pending.result.metadata_key = metadata_key(engine_.job(), id);
    Engine* engine = &engine_;
    const uint64_t generation = generation_;
    engine_.world().storage().put(node_, pending.result.metadata_key, serialize_checkpoint_metadata(pending.result),
                                  [engine, generation, id](sim::StorageStatus status) {
                                      if (JobManager* jm = engine->job_manager()) {
                                          jm->coordinator().metadata_written(generation, id, status == sim::StorageStatus::ok);
                                      }
                                  });
}

void CheckpointCoordinator::metadata_written(uint64_t generation, int64_t checkpoint_id, bool ok) {
    if (auto settling = settling_.find(checkpoint_id); settling != settling_.end()) {
        CompletedCheckpoint checkpoint = std::move(settling->second);
        settling_.erase(settling);
        // Durable: completed, though its attempt is gone (the next one commits it on restore).
        if (ok) {
            finish_completion(std::move(checkpoint), false);
        } else {
            report_aborted(checkpoint_id, "checkpoint metadata could not be written");
        }
        if (settling_.empty()) settled_();
        return;
    }
    if (generation_ != generation || !pending_.contains(checkpoint_id)) return;
    if (ok) {
        complete(checkpoint_id);
    } else {
        abort(checkpoint_id, "checkpoint metadata could not be written", true);
    }
}

void CheckpointCoordinator::complete(int64_t checkpoint_id) {
    auto it = pending_.find(checkpoint_id);
    engine_.world().scheduler().cancel(it->second.timeout);
    CompletedCheckpoint checkpoint = std::move(it->second.result);
    pending_.erase(it);
    // Completing N subsumes every older pending checkpoint.
    while (!pending_.empty() && pending_.begin()->first < checkpoint_id) {
        abort(pending_.begin()->first, "subsumed by a newer completed checkpoint", false);
    }
    finish_completion(std::move(checkpoint), true);
}

void CheckpointCoordinator::finish_completion(CompletedCheckpoint checkpoint, bool notify) {
    const int64_t checkpoint_id = checkpoint.id;
    completed_.push_back(std::move(checkpoint));
    while (static_cast<int32_t>(completed_.size()) > config_.retained) {
        discard(completed_.front());
        completed_.pop_front();
    }
    consecutive_failures_ = 0;
    last_completion_ = engine_.world().now();
    ++engine_.stats().checkpoints_completed;
    engine_.observer().checkpoint_completed(engine_.world().now(), checkpoint_id, completed_.back().offsets);
    engine_.world().announce(points::kCheckpointCompleted, node_, checkpoint_id);
    if (!notify) return;
    const int64_t attempt = attempt_;
    for (sim::NodeId tm : nodes_running(false)) {
        engine_.send_to_task_manager(node_, tm, messages::kNotifyComplete, static_cast<uint64_t>(checkpoint_id),
                                     [attempt, checkpoint_id](TaskManager& t) { t.checkpoint_complete(attempt, checkpoint_id); });
    }
}

void CheckpointCoordinator::abort(int64_t checkpoint_id, const std::string& reason, bool counts_as_failure) {
    auto it = pending_.find(checkpoint_id);
    if (it == pending_.end()) return;
    engine_.world().scheduler().cancel(it->second.timeout);
    pending_.erase(it);
    report_aborted(checkpoint_id, reason);
    engine_.world().announce(points::kCheckpointAborted, node_, checkpoint_id);
    const int64_t attempt = attempt_;
    for (sim::NodeId tm : nodes_running(false)) {
        engine_.send_to_task_manager(node_, tm, messages::kNotifyAborted, static_cast<uint64_t>(checkpoint_id),
                                     [attempt, checkpoint_id](TaskManager& t) { t.checkpoint_aborted(attempt, checkpoint_id); });
    }
    if (counts_as_failure && ++consecutive_failures_ > config_.tolerable_failures) {
        fail_job_("more than " + std::to_string(config_.tolerable_failures) + " consecutive failed checkpoints (last: " + reason + ")");
    }
}

void CheckpointCoordinator::report_aborted(int64_t checkpoint_id, const std::string& reason) {
    ++engine_.stats().checkpoints_aborted;
    engine_.observer().checkpoint_aborted(engine_.world().now(), checkpoint_id, reason);
}

void CheckpointCoordinator::decline(const TaskKey& task, int64_t checkpoint_id, const std::string& reason) {
    if (!running_ || task.attempt != attempt_) return;
    abort(checkpoint_id, "declined by " + engine_.job().vertices[static_cast<size_t>(task.vertex)].id + "-" +
                             std::to_string(task.subtask) + ": " + reason,
          true);
}

void CheckpointCoordinator::discard(const CompletedCheckpoint& checkpoint) {
    sim::DurableStorage& storage = engine_.world().storage();
    for (const auto& [where, handle] : checkpoint.handles) storage.remove(node_, handle, [](sim::StorageStatus) {});
    storage.remove(node_, checkpoint.metadata_key, [](sim::StorageStatus) {});
}

std::set<sim::NodeId> CheckpointCoordinator::nodes_running(bool sources_only) const {
    std::set<sim::NodeId> nodes;
    for (size_t v = 0; v < placement_.size(); ++v) {
        if (sources_only && !is_source_kind(engine_.job().vertices[v].kind)) continue;
        nodes.insert(placement_[v].begin(), placement_[v].end());
    }
    return nodes;
}

}  // namespace eosim::engine
