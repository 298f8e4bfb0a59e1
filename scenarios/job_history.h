#pragma once
// The job's history as Flink's web UI shows it: the job status timeline (CREATED, RUNNING,
// RESTARTING, FAILING, FAILED, FINISHED, SUSPENDED, with times), the exceptions that caused each
// failover (Flink's Exceptions tab: the attempt, the failure text; the fault that probably caused
// it is added when the run's fired faults are known, scenarios/run/run_figures.cpp), and the
// deployments told apart: each a named span (v1, v2, ...; a verification job "v2 verification")
// from its first attempt to its end ("stopped with savepoint 9", finished, failed).
//
// Also the names every report uses: attempts as `deployment/attempt` ("v1/1" the first attempt of
// the first deployment, "v1/2" its first restart) instead of the engine's raw numbers (deployment
// x 1,000,000 + JobManager incarnation or leadership x 1,000 + restart:
// scenarios/deployment_run.cpp, engine/runtime/job_manager.cpp), which stay in JSON; and each
// snapshot's kind (checkpoint, savepoint, stop-with-savepoint). Attempts are numbered in the order
// they first appear within their deployment, so a new JobManager's first attempt continues the
// count.
//
// Not here: anything that changes the run (it only observes), the checkpoint figures
// (scenarios/checkpoint_stats.h).
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/vocabulary/run_observer.h"

namespace eosim::scenarios {

// The engine's raw attempt numbers: deployment d (0-based) starts at d x kAttemptsPerDeployment;
// its verification job half-way above that.
inline constexpr int64_t kAttemptsPerDeployment = 1'000'000;
int64_t deployment_of_attempt(int64_t attempt);
bool verification_attempt(int64_t attempt);
// "v1", "v2 verification".
std::string deployment_name_of_attempt(int64_t attempt);
// "checkpoint", "savepoint", "stop-with-savepoint" (", drain" after it with `drain`).
std::string snapshot_kind_name(engine::SnapshotType type);

struct JobStatusChange {
    double at_s = 0;
    std::string status;      // Flink's JobStatus name
    std::string deployment;  // "v1", ...
    std::string detail;  // why: the failure, the savepoint it stopped with, the attempt now running
};

struct JobException {
    double at_s = 0;
    int64_t attempt = 0;       // the raw attempt that failed
    std::string attempt_name;  // "v1/2"
    std::string status_after;  // RESTARTING, or FAILED when the restart strategy ran out
    std::string reason;        // the failure as the JobManager saw it
    std::string root_cause;    // the fault that probably caused it ("" when none fired before it)
    // A JobManager failover (the JobManager that ran the job crashed or lost its leadership; a new
    // one recovered the job), not a task failure: status_after SUSPENDED, counted apart from
    // restarts.
    bool job_manager = false;
};

struct DeploymentSpan {
    std::string name;  // "v1", "v2", "v2 verification"
    double begin_s = 0;
    double end_s = -1;  // -1: still running when the run ended
    int64_t restored_from =
        0;  // the savepoint (or checkpoint) its first attempt restored; 0: from scratch
    std::string restored_kind;  // its kind ("savepoint", "stop-with-savepoint")
    std::string ended;  // "stopped with savepoint 9", "finished", "failed: ...", "" while running
    int64_t attempts = 0;  // attempts it ran (1 + restarts, JobManager changes included)
};

class JobHistory final : public engine::RunObserver {
public:
    void checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time t, int64_t id,
                              const engine::SourceOffsets& offsets) override;
    void restore_started(sim::Time t, int64_t attempt, int64_t id,
                         const engine::SourceOffsets& offsets) override;
    void failover(sim::Time t, int64_t attempt, const std::string& reason) override;
    void job_suspended(sim::Time t, const std::string& why) override;
    void job_manager_lost(sim::Time t, int64_t attempt, const std::string& why) override;
    void job_finished(sim::Time t) override;
    void job_failed(sim::Time t, const std::string& reason) override;

    // "v1/2" for an attempt this history has seen; the raw number otherwise.
    std::string attempt_name(int64_t attempt) const;
    // The deployment running now ("v1" before any attempt started).
    std::string deployment_name() const;
    // Snapshot `id` of the deployment running now: its kind.
    engine::SnapshotType snapshot_type(int64_t id) const;
    // "savepoint 9", "stop-with-savepoint 9", "checkpoint 9".
    std::string snapshot_name(int64_t id) const;
    // What attempt `attempt` (seen) restores: "from scratch", "restores savepoint 9" (its
    // deployment's savepoint), "restores checkpoint 12".
    std::string restore_text(int64_t attempt, int64_t id) const;
    // How the deployment running now ended when its job finished ("stopped with savepoint 9" after
    // a stop-with-savepoint; "bounded input done, final checkpoint committed" otherwise).
    std::string finished_text() const;

    const std::vector<JobStatusChange>& status_history() const { return statuses_; }
    const std::vector<JobException>& exceptions() const { return exceptions_; }
    const std::vector<DeploymentSpan>& deployments() const { return deployments_; }
    // JobManager failovers: each loss of the JobManager that ran the job, or a new JobManager
    // taking the job over when the loss was not told (its exception's reason says which).
    int64_t job_manager_failovers() const { return job_manager_failovers_; }
    // Checkpoints an attempt restored that this history never saw completed (a JobManager lost
    // while completing them; found in storage or the store by the next), in restore order.
    const std::vector<int64_t>& restored_uncompleted() const { return restored_uncompleted_; }

private:
    void name_attempt(int64_t attempt);
    void status(sim::Time t, const char* status, std::string detail);
    // A JobManager failover's exception (and count); `told`: its loss was told (else the reason is
    // a placeholder that a late told loss completes).
    void job_manager_failover(sim::Time t, std::string reason, bool told);
    // Whether a JobManager loss of `attempt` is of the one running the current attempt (not one
    // already replaced, that learns of it late).
    bool runs_current_attempt(int64_t attempt) const;
    DeploymentSpan* span_of(int64_t attempt);
    const DeploymentSpan* span_of(int64_t attempt) const;

    std::map<int64_t, std::string> attempt_names_;  // raw -> "v1/2"
    std::map<std::string, int64_t> attempts_per_deployment_;
    int64_t current_attempt_ = -1;
    std::map<int64_t, engine::SnapshotType>
        snapshot_types_;        // the current deployment's snapshots (savepoints only)
    int64_t stopped_with_ = 0;  // the current deployment's completed stop-with-savepoint
    bool restarting_ = false;   // a failover's restore is ahead
    std::vector<JobStatusChange> statuses_;
    std::vector<JobException> exceptions_;
    std::vector<DeploymentSpan> deployments_;
    int64_t job_manager_failovers_ = 0;
    bool job_manager_lost_ = false;  // told, and no new JobManager has recovered the job yet
    size_t untold_failover_ =
        SIZE_MAX;                  // exception index of a takeover whose loss was not told yet
    std::set<int64_t> triggered_;  // snapshot ids triggered, and those completed (every deployment)
    std::set<int64_t> completed_;
    std::vector<int64_t> restored_uncompleted_;
};

}  // namespace eosim::scenarios
