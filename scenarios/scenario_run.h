#pragma once
// Runs one scenario with one seed, start to finish, as a short pipeline (scenarios/run/): build the
// world and its outside systems, deploy the programs, plan the faults, attach the oracles and
// observers, run, judge, gather the figures.
#include <cstdint>
#include <string>

#include "scenarios/run_result.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios {

RunResult run_scenario(const Scenario& scenario, const RunOptions& options);

}  // namespace eosim::scenarios
