#include "scenarios/scenario_run.h"

#include <chrono>
#include <optional>

#include "scenarios/deployment_run.h"
#include "scenarios/run/anomaly_table.h"
#include "scenarios/run/judge.h"
#include "scenarios/run/observers.h"
#include "scenarios/run/planned_faults.h"
#include "scenarios/run/run_figures.h"
#include "scenarios/run/run_loop.h"
#include "scenarios/run/run_oracles.h"
#include "scenarios/run/run_rollbacks.h"
#include "scenarios/run/run_world.h"

namespace eosim::scenarios {

RunResult run_scenario(const Scenario& given, const RunOptions& options) {
    const auto wall_start =
        std::chrono::steady_clock::now();  // for the figures only, never for behaviour
    // 0. An upgrade swarm's deployments, drawn for this seed.
    std::optional<Scenario> drawn;
    if (given.upgrade_swarm) drawn = draw_upgrades(given, options.seed);
    const Scenario& scenario = drawn ? *drawn : given;
    // 1. The world: the simulator, the outside systems, the input and the reference model over it.
    RunWorld run(scenario, options);
    // 2. The programs: every deployment's engine, built up front, and the observers recording them.
    RunObservers observers(options.observer);
    DeploymentRun deployments(scenario, run.world, run.services, observers.fanout,
                              high_availability(scenario, run.services.systems));
    observers.follow(deployments);
    if (options.trace_log != nullptr) {  // a readable trace: node names, the task an event is about
        run.world.trace().set_log(
            options.trace_log, [&run](sim::NodeId node) { return run.world.nodes().name(node); },
            [&deployments, &observers](sim::NodeId node, uint64_t digest) {
                int64_t attempt = 0;
                const std::string task = deployments.task_of_event(node, digest, attempt);
                return task.empty() ? task : task + " " + observers.history.attempt_name(attempt);
            });
    }
    // Beside them, the rollbacks: restores older than what an exactly-once sink committed.
    const std::unique_ptr<oracles::RollbackDetector> rollbacks =
        watch_rollbacks(scenario, deployments, run, observers);
    // 3. The faults: the scenario's and this seed's drawn ones, at their times and points.
    PlannedFaults faults(scenario, run, deployments, observers.coverage);
    // 4. The oracles, by their registered names.
    const RunOracles oracles(scenario, run, deployments, faults, observers.fanout, *rollbacks);
    // 5. Run: inputs, oracles' readers, the job; deployments handed over until the end or a cut.
    RunResult result;
    result.scenario = scenario.name;
    result.seed = options.seed;
    if (drawn) result.deployments_drawn = describe_deployments(scenario);
    result.cut = run_to_end(scenario, options, run, deployments, faults, observers, oracles);
    result.trace_hash = run.world.trace().hash();
    result.state_hash = run.outside.state_hash();
    result.job_finished = deployments.current().finished();
    // 6. Judge the verdicts against the expectation; 7. the figures.
    result.verdicts = oracles.verdicts();
    result.rollbacks = rollbacks->rollbacks();
    judge(scenario, deployments.current(), result);
    account_faults(scenario, options,
                   faults.accounts(run_end_text(deployments.current(), result.cut)), result);
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    gather_figures(FigureSources{run, deployments, faults, observers, oracles, wall}, result);
    // 8. The anomaly table: lost and duplicated records by transaction, the transactions' margins.
    find_anomalies(AnomalySources{run.model, oracles.judged_sinks(), run.outside.systems().kafka,
                                  run.world.now()},
                   result);
    return result;
}

}  // namespace eosim::scenarios
