#pragma once
// The job's deployments over one run (a scenario's "deployments"): the first is the scenario's job;
// each later one gets a cluster of its own, built up front (so node names resolve for faults from
// the start) and started when the previous one stopped with a savepoint, restoring from it. A
// deployment with "verification" first runs its verification job from that savepoint (on a cluster
// of its own, built after every deployment's, writing throw-away topics), stops it with a savepoint
// of its own after `verification_for`, and only then starts from the same savepoint. The user's
// side (scheduled "savepoints" and each deployment's stop-with-savepoint) is scheduled here too.
//
// The runner (scenarios/scenario_run.h) drives it: it runs the scheduler until current() finished,
// asks hands_over() and then hand_over(), which tells it what starts (for the reference model and
// the state oracle) and what a verification job left (for the verification oracle).
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/runtime/engine.h"
#include "scenarios/fault_accounting.h"
#include "scenarios/scenario.h"
#include "sim/world.h"

namespace eosim::scenarios {

class DeploymentRun {
public:
    // What a finished verification job leaves for the oracles.
    struct Verified {
        const engine::JobSpec* job;
        engine::SourceOffsets from;
        std::optional<engine::SourceOffsets>
            to;  // its own final savepoint's offsets (none: it read to the end)
    };
    // What starts now: `job` (a verification job's or the deployment's program) from the snapshot
    // at `from`, taken while deployment `origin` ran (0: the first job); the deployment that just
    // stopped ended at `previous_end` (its final savepoint's offsets; a cancelled one's newest
    // retained checkpoint's). `first`: the deployment's program did not run before (false for the
    // live job after its verification).
    struct Start {
        const engine::JobSpec& job;
        const engine::SourceOffsets& from;
        bool first;
        size_t origin;
        const engine::SourceOffsets& previous_end;
        bool from_previous_stop;  // the snapshot is the final savepoint that stopped the previous
                                  // deployment
    };
    using Starting = std::function<void(const Start&)>;
    using VerificationDone = std::function<void(const Verified&)>;

    // Builds every deployment's and verification job's engine (none started). `scenario` and
    // `world` must outlive this.
    DeploymentRun(const Scenario& scenario, sim::World& world,
                  const engine::EngineServices& services, engine::RunObserver& observer,
                  engine::HighAvailability high_availability);
    ~DeploymentRun();
    DeploymentRun(const DeploymentRun&) = delete;
    DeploymentRun& operator=(const DeploymentRun&) = delete;

    // The user's side of savepoints: "savepoints" at times or protocol points go to the live
    // deployment; each later deployment's "at" stops the one before it with a savepoint, or cancels
    // it when the later one starts from its "latest checkpoint".
    void schedule_user_requests();

    engine::Engine& live() { return *engines_[live_]; }
    // The engine running now: the live deployment's, or a verification job's while it runs.
    engine::Engine& current();
    size_t live_index() const { return live_; }
    // Every deployment's program, in order (the first is the scenario's job).
    const std::vector<engine::JobSpec>& jobs() const { return jobs_; }
    // Every job the run may have started: the deployments', then the verification jobs'.
    std::vector<const engine::JobSpec*> all_jobs() const;
    // The running job finished and another one follows: a verification job is always followed by
    // its live deployment; a live deployment after its stop-with-savepoint (or its cancel) by the
    // next one.
    bool hands_over() const;
    // Starts what follows the finished job: the next deployment's verification job, or the next
    // deployment, from what its "from" names (the live one's final savepoint by default, an older
    // deployment's, a named savepoint, or the cancelled one's newest retained checkpoint);
    // `starting` hears of it first, `verified` of a verification job that finished.
    void hand_over(const Starting& starting, const VerificationDone& verified);
    // The statistics of every engine (deployments and verification jobs) added up.
    engine::EngineStats total_stats() const;
    // The task on `node` whose own events (timers) carry `digest`: "count-1" and its raw attempt,
    // or "" (for a readable trace log).
    std::string task_of_event(sim::NodeId node, uint64_t digest, int64_t& attempt) const;
    // What runs on `node` now, over every engine: for the fault accounting (what a crash hits).
    EffectProbes::NodeLoad load_of(sim::NodeId node);

private:
    struct Verification;
    // A snapshot a later deployment may start from: its _metadata path, its source offsets, the
    // deployment that took it, and the job that wrote it when it is a retained checkpoint.
    struct Snapshot {
        std::string path;
        engine::SourceOffsets offsets;
        size_t deployment = 0;
        const engine::JobSpec* checkpoint_of = nullptr;
    };
    struct NamedRequest {
        std::string name;
        size_t deployment = 0;  // the engine asked
        int32_t request = -1;   // its request index (-1: not asked yet)
    };
    void start_verification(Verification& v, const Starting& starting);
    void start_next(const Starting& starting, bool first);
    // What deployment `next` (1-based: 1 is the first later one) starts from, once the one before
    // it ended.
    Snapshot restore_source(size_t next) const;
    // The newest retained checkpoint of deployment `d` in checkpoint storage; without one, what `d`
    // started from (it completed no checkpoint, so committed nothing past it); none: from scratch.
    std::optional<Snapshot> latest_checkpoint(size_t d) const;
    Snapshot retained_checkpoint(size_t d, int64_t id) const;
    engine::SourceOffsets cancelled_end(size_t d) const;
    engine::SourceOffsets start_offsets(const engine::JobSpec& job) const;
    engine::SavepointRestoreSettings restore_settings(size_t next) const;
    bool from_previous_stop()
        const;  // restore_ is the final savepoint of the deployment before the one starting
    std::vector<engine::Engine*> all_engines() const;  // deployments', then verification jobs'

    const Scenario& scenario_;
    sim::World& world_;
    std::vector<engine::JobSpec> jobs_;  // filled before any engine refers to one
    std::vector<std::unique_ptr<engine::Engine>> engines_;
    std::vector<std::unique_ptr<Verification>> verifications_;  // by deployment; null: none
    size_t live_ = 0;
    bool verifying_ = false;
    std::vector<std::optional<Snapshot>>
        stop_savepoints_;  // by deployment: the savepoint that stopped it
    std::vector<std::shared_ptr<NamedRequest>> named_;  // named "savepoints", once asked
    std::vector<std::optional<Snapshot>>
        started_from_;  // by deployment: what it started from (none: from scratch)
    Snapshot restore_;  // what the next job starts from
    engine::SourceOffsets previous_end_;  // where the stopped deployment ended
};

}  // namespace eosim::scenarios
