#include "scenarios/deployment_run.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "engine/runtime/task.h"
#include "engine/runtime/task_manager.h"

namespace eosim::scenarios {

namespace {

constexpr sim::EventKind kUserSavepoint{"user.savepoint"};
constexpr sim::EventKind kUserStop{"user.stop_with_savepoint"};
constexpr sim::EventKind kStopVerification{"user.stop_verification_job"};
constexpr int64_t kAttemptsPerDeployment = 1'000'000;

}  // namespace

struct DeploymentRun::Verification {
    engine::JobSpec job;  // before the engine, which refers to it
    sim::Duration run_for;
    std::unique_ptr<engine::Engine> engine;
};

DeploymentRun::DeploymentRun(const Scenario& scenario, sim::World& world, const engine::EngineServices& services,
                             engine::RunObserver& observer, engine::HighAvailability high_availability)
    : scenario_(scenario), world_(world) {
    for (size_t d = 0; d <= scenario.deployments.size(); ++d) jobs_.push_back(scenario.deployment_job(d));
    for (size_t d = 0; d < jobs_.size(); ++d) {
        engines_.push_back(std::make_unique<engine::Engine>(
            world, jobs_[d],
            engine::ClusterShape{scenario.world.task_managers, scenario.world.slots_per_task_manager,
                                 scenario.world.spare_task_managers, Scenario::deployment_suffix(d)},
            services, observer, high_availability));
        if (d > 0) engines_.back()->set_deployment(static_cast<int64_t>(d) * kAttemptsPerDeployment, std::nullopt);
    }
    verifications_.resize(jobs_.size());
    for (size_t d = 1; d < jobs_.size(); ++d) {
        if (!scenario.deployments[d - 1].verification) continue;
        auto v = std::make_unique<Verification>();
        v->job = scenario.verification_job(d);
        v->run_for = scenario.deployments[d - 1].verification_for;
        v->engine = std::make_unique<engine::Engine>(
            world, v->job,
            engine::ClusterShape{scenario.world.task_managers, scenario.world.slots_per_task_manager,
                                 scenario.world.spare_task_managers, Scenario::verification_suffix(d)},
            services, observer, high_availability);
        verifications_[d] = std::move(v);
    }
}

DeploymentRun::~DeploymentRun() = default;

void DeploymentRun::schedule_user_requests() {
    DeploymentRun* all = this;
    for (const SavepointSpec& savepoint : scenario_.savepoints) {
        if (savepoint.at) {
            world_.scheduler().schedule(*savepoint.at, sim::kNoNode, kUserSavepoint, 0, [all] {
                all->live().request_savepoint(engine::SnapshotType{engine::SnapshotKind::savepoint, false});
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
                all->live().request_savepoint(engine::SnapshotType{engine::SnapshotKind::savepoint, false});
            });
        });
    }
    for (size_t d = 0; d < scenario_.deployments.size(); ++d) {
        const bool drain = scenario_.deployments[d].drain;
        engine::Engine* stopping = engines_[d].get();
        world_.scheduler().schedule(scenario_.deployments[d].at, sim::kNoNode, kUserStop, d, [stopping, drain] {
            stopping->request_savepoint(engine::SnapshotType{engine::SnapshotKind::terminate_savepoint, drain});
        });
    }
}

engine::Engine& DeploymentRun::current() { return verifying_ ? *verifications_[live_ + 1]->engine : *engines_[live_]; }

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
        verified(Verified{&v.job, savepoint_offsets_, to});
        start_next(starting, false);
        return;
    }
    for (const engine::SavepointRequest& r : engines_[live_]->savepoint_requests()) {
        if (r.type.terminates() && r.done) {
            savepoint_path_ = r.path;
            savepoint_offsets_ = r.offsets;
        }
    }
    engines_[live_]->shut_down();
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
    starting(v.job, savepoint_offsets_, true);
    v.engine->set_deployment(static_cast<int64_t>(live_ + 1) * kAttemptsPerDeployment + kAttemptsPerDeployment / 2,
                             engine::SavepointRestoreSettings{savepoint_path_, scenario_.deployments[live_].allow_non_restored_state});
    v.engine->start();
    engine::Engine* verifier = v.engine.get();
    world_.scheduler().schedule(v.run_for, sim::kNoNode, kStopVerification, live_ + 1, [verifier] {
        verifier->request_savepoint(engine::SnapshotType{engine::SnapshotKind::terminate_savepoint, false});
    });
}

void DeploymentRun::start_next(const Starting& starting, bool first) {
    ++live_;
    starting(jobs_[live_], savepoint_offsets_, first);
    engines_[live_]->set_deployment(static_cast<int64_t>(live_) * kAttemptsPerDeployment,
                                    engine::SavepointRestoreSettings{savepoint_path_, scenario_.deployments[live_ - 1].allow_non_restored_state});
    engines_[live_]->start();
}

std::string DeploymentRun::task_of_event(sim::NodeId node, uint64_t digest, int64_t& attempt) const {
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
        if (const engine::TaskManager* tm = e->task_manager(node)) load.tasks += static_cast<int64_t>(tm->task_count());
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
        for (const auto& [reason, n] : s.checkpoints_aborted_by_reason) total.checkpoints_aborted_by_reason[reason] += n;
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
