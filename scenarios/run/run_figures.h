#pragma once
// Step 7 of a run: its figures -- events and times, the engines' checkpoint, savepoint and failover
// counts, checkpoint storage left at the end, every outside system's own figures, records in and
// out, the checkpoint statistics -- and what the observers recorded: the faults that fired (on the
// timeline too), the timeline, the coverage.
#include "scenarios/deployment_run.h"
#include "scenarios/run/observers.h"
#include "scenarios/run/planned_faults.h"
#include "scenarios/run/run_oracles.h"
#include "scenarios/run/run_world.h"

namespace eosim::scenarios {

struct FigureSources {
    RunWorld& run;
    DeploymentRun& deployments;
    PlannedFaults& faults;
    RunObservers& observers;
    const RunOracles& oracles;
    double wall_seconds;
};

void gather_figures(const FigureSources& from, RunResult& result);

}  // namespace eosim::scenarios
