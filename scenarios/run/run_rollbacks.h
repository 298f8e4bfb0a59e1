#pragma once
// Beside step 2 of a run: the rollback detector (oracles/rollback_detector.h), fanned every
// notification after the run's own observers, naming attempts and snapshots as the job's history
// does. Its rollbacks go to RunResult::rollbacks (a warning in every report) and to the
// `no_rollbacks` oracle.
#include <memory>

#include "oracles/rollback_detector.h"
#include "scenarios/deployment_run.h"
#include "scenarios/run/observers.h"
#include "scenarios/run/run_world.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios {

// Watches every sink of every deployment's program; `scenario`, `deployments`, `run` and
// `observers` must outlive it.
std::unique_ptr<oracles::RollbackDetector> watch_rollbacks(const Scenario& scenario,
                                                           const DeploymentRun& deployments,
                                                           const RunWorld& run,
                                                           RunObservers& observers);

}  // namespace eosim::scenarios
