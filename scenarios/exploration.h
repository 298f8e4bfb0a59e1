#pragma once
// Searching for failing runs of one scenario: the strategies of `eosim explore
// --strategy NAME`, run in-process on a few threads, every run replayable by one command.
//
// - swarm (the default, as before): run i is seed seeds[i] with the faults the scenario draws.
// - pct: as swarm, and the network delivers the messages in flight by PCT priorities
//   (sim/priority_delivery.h: random link priorities, depth-1 change points); the seed and the
//   depth replay it (`eosim run FILE --seed N --pct-depth D`).
// - guided: a greybox fuzzer over fault schedules. The first generation runs fresh seeds as
//   swarm does; every later input is, one time in four, a fresh seed and otherwise a corpus entry's
//   schedule mutated (schedule_mutator.h) and run with the schedule written explicitly (no random
//   draw) on the next fresh seed (another input and other latency draws: with the parent's own
//   seed the thin bug 03 of bench/bug-corpus took 3x more runs). A run whose coverage -- the fault
//   x phase combinations (coverage.h) plus the shape of its checkpoint and transaction events
//   (run_shape.h) -- holds a key no earlier run reached joins the corpus with energy 1 + its new
//   keys (a new fault x phase combination weighing 8 run-shape keys), and entries are picked with
//   probability proportional to energy / (1 + times picked) (AFL's favouring of productive inputs,
//   kept simple). Inputs are made in generations of `guided_batch` runs and judged in run order, so
//   the runs depend on the seeds and the batch size, never on the thread count or timing. A guided
//   run replays from its schedule written as a scenario file
//   (`guided_scenario_document`) and its seed.
//
// Not done here: printing, files, exit codes (cli/explore_command.cpp), or telling what a catch is
// beyond "an oracle fired" (the caller's `is_catch`).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/coverage.h"
#include "scenarios/run_result.h"
#include "scenarios/scenario.h"
#include "sim/priority_delivery.h"

namespace eosim::scenarios {

enum class ExploreStrategy : uint8_t { swarm, pct, guided };
const char* to_string(ExploreStrategy strategy);
// nullopt for an unknown name.
std::optional<ExploreStrategy> parse_explore_strategy(const std::string& name);

struct ExploreOptions {
    ExploreStrategy strategy = ExploreStrategy::swarm;
    sim::PriorityDeliveryOptions pct{3, 20'000};  // pct only
    size_t guided_batch = 8;           // guided: runs per generation (the result depends on it)
    uint64_t guided_seed = 0;          // guided: the mutator's stream (0: the first seed)
    uint64_t max_events = 50'000'000;  // per run (a hang guard)
    size_t jobs = 1;                   // threads
};

// One run of an exploration.
struct ExploreRun {
    size_t index = 0;  // 0-based, in run order
    uint64_t seed = 0;
    // Guided runs of a mutant: the schedule it ran (the scenario's random section off). Empty
    // optional: the scenario as written (its random draw for the seed).
    std::optional<std::vector<sim::FaultSpec>> schedule;
    std::string origin;              // "seed" or "mutant of run 12: shift, add"
    std::vector<std::string> fired;  // oracles that fired
    std::string invariant_broken;    // the engine invariant that stopped the run ("": none)
    bool outcome_met = false;        // what `eosim run` accepts (run_outcome_met)
    uint64_t trace_hash = 0;
    std::map<std::string, int64_t>
        coverage;         // the run's fault x phase combinations (RunResult::coverage)
    size_t new_keys = 0;  // coverage keys no earlier run had (guided: why it joined the corpus)
    size_t coverage_keys_after = 0;  // distinct keys over the runs so far, this one included
};

// Decides, after every generation (in run order), whether to go on; false stops the exploration.
using ExploreProgress =
    std::function<bool(const std::vector<ExploreRun>& generation, size_t coverage_keys)>;

struct ExploreReport {
    std::vector<ExploreRun> runs;
    size_t coverage_keys = 0;  // distinct keys (fault x phase combinations and run-shape keys)
    size_t corpus_size = 0;    // guided only
};

// Runs up to `seeds.size()` runs of `scenario` (more with `unbounded`: seeds.back() + 1, + 2, ...),
// a generation at a time, until `progress` says stop. A run that breaks an engine invariant ends
// there (sim::throw_invariant_broken is the handler meanwhile) and is reported with it, not
// met; the others go on.
ExploreReport explore_scenario(const Scenario& scenario, const std::vector<uint64_t>& seeds,
                               bool unbounded, const ExploreOptions& options,
                               const ExploreProgress& progress);

// The scenario a pct run runs: `scenario` with priority-ordered delivery at `pct`.
Scenario with_priority_delivery(const Scenario& scenario, const sim::PriorityDeliveryOptions& pct);

// The scenario a guided mutant runs: `scenario` with `faults` as its whole schedule, no random
// section, not strict (a mutant's fault may miss on purpose).
Scenario with_explicit_schedule(const Scenario& scenario,
                                const std::vector<sim::FaultSpec>& faults);

// The standalone file of a guided run: `original` (the scenario file's JSON) with `faults`
// replaced by {"schedule": [...]} and a description that says where it came from.
nlohmann::ordered_json guided_scenario_document(const nlohmann::ordered_json& original,
                                                const ExploreRun& run, const std::string& source);

// The coverage keys of one run: its fault x phase combinations and its run-shape keys.
std::set<std::string> exploration_keys(const RunResult& result,
                                       const std::set<std::string>& shape_keys);

}  // namespace eosim::scenarios
