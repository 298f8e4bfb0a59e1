#include "engine/runtime/job_manager.h"

#include <algorithm>

#include "engine/checkpointing/checkpoint_id_counter.h"
#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/completed_checkpoint_store.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/leader_election.h"
#include "engine/runtime/slot_placement.h"
#include "engine/runtime/task_manager.h"
#include "engine/vocabulary/protocol_points.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kHeartbeatRound{"jm.heartbeat_round"};
constexpr sim::EventKind kDeployTimeout{"jm.deploy_timeout"};
constexpr sim::EventKind kRestart{"jm.restart"};
constexpr sim::EventKind kRecoverRetry{"jm.recover_retry"};
constexpr sim::EventKind kRecoverTimeout{"jm.recover_timeout"};
constexpr sim::EventKind kClusterWait{"jm.cluster_wait"};

// A callback that runs `f(JobManager&, args...)` only while the process numbered `instance` is the
// one on `node` (a crash drops its callbacks anyway; a lost leadership replaces the process).
template <typename F>
auto on_job_manager(Engine* engine, sim::NodeId node, uint64_t instance, F f) {
    return [engine, node, instance, f = std::move(f)](auto&&... args) {
        if (JobManager* jm = engine->job_manager_on(node, instance)) f(*jm, args...);
    };
}
}  // namespace

JobManager::JobManager(Engine& engine, sim::NodeId node, uint64_t instance)
    : engine_(engine),
      node_(node),
      instance_(instance),
      coordinator_(
          engine.execution_gateway(), node, instance,
          [this](const std::string& reason) { failover(reason); },
          [this] {
              if (phase_ == Phase::waiting_for_resources) try_deploy();
          }) {}

JobManager::~JobManager() = default;

void JobManager::boot() {
    if (engine_.high_availability().enabled()) {
        phase_ = Phase::standby;
        election_ = std::make_unique<LeaderElection>(
            engine_, node_, instance_,
            LeaderElection::Callbacks{
                [this](int64_t token) { granted_leadership(token); },
                [this](const std::string& why) {
                    engine_.job_manager_lost(node_, "lost its leadership: " + why);
                    engine_.observer().job_suspended(engine_.world().now(),
                                                     "the JobManager on " +
                                                         engine_.world().nodes().name(node_) +
                                                         " lost its leadership: " + why);
                    engine_.world().announce(points::kLeadershipLost, node_, election_->token());
                    engine_.replace_job_manager(node_);
                }});
        election_->start();
        return;
    }
    const uint32_t incarnation = engine_.world().nodes().incarnation(node_);
    attempt_ = engine_.attempt_base() + static_cast<int64_t>(incarnation) * 1000 + 1;
    heartbeat_round();
    if (incarnation > 0 && engine_.high_availability().without_ha == NoHaRecovery::session) {
        fail_job(
            "the job was lost: the JobManager on " + engine_.world().nodes().name(node_) +
            " restarted without high availability in a session cluster, which keeps no job graph "
            "(Flink's high-availability.type NONE: the job must be submitted again)");
        return;
    }
    recover_checkpoints();
}

bool JobManager::runs_job() const {
    if (phase_ == Phase::finished || phase_ == Phase::failed) return false;
    return !election_ || (election_->leading() && phase_ != Phase::standby);
}

int64_t JobManager::fencing_token() const { return election_ ? election_->token() : 0; }

bool JobManager::takes_task_manager_messages() const {
    return !election_ || (election_->leading() && phase_ != Phase::standby);
}

void JobManager::granted_leadership(int64_t token) {
    engine_.leader_granted(node_);
    attempt_ = engine_.attempt_base() + token * 1000 + 1;
    phase_ = Phase::recovering;
    recovery_timeout_ = engine_.job().runtime.deploy_timeout;
    coordinator_.use_high_availability(election_->leader_session());
    engine_.world().announce(points::kLeadershipGranted, node_, token);
    heartbeat_round();
    recover_from_store();
}

// The id counter and the retained completed checkpoints, from the coordination service (and the
// metadata they point to); tried again, a heartbeat interval apart, until both are read. A round
// that has not finished within its timeout (a read stuck behind slow storage) is abandoned for a
// new one, as a storage client's request times out and Flink retries the recovery; the timeout
// starts at the deployment timeout and doubles with each round abandoned, so storage that is
// merely slow still lets a round finish.
void JobManager::recover_from_store() {
    if (phase_ != Phase::recovering) return;
    const uint64_t round = ++recovery_round_;
    const CompletedCheckpointStore store(election_->leader_session(), engine_.world().storage(),
                                         node_);
    const CheckpointIdCounter counter(election_->leader_session(), node_);
    Engine* engine = &engine_;
    auto current = [round](const JobManager& jm) {
        return jm.phase_ == Phase::recovering && jm.recovery_round_ == round;
    };
    auto retry = [](JobManager& jm) {
        jm.engine_.world().scheduler().schedule(
            jm.engine_.job().runtime.heartbeat_interval, jm.node_, kRecoverRetry, 0,
            on_job_manager(&jm.engine_, jm.node_, jm.instance_,
                           [](JobManager& again) { again.recover_from_store(); }));
    };
    engine_.world().scheduler().schedule(
        recovery_timeout_, node_, kRecoverTimeout, round,
        on_job_manager(engine, node_, instance_, [current](JobManager& jm) {
            if (!current(jm)) return;
            jm.recovery_timeout_ = jm.recovery_timeout_ * 2;
            jm.recover_from_store();
        }));
    counter.get(on_job_manager(
        engine, node_, instance_,
        [store, current, retry, engine](JobManager& jm, bool ok, int64_t highest) {
            if (!current(jm)) return;
            if (!ok) {
                retry(jm);
                return;
            }
            store.recover(on_job_manager(
                engine, jm.node_, jm.instance_,
                [highest, current, retry](JobManager& again, bool read,
                                          std::vector<CompletedCheckpoint> retained) {
                    if (!current(again)) return;
                    if (!read) {
                        retry(again);
                        return;
                    }
                    const bool from_savepoint = retained.empty() && again.engine_.restore_from();
                    again.coordinator_.restore_completed(highest, std::move(retained));
                    if (from_savepoint) {  // no checkpoint of this deployment yet: its savepoint
                        again.read_savepoint(StoredCheckpoints{});
                        return;
                    }
                    again.phase_ = Phase::waiting_for_resources;
                    again.try_deploy();
                }));
        }));
}

void JobManager::recover_checkpoints() {
    Engine* engine = &engine_;
    engine_.world().storage().list(
        node_, checkpoint_prefix(engine_.job()),
        [engine, node = node_, instance = instance_](sim::StorageStatus status,
                                                     std::vector<std::string> keys) {
            JobManager* jm = engine->job_manager_on(node, instance);
            if (jm == nullptr) return;
            if (status !=
                sim::StorageStatus::ok) {  // try again: nothing can run before this is known
                jm->engine_.world().scheduler().schedule(
                    jm->engine_.job().runtime.heartbeat_interval, jm->node_, kRecoverRetry, 0,
                    [engine, node, instance] {
                        if (JobManager* again = engine->job_manager_on(node, instance))
                            again->recover_checkpoints();
                    });
                return;
            }
            jm->recovered(keys);
        });
}

void JobManager::recovered(const std::vector<std::string>& keys) {
    // The highest id ever made durable, the newest metadata, the older completed checkpoints.
    StoredCheckpoints found = read_checkpoint_listing(keys);
    if (engine_.high_availability().without_ha != NoHaRecovery::storage_listing) {
        // Application mode: the job as submitted, from its savepoint or from scratch. Only the
        // highest id is kept, so its checkpoints never overwrite the earlier submission's files
        // (Flink gives the new submission a fresh job id, so a directory of its own).
        found = StoredCheckpoints{.highest_id = found.highest_id, .counter_key = found.counter_key};
    }
    if (found.latest_metadata_key.empty() && engine_.restore_from()) {
        read_savepoint(found);
        return;
    }
    if (found.latest_metadata_key.empty()) {
        coordinator_.recover(found, nullptr);
        phase_ = Phase::waiting_for_resources;
        try_deploy();
        return;
    }
    Engine* engine = &engine_;
    const std::string latest = found.latest_metadata_key;
    engine_.world().storage().get(
        node_, latest,
        [engine, node = node_, instance = instance_, found = std::move(found)](
            sim::StorageStatus status, std::string value) {
            JobManager* jm = engine->job_manager_on(node, instance);
            if (jm == nullptr) return;
            if (status != sim::StorageStatus::ok) {
                jm->recover_checkpoints();
                return;
            }
            const CompletedCheckpoint checkpoint = parse_checkpoint_metadata(value);
            jm->coordinator_.recover(found, &checkpoint);
            jm->phase_ = Phase::waiting_for_resources;
            jm->try_deploy();
        });
}

void JobManager::read_savepoint(const StoredCheckpoints& found) {
    Engine* engine = &engine_;
    const std::string path = engine_.restore_from()->path;
    engine_.world().storage().get(
        node_, path,
        [engine, node = node_, instance = instance_, found, path](sim::StorageStatus status,
                                                                  std::string value) {
            JobManager* jm = engine->job_manager_on(node, instance);
            if (jm == nullptr) return;
            if (status == sim::StorageStatus::not_found) {
                jm->fail_job("Failed to rollback to checkpoint/savepoint " + path +
                             ": no savepoint there");
            } else if (status != sim::StorageStatus::ok) {
                if (jm->election_) {
                    jm->recover_from_store();  // try again
                } else {
                    jm->recover_checkpoints();  // try again
                }
            } else {
                jm->savepoint_read(found, path, value);
            }
        });
}

void JobManager::savepoint_read(const StoredCheckpoints& found, const std::string& path,
                                const std::string& text) {
    const SavepointRestoreSettings& settings = *engine_.restore_from();
    const SavepointRestore mapped =
        settings.checkpoint_of != nullptr
            ? restore_from_retained_checkpoint(parse_checkpoint_metadata(text),
                                               *settings.checkpoint_of, path, engine_.job(),
                                               settings.allow_non_restored_state)
            : restore_from_savepoint(parse_savepoint_metadata(text), path, engine_.job(),
                                     settings.allow_non_restored_state);
    if (!mapped.restore) {
        fail_job(mapped.error);
        return;
    }
    savepoint_restore_ = *mapped.restore;
    coordinator_.recover(found, nullptr);
    coordinator_.continue_ids_after(mapped.restore->id);
    phase_ = Phase::waiting_for_resources;
    try_deploy();
}

void JobManager::fail_job(const std::string& reason) {
    if (phase_ == Phase::finished || phase_ == Phase::failed) return;
    phase_ = Phase::failed;
    coordinator_.stop(CheckpointFailureReason::checkpoint_coordinator_shutdown, "the job failed");
    engine_.set_failure(reason);
    engine_.mark_failed();
    engine_.observer().job_failed(engine_.world().now(), reason);
}

void JobManager::savepoint_requested() {
    if (phase_ == Phase::running) ask_for_savepoints();
}

void JobManager::ask_for_savepoints() {
    const auto& requests = engine_.savepoint_requests();
    for (size_t i = 0; i < requests.size(); ++i) {
        if (!requests[i].done)
            coordinator_.request_savepoint(static_cast<int32_t>(i), requests[i].type);
    }
}

int32_t JobManager::total_subtasks() const { return engine_.topology().total_subtasks(); }

bool JobManager::is_current(const TaskKey& task) const {
    return task.attempt == attempt_ && (phase_ == Phase::deploying || phase_ == Phase::running);
}

void JobManager::register_task_manager(sim::NodeId tm, uint32_t instance, int32_t slots) {
    auto known = task_managers_.find(tm);
    const bool restarted = known != task_managers_.end() && known->second.instance != instance;
    task_managers_[tm] = Registered{instance, slots, engine_.world().now()};
    if (restarted && hosts_current_tasks(tm)) {
        failover("TaskManager " + engine_.world().nodes().name(tm) +
                 " restarted and lost its tasks");
    }
    engine_.send_to_task_manager(node_, tm, messages::kRegistered, tm,
                                 [](TaskManager& t) { t.registration_accepted(); });
    if (phase_ == Phase::waiting_for_resources) try_deploy();
}

void JobManager::heartbeat_reply(sim::NodeId tm) {
    auto it = task_managers_.find(tm);
    if (it != task_managers_.end()) {
        it->second.last_heard = engine_.world().now();
        return;
    }
    // A TaskManager this JobManager gave up on (it was paused or cut off): it must drop its tasks
    // and register again, as Flink's TaskExecutor does when its JobManager disconnects it.
    engine_.send_to_task_manager(node_, tm, messages::kRegistered, tm,
                                 [](TaskManager& t) { t.reconnect(); });
}

void JobManager::heartbeat_round() {
    if (phase_ == Phase::finished || phase_ == Phase::failed) return;
    const RuntimeConfig& runtime = engine_.job().runtime;
    const sim::Time now = engine_.world().now();
    std::vector<sim::NodeId> lost;
    for (const auto& [tm, info] : task_managers_) {
        if (now - info.last_heard > runtime.heartbeat_timeout) {
            lost.push_back(tm);
        } else {
            engine_.send_to_task_manager(node_, tm, messages::kHeartbeat, tm,
                                         [](TaskManager& t) { t.heartbeat(); });
        }
    }
    for (sim::NodeId tm : lost) {
        task_managers_.erase(tm);
        if (hosts_current_tasks(tm))
            failover("TaskManager " + engine_.world().nodes().name(tm) +
                     " lost (heartbeat timeout)");
    }
    if (election_) {
        // HA: the leader announces itself to the TaskManagers it does not have (Flink's
        // TaskExecutors learn the leader from the HA service; here the heartbeat carrying the token
        // tells them).
        for (sim::NodeId tm : engine_.task_manager_nodes()) {
            if (!task_managers_.contains(tm)) {
                engine_.send_to_task_manager(node_, tm, messages::kHeartbeat, tm,
                                             [](TaskManager& t) { t.leader_announced(); });
            }
        }
    }
    Engine* engine = &engine_;
    engine_.world().scheduler().schedule(
        runtime.heartbeat_interval, node_, kHeartbeatRound, 0,
        on_job_manager(engine, node_, instance_, [](JobManager& jm) { jm.heartbeat_round(); }));
}

bool JobManager::hosts_current_tasks(sim::NodeId tm) const {
    if (phase_ != Phase::deploying && phase_ != Phase::running) return false;
    for (const auto& subtasks : deployment_.placement) {
        for (sim::NodeId node : subtasks) {
            if (node == tm) return true;
        }
    }
    return false;
}

// A JobManager's first deployment waits until every TaskManager of the cluster (spares included)
// has registered, or a heartbeat timeout after it began waiting for them: placement then depends on
// the cluster, not on which registration came first (a standalone cluster's workers are up when a
// job is submitted). Later attempts are placed on the TaskManagers registered then.
bool JobManager::cluster_assembled() {
    if (cluster_assembled_) return true;
    const std::vector<sim::NodeId>& nodes = engine_.task_manager_nodes();
    if (std::all_of(nodes.begin(), nodes.end(),
                    [this](sim::NodeId tm) { return task_managers_.contains(tm); })) {
        cluster_assembled_ = true;
        return true;
    }
    if (!cluster_wait_started_) {
        cluster_wait_started_ = true;
        engine_.world().scheduler().schedule(
            engine_.job().runtime.heartbeat_timeout, node_, kClusterWait, 0,
            on_job_manager(&engine_, node_, instance_, [](JobManager& jm) {
                jm.cluster_assembled_ = true;
                if (jm.phase_ == Phase::waiting_for_resources) jm.try_deploy();
            }));
    }
    return false;
}

void JobManager::try_deploy() {
    const JobSpec& job = engine_.job();
    if (!cluster_assembled()) return;
    std::vector<SlotOffer> offers;  // in node order
    for (const auto& [tm, info] : task_managers_) offers.push_back(SlotOffer{tm, info.slots});
    const auto placed = place_subtasks(job, offers, engine_.shape().evenly_spread_out_slots);
    if (!placed) return;                  // wait for more TaskManagers
    if (coordinator_.settling()) return;  // wait until the checkpoint to restore is decided
    deployment_ = Deployment{};
    deployment_.attempt = attempt_;
    std::map<sim::NodeId, std::vector<std::pair<int32_t, int32_t>>> per_node;
    for (int32_t v = 0; v < static_cast<int32_t>(placed->size()); ++v) {
        std::vector<sim::NodeId> nodes;
        std::vector<int32_t> slots;
        for (int32_t s = 0; s < static_cast<int32_t>((*placed)[static_cast<size_t>(v)].size());
             ++s) {
            const SlotAssignment& slot = (*placed)[static_cast<size_t>(v)][static_cast<size_t>(s)];
            nodes.push_back(slot.task_manager);
            slots.push_back(slot.slot);
            per_node[slot.task_manager].push_back({v, s});
        }
        deployment_.placement.push_back(std::move(nodes));
        deployment_.slots.push_back(std::move(slots));
    }
    if (const CompletedCheckpoint* latest = coordinator_.latest()) {
        deployment_.restore = *latest;
    } else if (savepoint_restore_) {
        deployment_.restore = *savepoint_restore_;
    }
    if (job.runtime.finished_sources_read_again) {  // the negative control: finished sources
                                                    // deployed to run
        std::erase_if(deployment_.restore.finished, [&job](const auto& subtask) {
            return is_source_kind(job.vertices[static_cast<size_t>(subtask.first)].kind);
        });
    }
    phase_ = Phase::deploying;
    ready_.clear();
    finished_.clear();
    engine_.observer().restore_started(engine_.world().now(), attempt_, deployment_.restore.id,
                                       deployment_.restore.offsets);
    engine_.attempt_placed(deployment_);
    auto deployment = std::make_shared<const Deployment>(deployment_);
    Engine* engine = &engine_;
    const int64_t attempt = attempt_;
    if (election_) {
        // HA: only a leader whose fenced write still applies deploys (a deposed one cannot).
        election_->confirm(on_job_manager(
            engine, node_, instance_, [attempt, deployment, per_node](JobManager& jm, bool ok) {
                if (ok) {
                    jm.deploy_confirmed(attempt, deployment, per_node);
                } else {
                    ++jm.engine_.stats().deployments_refused;
                }
            }));
    } else {
        send_deployment(deployment, per_node);
    }
    engine_.world().scheduler().schedule(
        job.runtime.deploy_timeout, node_, kDeployTimeout, static_cast<uint64_t>(attempt),
        [engine, node = node_, instance = instance_, attempt] {
            JobManager* jm = engine->job_manager_on(node, instance);
            if (jm != nullptr && jm->attempt_ == attempt && jm->phase_ == Phase::deploying) {
                jm->failover("deployment timed out");
            }
        });
}

void JobManager::deploy_confirmed(
    int64_t attempt, const std::shared_ptr<const Deployment>& deployment,
    const std::map<sim::NodeId, std::vector<std::pair<int32_t, int32_t>>>& per_node) {
    if (attempt == attempt_ && phase_ == Phase::deploying) send_deployment(deployment, per_node);
}

void JobManager::send_deployment(
    const std::shared_ptr<const Deployment>& deployment,
    const std::map<sim::NodeId, std::vector<std::pair<int32_t, int32_t>>>& per_node) {
    for (const auto& [tm, subtasks] : per_node) {
        engine_.send_to_task_manager(
            node_, tm, messages::kDeploy, static_cast<uint64_t>(deployment->attempt),
            // An init-capture: clang before 16 cannot capture a structured binding.
            [deployment, subtasks = subtasks](TaskManager& t) { t.deploy(*deployment, subtasks); });
    }
}

void JobManager::task_ready(const TaskKey& task) {
    if (!is_current(task) || phase_ != Phase::deploying) return;
    ready_.insert({task.vertex, task.subtask});
    if (static_cast<int32_t>(ready_.size()) < total_subtasks()) return;
    phase_ = Phase::running;
    std::set<sim::NodeId> nodes;
    for (const auto& subtasks : deployment_.placement)
        nodes.insert(subtasks.begin(), subtasks.end());
    for (sim::NodeId tm : nodes) send_start(tm);
    coordinator_.start(attempt_, deployment_.placement, deployment_.restore.finished);
    engine_.world().announce(points::kJobRunning, node_, attempt_);
    if (phase_ == Phase::running && engine_.job_manager() == this) ask_for_savepoints();
}

void JobManager::send_start(sim::NodeId tm) {
    const int64_t attempt = attempt_;
    engine_.send_to_task_manager(node_, tm, messages::kStart, static_cast<uint64_t>(attempt),
                                 [attempt](TaskManager& t) { t.start_tasks(attempt); });
}

void JobManager::tasks_waiting_to_start(sim::NodeId tm, int64_t attempt) {
    if (attempt == attempt_ && phase_ == Phase::running) send_start(tm);
}

void JobManager::task_failed(const TaskKey& task, const std::string& reason) {
    if (!is_current(task)) return;
    failover(engine_.job().vertices[static_cast<size_t>(task.vertex)].id + "-" +
             std::to_string(task.subtask) + " failed: " + reason);
}

void JobManager::task_finished(const TaskKey& task) {
    if (!is_current(task) || phase_ != Phase::running) return;
    finished_.insert({task.vertex, task.subtask});
    coordinator_.task_finished(task);
    if (static_cast<int32_t>(finished_.size()) < total_subtasks()) return;
    phase_ = Phase::finished;
    coordinator_.stop(CheckpointFailureReason::checkpoint_coordinator_shutdown, "the job finished");
    engine_.job_finished_after_stop();
    engine_.mark_finished();
    engine_.observer().job_finished(engine_.world().now());
    engine_.world().announce(points::kJobFinished, node_, attempt_);
}

void JobManager::acknowledge_checkpoint(const TaskKey& task, int64_t checkpoint_id,
                                        const std::string& handle, int64_t state_bytes,
                                        const SourceOffsets& offsets,
                                        const SharedStateReport& shared) {
    coordinator_.acknowledge(task, checkpoint_id, handle, state_bytes, offsets, shared);
}

void JobManager::decline_checkpoint(const TaskKey& task, int64_t checkpoint_id,
                                    CheckpointFailureReason reason, const std::string& detail) {
    if (is_current(task)) coordinator_.decline(task, checkpoint_id, reason, detail);
}

void JobManager::failover(const std::string& reason) {
    if (phase_ == Phase::finished || phase_ == Phase::failed || phase_ == Phase::restarting) return;
    coordinator_.stop(CheckpointFailureReason::checkpoint_coordinator_suspend,
                      "the attempt failed: " + reason);
    const RestartStrategy& strategy = engine_.job().restart;
    // As Flink counts restarts: a failover of a restarted attempt that never got all its tasks
    // running (it was deployed onto a TaskManager whose loss caused the restart, and that
    // TaskManager came back empty) retries the same restart: one TaskManager loss, one restart.
    if (!attempt_is_restart_ || phase_ == Phase::running) ++engine_.stats().restarts;
    if (++engine_.stats().failovers > strategy.max_attempts) {
        phase_ = Phase::failed;
        // Flink's text (a JobException from its ExecutionFailureHandler), so that a Flink user's
        // job_failure matches.
        const std::string failure =
            "Recovery is suppressed by FixedDelayRestartBackoffTimeStrategy(maxNumberRestartAttempts=" +
            std::to_string(strategy.max_attempts) +
            ", backoffTimeMS=" + std::to_string(strategy.delay.millis_count()) +
            "): restart strategy exhausted; last failure: " + reason;
        engine_.set_failure(failure);
        engine_.mark_failed();
        engine_.observer().job_failed(engine_.world().now(), failure);
        return;
    }
    ++attempt_;
    attempt_is_restart_ = true;
    phase_ = Phase::restarting;
    engine_.observer().failover(engine_.world().now(), attempt_, reason);
    engine_.world().announce(points::kFailoverStarted, node_, attempt_);
    const int64_t attempt = attempt_;
    for (const auto& [tm, info] : task_managers_) {
        engine_.send_to_task_manager(
            node_, tm, messages::kCancel, static_cast<uint64_t>(attempt),
            [attempt](TaskManager& t) { t.cancel_attempts_before(attempt); });
    }
    Engine* engine = &engine_;
    engine_.world().scheduler().schedule(
        strategy.delay, node_, kRestart, static_cast<uint64_t>(attempt),
        [engine, node = node_, instance = instance_, attempt] {
            JobManager* jm = engine->job_manager_on(node, instance);
            if (jm == nullptr || jm->attempt_ != attempt || jm->phase_ != Phase::restarting) return;
            jm->phase_ = Phase::waiting_for_resources;
            jm->try_deploy();
        });
}

}  // namespace eosim::engine
