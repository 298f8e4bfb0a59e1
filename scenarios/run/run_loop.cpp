#include "scenarios/run/run_loop.h"

#include <algorithm>
#include <cstdio>

namespace eosim::scenarios {

using sim::seconds_text;

namespace {

void start(RunWorld& run, DeploymentRun& deployments, const RunOracles& oracles) {
    run.outside.start();
    oracles.hooks().started();
    deployments.schedule_user_requests();
    deployments.live().start();
}

// Hands over from the live deployment, stopped with a savepoint (or cancelled), to what follows it.
// `segments`: the reference model's segment each deployment so far ran in.
void hand_over(const Scenario& scenario, RunWorld& run, DeploymentRun& deployments,
               const RunOracles& oracles, CommittedCuts& committed, std::vector<size_t>& segments) {
    const size_t next_deployment = deployments.live_index() + 1;
    deployments.hand_over(
        [&](const DeploymentRun::Start& next) {
            // A deployment with a program of its own runs in a model segment of its own from the
            // snapshot's offsets on; so does one that does not continue where the previous one
            // stopped (a rollback to an older savepoint, a savepoint taken before the stop).
            const bool continues =
                next.origin == next_deployment - 1 && next.from == next.previous_end;
            if (next.first &&
                (scenario.deployments[next_deployment - 1].job_vertices || !continues)) {
                run.model.add_deployment(next.job, next.from, segments.at(next.origin),
                                         next.previous_end);
                segments.push_back(run.model.segments() - 1);
            } else if (next.first) {
                segments.push_back(segments.back());
            }
            if (next.first) committed.deployment_started(next.from);
            oracles.hooks().program_started(next.job, next.from_previous_stop);
        },
        [&](const DeploymentRun::Verified& ran) {
            oracles.hooks().verification_ran({ran.job, ran.from, ran.to});
        });
}

}  // namespace

std::string run_to_end(const Scenario& scenario, const RunOptions& options, RunWorld& run,
                       DeploymentRun& deployments, PlannedFaults& faults, RunObservers& observers,
                       const RunOracles& oracles) {
    sim::World& world = run.world;
    const sim::FaultInjector& injector = faults.injector();
    start(run, deployments, oracles);
    std::vector<size_t> segments{0};  // by deployment: the model segment it runs in
    const uint64_t max_events = options.max_events;
    // A hung run ends early, as a liveness failure, once every fault has fired, their effects are
    // over and the liveness bound has passed since then and since the last progress: the liveness
    // oracle fails it then as it would at the time_limit, without simulating (and recording) the
    // rest.
    bool hung = false;
    auto is_hung = [&] {
        if (!oracles.ends_hung_runs() || injector.pending_count() != 0) return false;
        return world.now() > std::max(injector.quiet_since(), observers.progress.last()) +
                                 scenario.liveness_bound;
    };
    for (;;) {
        // Asked before every event: the engine is looked up once here (the current deployment only
        // changes at a hand-over, between two run_until calls).
        engine::Engine& running = deployments.current();
        observers.back_pressure.follow(running);
        world.scheduler().run_until(sim::Time::zero() + scenario.time_limit, [&] {
            faults.tick();
            observers.back_pressure.sample_before(world.scheduler().next_due());
            if (running.finished() || running.failed()) return true;
            if (max_events != 0 && world.scheduler().processed() >= max_events) return true;
            hung = is_hung();
            return hung;
        });
        if (!deployments.current().finished() || !deployments.hands_over()) break;
        hand_over(scenario, run, deployments, oracles, observers.committed, segments);
    }
    const engine::Engine& engine = deployments.current();
    // A failure the scenario expects: the oracles judge what the job committed (an unexpected one
    // is judged against the whole input, and fails the run there).
    if (engine.failed() && !scenario.expect.job_failure.empty()) {
        oracles.hooks().job_failed(observers.committed.prefix(engine.failure()));
    }
    if (engine.finished() || engine.failed()) return "";
    std::string cut;
    if (hung) {
        cut = "cut early at " + seconds_text(world.now()) +
              " as a liveness failure: faults quiet since " + seconds_text(injector.quiet_since()) +
              ", no checkpoint completed and no transaction committed since " +
              seconds_text(observers.progress.last()) + ", past the liveness bound (" +
              seconds_text(sim::Time::zero() + scenario.liveness_bound) +
              "); the rest up to the time_limit was not simulated";
    } else if (max_events != 0 && world.scheduler().processed() >= max_events) {
        cut = "cut at the event limit (" + std::to_string(max_events) +
              " events) before the job finished or failed: a livelock or a hang?";
    } else {
        cut = "cut at the time_limit (" + seconds_text(sim::Time::zero() + scenario.time_limit) +
              ") before the job finished";
    }
    oracles.hooks().cut(cut);
    return cut;
}

}  // namespace eosim::scenarios
