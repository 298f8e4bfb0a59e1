#pragma once
// Step 6 of a run: the verdicts against the scenario's expectation -- every oracle passes, exactly
// the named oracle fires (and no other), or the job fails with the named error.
#include <string>

#include "engine/runtime/engine.h"
#include "scenarios/run_result.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios {

// Sets result.expectation_met and expectation_message from result.verdicts, the job's end and
// result.cut.
void judge(const Scenario& scenario, const engine::Engine& engine, RunResult& result);

}  // namespace eosim::scenarios
