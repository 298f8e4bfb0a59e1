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

// How the run ended, for the fault accounts: "the job finished", "the job failed", "the run was cut
// ...".
std::string run_end_text(const engine::Engine& engine, const std::string& cut);

// The planned faults' accounts into the result and its figures; strict (the scenario's
// faults.strict or RunOptions::strict_faults): a scheduled fault that did not fire with an effect
// fails the run, with the reason.
void account_faults(const Scenario& scenario, const RunOptions& options,
                    std::vector<FaultAccount> accounts, RunResult& result);

}  // namespace eosim::scenarios
