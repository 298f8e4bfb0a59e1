#pragma once
// The sensitivity check as `eosim sensitivity` and `eosim suite --sensitivity` run it: for every
// scenario of a plan that expects every oracle to pass, each known-bad twin that applies to it
// (scenarios/sensitivity.h) runs over the scenario's seeds as worker processes (`eosim run FILE
// --twin NAME --seed N --json`); a seed catches the twin when any oracle fires. A negative control
// runs only the targeted twins it names; a seed catches one when the run misses its expectation
// (the twin removed what the violation needs). A twin the scenario
// skips ("sensitivity": {"skip", "why"}) or the loader refuses (a fault at a point only the
// original announces) does not run. Results: reports/sensitivity_table.h.
#include <string>

#include "cli/suite_plan.h"
#include "cli/worker_pool.h"
#include "reports/sensitivity_table.h"

namespace eosim::cli {

// The twins of every pass-expecting scenario of `plan`, not run yet. Throws ScenarioError.
reports::SensitivityTable plan_sensitivity(const SuitePlan& plan);

// Runs every twin that is neither skipped nor inapplicable over its scenario's seeds with
// `worker.program` (this eosim binary; forked without exec when `worker.entry` is set), `jobs` at a
// time, each run limited to `timeout_seconds` of wall time; fills caught, by, errors, runs and wall
// time.
void run_sensitivity(reports::SensitivityTable& table, const SuitePlan& plan,
                     const InProcessWorker& worker, unsigned jobs, double timeout_seconds);

}  // namespace eosim::cli
