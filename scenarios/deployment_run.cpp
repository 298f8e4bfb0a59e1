#include "scenarios/deployment_run.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/runtime/task.h"
#include "engine/runtime/task_manager.h"
#include "scenarios/job_history.h"

namespace eosim::scenarios {

namespace {

constexpr sim::EventKind kUserSavepoint{"user.savepoint"};
constexpr sim::EventKind kUserStop{"user.stop_with_savepoint"};
constexpr sim::EventKind kUserCancel{"user.cancel"};
constexpr sim::EventKind kStopVerification{"user.stop_verification_job"};

}  // namespace

struct DeploymentRun::Verification {
    engine::JobSpec job;  // before the engine, which refers to it
    sim::Duration run_for;
    std::unique_ptr<engine::Engine> engine;
};

DeploymentRun::DeploymentRun(const Scenario& scenario, sim::World& world,
                             const engine::EngineServices& services, engine::RunObserver& observer,
                             engine::HighAvailability high_availability)
    : scenario_(scenario), world_(world) {
    for (size_t d = 0; d <= scenario.deployments.size(); ++d)
        jobs_.push_back(scenario.deployment_job(d));
    for (size_t d = 0; d < jobs_.size(); ++d) {
        engines_.push_back(std::make_unique<engine::Engine>(
            world, jobs_[d],
            engine::ClusterShape{scenario.world.task_managers,
                                 scenario.world.slots_per_task_manager,
                                 scenario.world.spare_task_managers, Scenario::deployment_suffix(d),
                                 scenario.world.evenly_spread_out_slots},
            services, observer, high_availability));
        if (d > 0)
            engines_.back()->set_deployment(static_cast<int64_t>(d) * kAttemptsPerDeployment,
                                            std::nullopt);
    }
    verifications_.resize(jobs_.size());
    stop_savepoints_.resize(jobs_.size());
    started_from_.resize(jobs_.size());
    for (size_t d = 1; d < jobs_.size(); ++d) {
        if (!scenario.deployments[d - 1].verification) continue;
        auto v = std::make_unique<Verification>();
        v->job = scenario.verification_job(d);
        v->run_for = scenario.deployments[d - 1].verification_for;
        v->engine = std::make_unique<engine::Engine>(
            world, v->job,
            engine::ClusterShape{
                scenario.world.task_managers, scenario.world.slots_per_task_manager,
                scenario.world.spare_task_managers, Scenario::verification_suffix(d),
                scenario.world.evenly_spread_out_slots},
            services, observer, high_availability);
        verifications_[d] = std::move(v);
    }
}

DeploymentRun::~DeploymentRun() = default;

void DeploymentRun::schedule_user_requests() {
    DeploymentRun* all = this;
    for (const SavepointSpec& savepoint : scenario_.savepoints) {
        if (savepoint.at) {
            auto named = std::make_shared<NamedRequest>(NamedRequest{savepoint.name});
            if (!savepoint.name.empty()) named_.push_back(named);
            world_.scheduler().schedule(
                *savepoint.at, sim::kNoNode, kUserSavepoint, 0, [all, named] {
                    named->deployment = all->live_;
                    named->request = all->live().request_savepoint(
                        engine::SnapshotType{engine::SnapshotKind::savepoint, false});
                });
            continue;
        }
        auto seen = std::make_shared<int32_t>(0);
        const std::string point = savepoint.at_point;
        const int32_t occurrence = savepoint.occurrence;
        sim::World* w = &world_;
        world_.on_point([all, w, seen, point, occurrence](const sim::ProtocolPointEvent& event) {
            if (event.point != point || ++*seen != occurrence) return;
            w->scheduler().schedule(sim::Duration::zero(), sim::kNoNode, kUserSavepoint, 1, [all] {
                all->live().request_savepoint(
                    engine::SnapshotType{engine::SnapshotKind::savepoint, false});
            });
        });
    }
    for (size_t d = 0; d < scenario_.deployments.size(); ++d) {
        const bool drain = scenario_.deployments[d].drain;
        engine::Engine* stopping = engines_[d].get();
        if (scenario_.deployments[d].from.cancels_previous()) {
            world_.scheduler().schedule(scenario_.deployments[d].at, sim::kNoNode, kUserCancel, d,
                                        [stopping] { stopping->cancel(); });
            continue;
        }
        world_.scheduler().schedule(
            scenario_.deployments[d].at, sim::kNoNode, kUserStop, d, [stopping, drain] {
                stopping->request_savepoint(
                    engine::SnapshotType{engine::SnapshotKind::terminate_savepoint, drain});
            });
    }
}

engine::Engine& DeploymentRun::current() {
    return verifying_ ? *verifications_[live_ + 1]->engine : *engines_[live_];
}

std::vector<const engine::JobSpec*> DeploymentRun::all_jobs() const {
    std::vector<const engine::JobSpec*> all;
    for (const engine::JobSpec& job : jobs_) all.push_back(&job);
    for (const auto& v : verifications_) {
        if (v) all.push_back(&v->job);
    }
    return all;
}

bool DeploymentRun::hands_over() const {
    if (verifying_) return true;
    if (live_ + 1 >= engines_.size()) return false;
    if (engines_[live_]->cancelled()) return true;
    for (const engine::SavepointRequest& r : engines_[live_]->savepoint_requests()) {
        if (r.type.terminates() && r.done) return true;
    }
    return false;
}

void DeploymentRun::hand_over(const Starting& starting, const VerificationDone& verified) {
    if (verifying_) {
        Verification& v = *verifications_[live_ + 1];
        std::optional<engine::SourceOffsets> to;
        for (const engine::SavepointRequest& r : v.engine->savepoint_requests()) {
            if (r.type.terminates() && r.done) to = r.offsets;
        }
        v.engine->shut_down();
        verifying_ = false;
        verified(Verified{&v.job, restore_.offsets, to});
        start_next(starting, false);
        return;
    }
    for (const engine::SavepointRequest& r : engines_[live_]->savepoint_requests()) {
        if (r.type.terminates() && r.done)
            stop_savepoints_[live_] = Snapshot{r.path, r.offsets, live_, nullptr};
    }
    engines_[live_]->shut_down();
    restore_ = restore_source(live_ + 1);
    previous_end_ =
        stop_savepoints_[live_] ? stop_savepoints_[live_]->offsets : cancelled_end(live_);
    if (!restore_.path.empty()) started_from_[live_ + 1] = restore_;
    if (Verification* v = verifications_[live_ + 1].get()) {
        start_verification(*v, starting);
        return;
    }
    start_next(starting, true);
}

// The verification job of the next deployment, from the live one's final savepoint, stopped with a
// savepoint of its own after its `run_for`.
void DeploymentRun::start_verification(Verification& v, const Starting& starting) {
    verifying_ = true;
    starting(Start{v.job, restore_.offsets, true, restore_.deployment, previous_end_,
                   from_previous_stop()});
    v.engine->set_deployment(
        static_cast<int64_t>(live_ + 1) * kAttemptsPerDeployment + kAttemptsPerDeployment / 2,
        restore_settings(live_ + 1));
    v.engine->start();
    engine::Engine* verifier = v.engine.get();
    world_.scheduler().schedule(v.run_for, sim::kNoNode, kStopVerification, live_ + 1, [verifier] {
        verifier->request_savepoint(
            engine::SnapshotType{engine::SnapshotKind::terminate_savepoint, false});
    });
}

void DeploymentRun::start_next(const Starting& starting, bool first) {
    ++live_;
    starting(Start{jobs_[live_], restore_.offsets, first, restore_.deployment, previous_end_,
                   from_previous_stop()});
    std::optional<engine::SavepointRestoreSettings> settings;
    if (!restore_.path.empty()) settings = restore_settings(live_);
    engines_[live_]->set_deployment(static_cast<int64_t>(live_) * kAttemptsPerDeployment, settings);
    engines_[live_]->start();
}

std::string DeploymentRun::task_of_event(sim::NodeId node, uint64_t digest,
                                         int64_t& attempt) const {
    std::string found;
    for (engine::Engine* engine : all_engines()) {
        const engine::TaskManager* tm = engine->task_manager(node);
        if (tm == nullptr) continue;
        tm->for_each_task([&](const engine::Task& task) {
            if (found.empty() && engine::Engine::task_digest(task.key()) == digest) {
                found = task.vertex().id + "-" + std::to_string(task.key().subtask);
                attempt = task.key().attempt;
            }
        });
        if (!found.empty()) break;
    }
    return found;
}

bool DeploymentRun::from_previous_stop() const {
    const std::optional<Snapshot>& stop = stop_savepoints_[verifying_ ? live_ : live_ - 1];
    return stop && stop->path == restore_.path;
}

engine::SavepointRestoreSettings DeploymentRun::restore_settings(size_t next) const {
    return engine::SavepointRestoreSettings{
        restore_.path, scenario_.deployments[next - 1].allow_non_restored_state,
        restore_.checkpoint_of};
}

DeploymentRun::Snapshot DeploymentRun::restore_source(size_t next) const {
    const RestoreSource& from = scenario_.deployments[next - 1].from;
    switch (from.kind) {
        case RestoreSource::Kind::stop_savepoint: {
            // The loader allows only deployments that were stopped with a savepoint, and the run
            // got here only after the previous one's completed. Unnamed (a spec built in code too):
            // the previous one's.
            const size_t which = from.text.empty() ? next - 1 : from.deployment;
            return stop_savepoints_.at(which).value_or(Snapshot{
                "(no savepoint stopped v" + std::to_string(which + 1) + ")", {}, which, nullptr});
        }
        case RestoreSource::Kind::named_savepoint:
            for (const auto& named : named_) {
                if (named->name != from.name || named->request < 0) continue;
                const engine::SavepointRequest& r =
                    engines_[named->deployment]
                        ->savepoint_requests()[static_cast<size_t>(named->request)];
                if (r.done) return Snapshot{r.path, r.offsets, named->deployment, nullptr};
            }
            // Never completed: the deployment fails to start from it, with Flink's error.
            return Snapshot{"savepoint '" + from.name + "' (requested, never completed)",
                            {},
                            next - 1,
                            nullptr};
        case RestoreSource::Kind::latest_checkpoint:
            if (auto latest = latest_checkpoint(next - 1)) return *latest;
            return Snapshot{"", {}, next - 1, nullptr};  // no checkpoint retained: from scratch
        case RestoreSource::Kind::retained_checkpoint:
            return retained_checkpoint(next - 1, from.checkpoint_id);
        case RestoreSource::Kind::nothing:
            // A fresh start: every source from the beginning, the state of the first job before it
            // read anything.
            return Snapshot{"", start_offsets(jobs_[next]), 0, nullptr};
    }
    return {};
}

// Retained checkpoint `id` of the cancelled deployment `d`, as `flink run -s .../chk-<id>` finds
// it. Not there (never completed, or subsumed by retention): the path alone, whose restore fails
// the deployment with Flink's error.
DeploymentRun::Snapshot DeploymentRun::retained_checkpoint(size_t d, int64_t id) const {
    const std::string path = engine::metadata_key(jobs_[d], id);
    const std::map<std::string, std::string>& blobs = world_.storage().contents();
    auto it = blobs.find(path);
    if (it == blobs.end() || world_.storage().removal_in_flight(path))
        return Snapshot{path, {}, d, &jobs_[d]};
    return Snapshot{path, engine::parse_checkpoint_metadata(it->second).offsets, d, &jobs_[d]};
}

// Where cancelled deployment `d` ended: its newest retained checkpoint (the transactions of older
// ones are committed; a restore of it commits its own, one of an older checkpoint or of nothing
// aborts them as lingering -- unless the cancel came after the checkpoint completed and before
// every sink subtask committed it, a race of a few milliseconds the model does not follow), else
// where it started.
engine::SourceOffsets DeploymentRun::cancelled_end(size_t d) const {
    if (auto latest = latest_checkpoint(d)) return latest->offsets;
    return start_offsets(jobs_[d]);
}

// Offset 0 of every split `job`'s Kafka sources read: where a job without state starts.
engine::SourceOffsets DeploymentRun::start_offsets(const engine::JobSpec& job) const {
    engine::SourceOffsets zero;
    for (const engine::VertexSpec& v : job.vertices) {
        if (v.kind != engine::OperatorKind::kafka_source) continue;
        for (const TopicSpec& topic : scenario_.world.topics) {
            if (topic.name != v.topic) continue;
            for (int32_t p = 0; p < topic.partitions; ++p) zero[{topic.name, p}] = 0;
        }
    }
    return zero;
}

// What the user finds listing the cancelled job's checkpoint folder: the newest _metadata.
std::optional<DeploymentRun::Snapshot> DeploymentRun::latest_checkpoint(size_t d) const {
    const std::map<std::string, std::string>& blobs = world_.storage().contents();
    const std::string prefix = engine::checkpoint_prefix(jobs_[d]);
    std::optional<Snapshot> latest = started_from_[d];
    int64_t newest = 0;
    for (auto it = blobs.lower_bound(prefix); it != blobs.end() && it->first.starts_with(prefix);
         ++it) {
        if (!it->first.ends_with("/_metadata") || world_.storage().removal_in_flight(it->first))
            continue;
        const int64_t id = engine::checkpoint_id_of(it->first);
        if (id <= newest) continue;
        newest = id;
        latest = Snapshot{it->first, engine::parse_checkpoint_metadata(it->second).offsets, d,
                          &jobs_[d]};
    }
    return latest;
}

std::vector<engine::Engine*> DeploymentRun::all_engines() const {
    std::vector<engine::Engine*> all;
    for (const auto& e : engines_) all.push_back(e.get());
    for (const auto& v : verifications_) {
        if (v) all.push_back(v->engine.get());
    }
    return all;
}

EffectProbes::NodeLoad DeploymentRun::load_of(sim::NodeId node) {
    EffectProbes::NodeLoad load;
    for (engine::Engine* e : all_engines()) {
        if (e->is_job_manager_node(node)) {
            load.engine_node = true;
            load.job_manager = load.job_manager || e->job_manager_on(node) != nullptr;
        }
        const auto& tms = e->task_manager_nodes();
        if (std::find(tms.begin(), tms.end(), node) == tms.end()) continue;
        load.engine_node = true;
        if (const engine::TaskManager* tm = e->task_manager(node))
            load.tasks += static_cast<int64_t>(tm->task_count());
    }
    return load;
}

engine::EngineStats DeploymentRun::total_stats() const {
    engine::EngineStats total;
    for (engine::Engine* e : all_engines()) {
        const engine::EngineStats& s = e->stats();
        total.checkpoints_triggered += s.checkpoints_triggered;
        total.checkpoints_completed += s.checkpoints_completed;
        total.checkpoints_aborted += s.checkpoints_aborted;
        for (const auto& [reason, n] : s.checkpoints_aborted_by_reason)
            total.checkpoints_aborted_by_reason[reason] += n;
        total.checkpoint_trigger_failures += s.checkpoint_trigger_failures;
        total.checkpoint_files_discarded += s.checkpoint_files_discarded;
        total.checkpoint_bytes_discarded += s.checkpoint_bytes_discarded;
        total.failovers += s.failovers;
        total.restarts += s.restarts;
        total.records_read += s.records_read;
        total.savepoints_completed += s.savepoints_completed;
        total.shared_bytes_uploaded += s.shared_bytes_uploaded;
        total.shared_bytes_referenced += s.shared_bytes_referenced;
        total.shared_files_discarded += s.shared_files_discarded;
    }
    return total;
}

}  // namespace eosim::scenarios
