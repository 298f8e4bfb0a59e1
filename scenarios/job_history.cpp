#include "scenarios/job_history.h"

#include <utility>

namespace eosim::scenarios {

int64_t deployment_of_attempt(int64_t attempt) { return attempt / kAttemptsPerDeployment; }

bool verification_attempt(int64_t attempt) {
    return attempt % kAttemptsPerDeployment >= kAttemptsPerDeployment / 2;
}

std::string deployment_name_of_attempt(int64_t attempt) {
    std::string name =
        "v";  // appended, not "v" + std::to_string(...): GCC 12's false -Wrestrict (bug 105329)
    name += std::to_string(deployment_of_attempt(attempt) + 1);
    if (verification_attempt(attempt)) name += " verification";
    return name;
}

std::string snapshot_kind_name(engine::SnapshotType type) {
    switch (type.kind) {
        case engine::SnapshotKind::checkpoint: return "checkpoint";
        case engine::SnapshotKind::savepoint: return "savepoint";
        case engine::SnapshotKind::terminate_savepoint:
            return type.drain ? "stop-with-savepoint, drain" : "stop-with-savepoint";
    }
    return "checkpoint";
}

void JobHistory::name_attempt(int64_t attempt) {
    if (attempt_names_.contains(attempt)) return;
    const std::string deployment = deployment_name_of_attempt(attempt);
    const int64_t n = ++attempts_per_deployment_[deployment];
    attempt_names_[attempt] = deployment + "/" + std::to_string(n);
}

std::string JobHistory::attempt_name(int64_t attempt) const {
    auto it = attempt_names_.find(attempt);
    return it == attempt_names_.end() ? std::to_string(attempt) : it->second;
}

std::string JobHistory::deployment_name() const {
    return current_attempt_ < 0 ? "v1" : deployment_name_of_attempt(current_attempt_);
}

engine::SnapshotType JobHistory::snapshot_type(int64_t id) const {
    auto it = snapshot_types_.find(id);
    return it == snapshot_types_.end() ? engine::SnapshotType{} : it->second;
}

std::string JobHistory::snapshot_name(int64_t id) const {
    const engine::SnapshotType type = snapshot_type(id);
    return (type.terminates() ? std::string("stop-with-savepoint") : snapshot_kind_name(type)) +
           " " + std::to_string(id);
}

std::string JobHistory::finished_text() const {
    if (stopped_with_ != 0) return "stopped with savepoint " + std::to_string(stopped_with_);
    return "bounded input done, final checkpoint committed";
}

const DeploymentSpan* JobHistory::span_of(int64_t attempt) const {
    const std::string name = deployment_name_of_attempt(attempt);
    for (const DeploymentSpan& span : deployments_) {
        if (span.name == name) return &span;
    }
    return nullptr;
}

DeploymentSpan* JobHistory::span_of(int64_t attempt) {
    return const_cast<DeploymentSpan*>(std::as_const(*this).span_of(attempt));
}

std::string JobHistory::restore_text(int64_t attempt, int64_t id) const {
    if (id == 0) return "from scratch";
    const DeploymentSpan* span = span_of(attempt);
    const bool savepoint =
        span != nullptr && span->restored_from == id && !span->restored_kind.empty();
    return (savepoint ? "restores savepoint " : "restores checkpoint ") + std::to_string(id);
}

void JobHistory::status(sim::Time t, const char* status, std::string detail) {
    statuses_.push_back(JobStatusChange{t.seconds(), status, deployment_name(), std::move(detail)});
}

void JobHistory::checkpoint_triggered(sim::Time, int64_t id, engine::SnapshotType type) {
    if (type.is_savepoint()) snapshot_types_[id] = type;
    triggered_.insert(id);
}

void JobHistory::checkpoint_completed(sim::Time, int64_t id, const engine::SourceOffsets&) {
    if (snapshot_type(id).terminates()) stopped_with_ = id;
    completed_.insert(id);
}

void JobHistory::restore_started(sim::Time t, int64_t attempt, int64_t id,
                                 const engine::SourceOffsets&) {
    const bool new_deployment =
        current_attempt_ < 0 || deployment_name_of_attempt(attempt) != deployment_name();
    const bool after_failover = restarting_;
    restarting_ = false;
    if (new_deployment) {
        snapshot_types_.clear();
        stopped_with_ = 0;
    }
    name_attempt(attempt);
    current_attempt_ = attempt;
    if (new_deployment) {
        DeploymentSpan span;
        span.name = deployment_name();
        span.begin_s = t.seconds();
        span.restored_from = id;
        if (id != 0)
            span.restored_kind = "savepoint";  // a later deployment starts from its predecessor's
        deployments_.push_back(std::move(span));
        status(t, "CREATED", deployments_.back().name);
        status(t, "RUNNING", attempt_name(attempt) + " " + restore_text(attempt, id));
    } else {
        if (!after_failover && !job_manager_lost_) {
            job_manager_failover(
                t,
                "JobManager lost: a new JobManager took the job over (the previous one's loss not yet seen)",
                false);
        }
        status(t, "RUNNING",
               attempt_name(attempt) + " " + restore_text(attempt, id) +
                   (after_failover ? "" : ": a new JobManager recovered the job"));
    }
    job_manager_lost_ = false;
    if (id != 0 && triggered_.contains(id) && !completed_.contains(id)) {
        restored_uncompleted_.push_back(id);
        statuses_.back().detail +=
            " (checkpoint " + std::to_string(id) +
            " was never completed by a JobManager: the one completing it was lost; the next found its metadata)";
    }
    if (DeploymentSpan* span = span_of(attempt)) ++span->attempts;
}

void JobHistory::failover(sim::Time t, int64_t attempt, const std::string& reason) {
    const int64_t failed = current_attempt_;
    name_attempt(attempt);
    restarting_ = true;
    exceptions_.push_back(
        JobException{t.seconds(), failed, attempt_name(failed), "RESTARTING", reason, ""});
    status(t, "RESTARTING", attempt_name(failed) + " failed: " + reason);
}

void JobHistory::job_suspended(sim::Time t, const std::string& why) { status(t, "SUSPENDED", why); }

bool JobHistory::runs_current_attempt(int64_t attempt) const {
    if (current_attempt_ < 0) return true;
    return attempt / 1000 ==
           current_attempt_ /
               1000;  // the same JobManager (incarnation or leadership) of the same job
}

void JobHistory::job_manager_failover(sim::Time t, std::string reason, bool told) {
    ++job_manager_failovers_;
    exceptions_.push_back(JobException{t.seconds(), current_attempt_,
                                       attempt_name(current_attempt_), "SUSPENDED",
                                       std::move(reason), "", true});
    untold_failover_ = told ? SIZE_MAX : exceptions_.size() - 1;
}

void JobHistory::job_manager_lost(sim::Time t, int64_t attempt, const std::string& why) {
    if (!runs_current_attempt(attempt)) {  // replaced already: the takeover's exception learns why
        if (untold_failover_ < exceptions_.size())
            exceptions_[untold_failover_].reason = "JobManager lost: " + why;
        untold_failover_ = SIZE_MAX;
        return;
    }
    job_manager_lost_ = true;
    job_manager_failover(t, "JobManager lost: " + why, true);
    if (why.find("leadership") == std::string::npos)
        status(t, "SUSPENDED", why);  // a lost leadership says so itself
}

void JobHistory::job_finished(sim::Time t) {
    status(t, "FINISHED", finished_text());
    if (DeploymentSpan* span = span_of(current_attempt_)) {
        span->end_s = t.seconds();
        span->ended = stopped_with_ != 0 ? finished_text() : "finished";
    }
}

void JobHistory::job_failed(sim::Time t, const std::string& reason) {
    exceptions_.push_back(JobException{t.seconds(), current_attempt_,
                                       attempt_name(current_attempt_), "FAILED", reason, ""});
    status(t, "FAILING", reason);
    status(t, "FAILED", reason);
    if (DeploymentSpan* span = span_of(current_attempt_)) {
        span->end_s = t.seconds();
        span->ended = "failed: " + reason;
    }
}

}  // namespace eosim::scenarios
