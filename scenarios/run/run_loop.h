#pragma once
// Step 5 of a run: start the outside systems' activity and the oracles' readers, then the job, and
// run the scheduler (back pressure sampled between events) until the job finishes or fails, handing
// over from each deployment stopped with a savepoint to the next, or until the run is cut: at the
// time_limit, at the event limit, or early as a liveness failure once a hung run can no longer
// recover.
#include <string>

#include "scenarios/deployment_run.h"
#include "scenarios/run/observers.h"
#include "scenarios/run/planned_faults.h"
#include "scenarios/run/run_oracles.h"
#include "scenarios/run/run_world.h"

namespace eosim::scenarios {

// Returns why the run was cut before the job finished or failed ("" when it did either); the
// oracles heard it (OracleRunHooks::cut).
std::string run_to_end(const Scenario& scenario, const RunOptions& options, RunWorld& run,
                       DeploymentRun& deployments, PlannedFaults& faults, RunObservers& observers,
                       const RunOracles& oracles);

}  // namespace eosim::scenarios
