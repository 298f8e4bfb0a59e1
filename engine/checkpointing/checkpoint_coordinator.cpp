#include "engine/checkpointing/checkpoint_coordinator.h"

#include <algorithm>

#include "engine/checkpointing/checkpoint_plan.h"
#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/coordinator_callbacks.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kPeriodicTrigger{"coordinator.periodic_trigger"};
constexpr sim::EventKind kTimeout{"coordinator.timeout"};
}  // namespace

CheckpointCoordinator::CheckpointCoordinator(ExecutionGateway& gateway, sim::NodeId node,
                                             uint64_t instance, FailJob fail_job, Settled settled)
    : gateway_(gateway),
      node_(node),
      instance_(instance),
      cleaner_(gateway, node, instance),
      fail_job_(std::move(fail_job)),
      settled_(std::move(settled)),
      config_(gateway.job().checkpointing),
      prng_(gateway.world().prng("checkpoint-coordinator/" +
                                 std::to_string(gateway.world().nodes().incarnation(node)))),
      decider_(config_.max_concurrent, config_.min_pause),
      failures_(config_.tolerable_failures),
      retention_(config_.retained) {}

// ---- lifecycle ----------------------------------------------------------------------------------

void CheckpointCoordinator::start(int64_t attempt,
                                  const std::vector<std::vector<sim::NodeId>>& placement,
                                  const std::set<std::pair<int32_t, int32_t>>& finished) {
    running_ = true;
    finished_ = finished;
    stopping_ = false;
    savepoints_requested_.clear();
    attempt_ = attempt;
    placement_ = placement;
    ++generation_;
    // Flink: the first trigger at a random delay in [min pause, interval], then at a fixed rate.
    if (config_.enabled) schedule_periodic(prng_.duration_between(config_.min_pause, interval()));
}

void CheckpointCoordinator::task_finished(const TaskKey& task) {
    if (running_ && task.attempt == attempt_) finished_.insert({task.vertex, task.subtask});
}

void CheckpointCoordinator::recover(const StoredCheckpoints& found,
                                    const CompletedCheckpoint* latest) {
    if (!found.counter_key.empty()) counter_key_ = found.counter_key;
    std::vector<CompletedCheckpoint> retained;
    if (latest != nullptr) {
        retained.assign(found.older_completed.begin(), found.older_completed.end());
        retained.push_back(*latest);
    }
    restore_completed(found.highest_id, std::move(retained));
}

void CheckpointCoordinator::restore_completed(int64_t highest_id,
                                              std::vector<CompletedCheckpoint> retained) {
    last_id_ = std::max(last_id_, highest_id);
    if (retained.empty()) return;
    // The shared files of the older checkpoints, as the newest one's metadata lists them: held by
    // the newest of the older ones that stay retained, for them all.
    std::vector<std::string> older_shared = std::move(retained.back().older_shared);
    retained.back().older_shared.clear();
    for (const CompletedCheckpoint& gone : retention_.restore(std::move(retained), older_shared))
        discard_completed(gone);
    const bool older_retained = retention_.completed().size() >= 2;
    shared_registry_ = SharedStateRegistry::rebuild(retention_.completed());
    if (older_retained) return;
    // No older checkpoint is retained: what only they referred to goes.
    std::vector<std::string> unreferenced;
    for (const std::string& key : older_shared) {
        if (!shared_registry_.contains(key)) unreferenced.push_back(key);
    }
    cleaner_.discard_shared(unreferenced);
}

void CheckpointCoordinator::use_high_availability(const LeaderSession& session) {
    store_.emplace(session, gateway_.world().storage(), node_);
    counter_.emplace(session, node_);
}

void CheckpointCoordinator::stop(CheckpointFailureReason reason, const std::string& detail) {
    running_ = false;
    triggering_ = false;  // an id being made durable is simply skipped
    savepoints_requested_.clear();
    ++generation_;
    gateway_.world().scheduler().cancel(periodic_timer_);
    decider_.clear();
    // Pending checkpoints are counted and observed as aborted, like every other abort, and the
    // tasks are told (Flink's abortPendingCheckpoints); checkpoint.aborted is not announced: the
    // step's own point (failover.started, job.finished) is where a fault belongs.
    std::vector<int64_t> stopped;
    for (const auto& [id, checkpoint] : checkpoints_) {
        if (checkpoint.in_progress()) stopped.push_back(id);
    }
    for (int64_t id : stopped) {
        PendingCheckpoint& checkpoint = in_progress_at(id);
        gateway_.world().scheduler().cancel(checkpoint.timeout());
        if (checkpoint.writing_metadata()) {
            checkpoint.settle();  // its metadata write decides
            continue;
        }
        const CompletedCheckpoint partial = checkpoint.abort();
        checkpoints_.erase(id);
        discard(partial);
        report_aborted(id, reason, detail);
        notify_aborted(id);
    }
}

bool CheckpointCoordinator::settling() const {
    return std::any_of(checkpoints_.begin(), checkpoints_.end(),
                       [](const auto& c) { return c.second.settling(); });
}

int32_t CheckpointCoordinator::in_progress_count() const {
    return static_cast<int32_t>(
        std::count_if(checkpoints_.begin(), checkpoints_.end(),
                      [](const auto& c) { return c.second.in_progress(); }));
}

PendingCheckpoint* CheckpointCoordinator::find_in_progress(int64_t checkpoint_id) {
    auto it = checkpoints_.find(checkpoint_id);
    return it != checkpoints_.end() && it->second.in_progress() ? &it->second : nullptr;
}

PendingCheckpoint& CheckpointCoordinator::in_progress_at(int64_t checkpoint_id) {
    PendingCheckpoint* checkpoint = find_in_progress(checkpoint_id);
    EOSIM_INVARIANT(checkpoint != nullptr,
                    "the coordinator completes or aborts only a checkpoint it holds in progress");
    return *checkpoint;
}

// ---- triggering -------------------------------------------------------------------------------

sim::Duration CheckpointCoordinator::interval() const {
    return std::max(config_.interval, config_.min_pause);
}

void CheckpointCoordinator::schedule_periodic(sim::Duration delay) {
    gateway_.world().scheduler().cancel(periodic_timer_);
    const uint64_t generation = generation_;
    periodic_timer_ = gateway_.world().scheduler().schedule(
        delay, node_, kPeriodicTrigger, static_cast<uint64_t>(attempt_),
        on_coordinator(&gateway_, node_, instance_, [generation](CheckpointCoordinator& c) {
            if (c.generation_ == generation) c.periodic_fired();
        }));
}

void CheckpointCoordinator::periodic_fired() {
    if (stopping_) return;
    schedule_periodic(interval());  // fixed rate, unless the decider reschedules
    submit(CheckpointRequest{CheckpointRequestKind::periodic});
}

void CheckpointCoordinator::request(CheckpointRequestKind kind) {
    if (running_) submit(CheckpointRequest{kind});
}

void CheckpointCoordinator::request_savepoint(int32_t index, SnapshotType type) {
    if (!running_ || !savepoints_requested_.insert(index).second) return;
    CheckpointRequest request{CheckpointRequestKind::savepoint};
    request.snapshot = type;
    request.user_request = index;
    submit(request);
}

void CheckpointCoordinator::submit(CheckpointRequest request) {
    apply(decider_.submit(request, situation()));
}

void CheckpointCoordinator::run_queued() {
    // After a stop-with-savepoint's trigger nothing more runs: its tasks finish once it completes
    // (end of partition first, which takes a moment), and a checkpoint in that moment would commit
    // what the stopped sources must not have read.
    if (running_ && !stopping_) apply(decider_.next(situation()));
}

CheckpointRequestDecider::Situation CheckpointCoordinator::situation() const {
    return {triggering_, in_progress_count(), gateway_.world().now(), last_completion_};
}

void CheckpointCoordinator::apply(const CheckpointRequestDecider::Decision& decision) {
    // Dropped requests fail before they have an id; none of their reasons counts as a failure.
    for (const auto& [dropped, reason] : decision.dropped)
        failures_.failure(CheckpointFailureManager::kUnknownCheckpointId, reason);
    if (decision.reschedule_periodic_in) schedule_periodic(*decision.reschedule_periodic_in);
    if (decision.execute) reserve_id(*decision.execute);
}

// The id is durable before anything refers to it: a JobManager that crashes after this point and
// recovers continues above it (Flink's CheckpointIDCounter.getAndIncrement).
void CheckpointCoordinator::reserve_id(const CheckpointRequest& request) {
    triggering_ = true;
    if (counter_) {  // HA: the counter in the coordination service hands the id out
        const uint64_t generation = generation_;
        counter_->increment(
            on_coordinator(&gateway_, node_, instance_,
                           [generation, request](CheckpointCoordinator& c, bool ok, int64_t id) {
                               if (c.generation_ != generation) return;
                               if (ok) c.last_id_ = std::max(c.last_id_, id);
                               c.id_reserved(ok ? id : c.last_id_ + 1, "", ok, request);
                           }),
            id_floor_);
        return;
    }
    const int64_t id = ++last_id_;
    const std::string key = checkpoint_id_counter_key(gateway_.job(), id);
    const uint64_t generation = generation_;
    gateway_.world().storage().put(
        node_, key, std::to_string(id),
        on_coordinator(
            &gateway_, node_, instance_,
            [generation, id, key, request](CheckpointCoordinator& c, sim::StorageStatus status) {
                if (c.generation_ == generation)
                    c.id_reserved(id, key, status == sim::StorageStatus::ok, request);
            }));
}

void CheckpointCoordinator::id_reserved(int64_t id, const std::string& counter_key, bool ok,
                                        const CheckpointRequest& request) {
    triggering_ = false;
    if (ok) {
        if (!counter_key_.empty())
            gateway_.world().storage().remove(node_, counter_key_, [](sim::StorageStatus) {});
        if (!counter_key.empty()) counter_key_ = counter_key;
        trigger(id, request.snapshot, request.user_request);
    } else {
        // Flink's trigger fails with the storage's IOException (IO_EXCEPTION, counted) and reports
        // a failed checkpoint; the id is not used again (nothing refers to it).
        const std::string detail =
            "the checkpoint id could not be made durable; nothing was triggered";
        ++gateway_.stats().checkpoint_trigger_failures;
        report_aborted(id, CheckpointFailureReason::io_exception, detail);
        if (request.snapshot.is_savepoint()) {
            savepoints_requested_.erase(request.user_request);  // tried again below
            if (request.snapshot.terminates() && running_)
                fail_job_("stop-with-savepoint failed: " + detail);
            else
                request_savepoint(request.user_request, request.snapshot);
        } else {
            count_failure(id, CheckpointFailureReason::io_exception, detail);
        }
    }
    run_queued();
}

void CheckpointCoordinator::trigger(int64_t id, SnapshotType snapshot, int32_t user_request) {
    const std::optional<CheckpointPlan> planned = snapshot.is_savepoint()
                                                      ? plan_savepoint(gateway_.job(), finished_)
                                                      : plan_checkpoint(gateway_.job(), finished_);
    if (!planned || planned->to_trigger.empty()) {
        refuse_with_finished_tasks(id, snapshot, planned.has_value());
        return;
    }
    const CheckpointPlan& plan = *planned;
    EOSIM_INVARIANT(id > last_triggered_id_, "checkpoint ids strictly increase");
    EOSIM_INVARIANT(id > id_floor_, "checkpoint ids continue above the savepoint restored from");
    last_triggered_id_ = id;
    ++gateway_.stats().checkpoints_triggered;
    PendingCheckpoint& pending =
        checkpoints_.try_emplace(id, id, snapshot, user_request, plan.to_wait_for).first->second;
    if (snapshot.terminates()) {
        stopping_ = true;  // Flink stops the checkpoint scheduler for a stop-with-savepoint
        gateway_.world().scheduler().cancel(periodic_timer_);
    }
    pending.result().finished = plan.finished;
    // A finished source acknowledges no more: its offsets (the end of its splits) stay those of the
    // latest completed checkpoint; the running sources' acknowledgements overwrite theirs.
    if (!plan.finished.empty() && latest() != nullptr) pending.result().offsets = latest()->offsets;
    const uint64_t generation = generation_;
    pending.set_timeout(gateway_.world().scheduler().schedule(
        config_.timeout, node_, kTimeout, static_cast<uint64_t>(id),
        on_coordinator(&gateway_, node_, instance_, [generation, id](CheckpointCoordinator& c) {
            if (c.generation_ == generation && c.find_in_progress(id) != nullptr) {
                c.abort(id, CheckpointFailureReason::checkpoint_expired,
                        "checkpoint expired before completing");
            }
        })));
    gateway_.observer().checkpoint_triggered(gateway_.world().now(), id, snapshot);
    gateway_.world().announce(
        snapshot.terminates() ? points::kStopWithSavepointTriggered : points::kCheckpointTriggered,
        node_, id);
    // One trigger message per TaskManager, naming its subtasks to trigger.
    std::map<sim::NodeId, std::vector<std::pair<int32_t, int32_t>>> per_node;
    for (const auto& [v, s] : plan.to_trigger)
        per_node[placement_[static_cast<size_t>(v)][static_cast<size_t>(s)]].push_back({v, s});
    const int64_t attempt = attempt_;
    for (const auto& [tm, tasks] : per_node) {
        gateway_.trigger_checkpoint(node_, tm, attempt, id, snapshot, gateway_.world().now(),
                                    tasks);
    }
}

// Flink's plan calculator refuses a checkpoint when every task finished; eosim also refuses a
// savepoint while a task other than a source has (its savepoint format has no finished marker,
// and such a task's final state is gone). Neither counts as a
// failure, and a refused savepoint is not asked again in this attempt (a stop-with-savepoint
// fails).
void CheckpointCoordinator::refuse_with_finished_tasks(int64_t id, SnapshotType snapshot,
                                                       bool all_finished) {
    const std::string detail = all_finished
                                   ? "every task has finished"
                                   : "a savepoint while tasks other than sources have finished";
    report_aborted(id, CheckpointFailureReason::not_all_required_tasks_running, detail);
    // A refused savepoint request stays in savepoints_requested_: not asked again in this attempt.
    if (snapshot.terminates() && running_) fail_job_("stop-with-savepoint failed: " + detail);
}

// ---- failures -----------------------------------------------------------------------------------

void CheckpointCoordinator::decline(const TaskKey& task, int64_t checkpoint_id,
                                    CheckpointFailureReason reason, const std::string& detail) {
    if (!running_ || task.attempt != attempt_) return;
    abort(checkpoint_id, reason,
          "declined by " + gateway_.job().vertices[static_cast<size_t>(task.vertex)].id + "-" +
              std::to_string(task.subtask) + ": " + detail);
}

void CheckpointCoordinator::abort(int64_t checkpoint_id, CheckpointFailureReason reason,
                                  const std::string& detail) {
    const PendingCheckpoint* pending = find_in_progress(checkpoint_id);
    if (pending == nullptr) return;
    const SnapshotType snapshot = pending->snapshot();
    const int32_t user_request = pending->user_request();
    abort_pending(checkpoint_id, reason, detail);
    if (snapshot.is_savepoint()) {
        savepoint_failed(
            snapshot, user_request,
            std::string(to_string(reason)) + ": " + detail);  // not counted (a user's request)
    } else {
        count_failure(checkpoint_id, reason, detail);
    }
    run_queued();
}

void CheckpointCoordinator::abort_pending(int64_t checkpoint_id, CheckpointFailureReason reason,
                                          const std::string& detail) {
    PendingCheckpoint& pending = in_progress_at(checkpoint_id);
    gateway_.world().scheduler().cancel(pending.timeout());
    if (pending.writing_metadata()) {
        // Subsumed while its metadata is being written: delete it once that write is decided, so
        // that no _metadata lands after its state was deleted.
        pending.abort_while_writing();
    } else {
        const CompletedCheckpoint partial = pending.abort();
        checkpoints_.erase(checkpoint_id);
        discard(partial);
    }
    report_aborted(checkpoint_id, reason, detail);
    gateway_.world().announce(points::kCheckpointAborted, node_, checkpoint_id);
    notify_aborted(checkpoint_id);
}

void CheckpointCoordinator::report_aborted(int64_t checkpoint_id, CheckpointFailureReason reason,
                                           const std::string& detail) {
    ++gateway_.stats().checkpoints_aborted;
    ++gateway_.stats().checkpoints_aborted_by_reason[reason];
    gateway_.observer().checkpoint_aborted(gateway_.world().now(), checkpoint_id, reason, detail);
}

void CheckpointCoordinator::notify_aborted(int64_t checkpoint_id) {
    const int64_t attempt = attempt_;
    for (sim::NodeId tm : nodes_running()) {
        gateway_.notify_checkpoint_aborted(node_, tm, attempt, checkpoint_id);
    }
}

void CheckpointCoordinator::count_failure(int64_t checkpoint_id, CheckpointFailureReason reason,
                                          const std::string& detail) {
    if (!running_ || !failures_.failure(checkpoint_id, reason)) return;
    // Flink's CheckpointFailureManager's text, so that a Flink user's job_failure matches.
    fail_job_(
        std::string(
            "Exceeded checkpoint tolerable failure threshold. The latest checkpoint failed due to ") +
        to_string(reason) + ": " + detail + " (more than " +
        std::to_string(config_.tolerable_failures) + " consecutive failed checkpoints)");
}

// ---- storage ------------------------------------------------------------------------------------

void CheckpointCoordinator::discard(const CompletedCheckpoint& checkpoint, bool completed) {
    // The negative control discards a completed savepoint's files as a checkpoint's.
    cleaner_.discard_files(checkpoint, completed && !config_.retention_discards_savepoints);
    cleaner_.discard_shared(shared_registry_.release_checkpoint(checkpoint));
}

void CheckpointCoordinator::discard_completed(const CompletedCheckpoint& checkpoint) {
    if (!store_) {
        discard(checkpoint, true);
        return;
    }
    store_->remove(checkpoint.id,
                   on_coordinator(&gateway_, node_, instance_,
                                  [checkpoint](CheckpointCoordinator& c,
                                               sim::external::CoordinationStatus status) {
                                      if (status == sim::external::CoordinationStatus::ok ||
                                          status == sim::external::CoordinationStatus::no_node) {
                                          c.discard(checkpoint, true);
                                      }
                                  }));
}

// Whether a checkpoint this coordinator still keeps refers to `key` (a repeated acknowledgement
// must not delete it).
bool CheckpointCoordinator::referenced(const std::string& key) const {
    return retention_.refers_to(key) ||
           std::any_of(checkpoints_.begin(), checkpoints_.end(),
                       [&key](const auto& c) { return refers_to(c.second.result(), key); });
}

std::set<sim::NodeId> CheckpointCoordinator::nodes_running() const {
    std::set<sim::NodeId> nodes;
    for (const auto& subtasks : placement_) nodes.insert(subtasks.begin(), subtasks.end());
    return nodes;
}

}  // namespace eosim::engine
