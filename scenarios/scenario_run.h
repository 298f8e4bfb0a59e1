#pragma once
// Runs one scenario with one seed, start to finish: builds the world, the outside systems, the
// input, the engine and the fault injector; runs until the job finishes (or the time limit); asks
// every oracle for its verdict and compares the verdicts with the scenario's expectation.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "scenarios/random_faults.h"
#include "scenarios/scenario.h"
#include "scenarios/timeline.h"
#include "sim/fault_injector.h"

namespace eosim::scenarios {

struct OracleVerdict {
    OracleKind oracle;
    bool passed = true;
    std::string message;  // the first offending record/key, counts, virtual time
};

struct RunFigures {
    uint64_t events = 0;
    double virtual_seconds = 0;
    double wall_seconds = 0;
    int64_t checkpoints_completed = 0;
    int64_t checkpoints_aborted = 0;
    int64_t restarts = 0;
    int64_t transactions_committed = 0;
    int64_t transactions_aborted = 0;
    int64_t fenced_calls = 0;  // Kafka calls rejected because a newer producer fenced the caller
    int64_t faults_injected = 0;
    int64_t records_in = 0;
    int64_t records_out = 0;
    int64_t rows_upserted = 0;        // upsert sink: statements committed into the target table
    int64_t duplicates_absorbed = 0;  // of those, the ones that changed nothing (guarded older writes, identical rows)
};

struct RunResult {
    std::string scenario;
    uint64_t seed = 0;
    uint64_t trace_hash = 0;
    bool job_finished = false;
    std::vector<OracleVerdict> verdicts;
    RunFigures figures;
    bool expectation_met = false;
    std::string expectation_message;  // why the expectation was or was not met
    std::vector<TimelineEvent> timeline;
    std::vector<sim::FiredFault> faults;  // every fault that fired, in order
    // What faults.random drew for this seed (every drawn parameter); its faults follow the
    // scenario's own in the plan, so plan_index counts scenario.faults first. Empty without it.
    std::optional<FaultDraw> fault_draw;
    std::map<std::string, int64_t> coverage;  // coverage combinations hit (scenarios/coverage.h)
};

struct RunOptions {
    uint64_t seed = 1;
    std::ostream* trace_log = nullptr;  // JSON lines of every event, when set
    uint64_t max_events = 0;            // stop after this many events (0: no limit): a guard against a hang
};

RunResult run_scenario(const Scenario& scenario, const RunOptions& options);

// The shell command that reproduces a run.
std::string reproduce_command(const Scenario& scenario, uint64_t seed);

}  // namespace eosim::scenarios
