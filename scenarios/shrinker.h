#pragma once
// Shrinking a failing run to a minimal reproducer: replays the run (in-process, deterministic),
// turns its fault schedule -- the scenario's explicit faults plus those drawn from faults.random
// for the seed -- into one explicit list, and minimises it while the same oracle keeps firing and
// the run keeps its outcome (expectation met or not, i.e. `eosim run`'s exit code), or while the
// run keeps breaking the same engine invariant (an engine bug: such a run stops there):
//   1. drop the faults that never fired (one replay; not known for a run that broke an invariant),
//   then delta debugging (ddmin) over the rest;
//   2. per fault, binary searches: shorter durations and restart delays, earlier times, shorter
//      delays after a point, earlier point occurrences, no not_after, no attempt filter;
//   3. per input, fewer records (binary search);
//   4. per later deployment, an earlier "at" (binary search; still after the previous deployment
//   and
//      after the timed savepoints taken before it);
// repeated while a round changes something, within a replay budget.
//
// The result is a standalone scenario: `shrunk_scenario_document` is the original file's JSON with
// `faults` replaced by {"schedule": [...]} (no random section), the input counts and deployment
// times cut; with the same seed it reproduces the final replay bit for bit (same trace hash).
//
// Not done here: files and printing (cli/shrink_command.cpp does that). Binary searches assume
// nothing about monotonicity: whatever value they settle on has been replayed and still fails.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::scenarios {

struct ShrinkOptions {
    size_t max_replays = 1000;
    uint64_t max_events = 50'000'000;             // per replay (a hang guard)
    std::function<void(const std::string&)> log;  // progress lines, when set
};

// What makes a replay "the same failure": the first oracle that fired and the run's outcome, or
// the engine invariant the run broke (such a run stops there, with no verdicts and no outcome).
struct FailureSignature {
    std::string oracle = "exactly_once_output";  // the first oracle that fired (its registered
                                                 // name); "" for an invariant
    bool expectation_met = false;                // the run's outcome (exit code 0 or 1)
    std::string invariant;  // the broken invariant's sim::InvariantFailure::message(), or ""

    // "exactly_once_output fires" or "engine invariant broken: NAME (CONDITION) at FILE:LINE".
    std::string what() const;
};

// A run as the shrinker replays it: its result, or the message of the engine invariant it broke
// (sim::throw_invariant_broken is the handler meanwhile: the run stops, the process goes on).
struct Replay {
    std::optional<RunResult> result;
    std::string invariant_broken;
};
Replay replay_run(const Scenario& scenario, const RunOptions& options);

struct ShrinkResult {
    FailureSignature target;
    std::vector<sim::FaultSpec> faults_before;  // the original run's whole plan
    std::vector<sim::FaultSpec> faults_after;
    std::vector<int64_t> records_before;  // per input
    std::vector<int64_t> records_after;
    std::vector<sim::Duration>
        deployments_at_before;  // per later deployment (scenario.deployments)
    std::vector<sim::Duration> deployments_at_after;
    Scenario minimal;  // the scenario with faults_after and records_after, no random section
    Replay last;       // the minimal scenario's run
    size_t replays = 0;
    bool budget_exhausted = false;
};

// The outcome `eosim run` reports: met only when the expectation is met and the job ended (a run
// cut at a limit is not met).
bool run_outcome_met(const RunResult& result);

// The failure a run shows, or nullopt when no oracle fired (and, for a replay, no invariant broke).
std::optional<FailureSignature> failure_of(const RunResult& result);
std::optional<FailureSignature> failure_of(const Replay& replay);
// Whether `replay` shows `target`: the same invariant broken, or `target.oracle` among the oracles
// that fired with the same outcome.
bool shows(const Replay& replay, const FailureSignature& target);

// Shrinks run `seed` of `scenario`; nullopt when no oracle fired and no invariant broke in it.
std::optional<ShrinkResult> shrink_failing_run(const Scenario& scenario, uint64_t seed,
                                               const ShrinkOptions& options);

// The standalone scenario file: `original` (the scenario file's JSON) with the shrunk faults and
// input counts, and a description that says where it came from.
nlohmann::ordered_json shrunk_scenario_document(const nlohmann::ordered_json& original,
                                                const ShrinkResult& result,
                                                const std::string& source, uint64_t seed);

}  // namespace eosim::scenarios
