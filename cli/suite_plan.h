#pragma once
// What a suite runs: scenario x seed, from a scenario file, a suite file or a folder.
//
// - A scenario file (`*.json`): that scenario over the seeds given (default 1..100).
// - A suite file (`*.suite.json`): {"name", "description", "seeds", "runs": [{"scenario": file or
//   folder, "seeds": "1..100", "expect": "pass" | {"violation": oracle}}]}, paths relative to the
//   suite file; an entry's seeds default to the suite's, `expect` to the scenario's own.
// - A folder (given as PATH or as a suite entry's "scenario"): every scenario file in it and in its
//   subfolders, recursively (`*.json`, not `*.suite.json` or `*schema.json`; hidden files and
//   folders skipped), sorted by the path below the folder, over the seeds given (default 1..100).
// `--seeds` replaces every range. Every scenario is loaded (so a bad file is reported before
// anything runs), names must be unique, and the runs are sorted by scenario name then seed: the
// order sharding, summaries and reports use, whatever order runs finish in.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/reproducer.h"
#include "scenarios/scenario.h"

namespace eosim::cli {

struct PlannedScenario {
    std::string name;
    std::string file;               // the path the worker and the reproduce command get
    scenarios::Expectation expect;  // the one that counts: the suite entry's, else the scenario's
    bool expect_overridden = false;
    std::vector<uint64_t> seeds;         // sorted
    std::vector<std::string> sometimes;  // coverage combinations some run of the suite must hit
};

struct PlannedRun {
    size_t scenario = 0;  // index into SuitePlan::scenarios
    uint64_t seed = 0;
};

struct SuitePlan {
    std::string name;
    std::string source;                      // the path the suite was given as
    std::vector<PlannedScenario> scenarios;  // sorted by name
    std::vector<PlannedRun> runs;            // sorted by scenario name, then seed
    bool strict_faults = false;  // "strict_faults": every run as `eosim run --strict-faults`
};

inline constexpr const char* kDefaultSeeds = "1..100";

// Throws scenarios::ScenarioError (file, JSON path, what was expected) for any problem.
SuitePlan load_suite_plan(const std::filesystem::path& path,
                          const std::optional<std::string>& seeds_override);
// Several of them as one suite (`eosim suite A B C --compare`), named "A+B+C"; a scenario named
// twice is an error.
SuitePlan load_suite_plan(const std::vector<std::filesystem::path>& paths,
                          const std::optional<std::string>& seeds_override);

// Fresh seeds (`eosim suite --fresh-seeds`): a catalogue tuned to the seeds it is run on passes
// them and may fail others. Replaces every scenario's seeds with seeds above them: `range` empty,
// three times as many as it had, right above its highest (1..100 -> 101..400); otherwise that
// range, whose lowest seed must lie above every scenario's own seeds. Throws std::invalid_argument.
void use_fresh_seeds(SuitePlan& plan, const std::string& range);

// The command that reproduces one run of the plan (a worker runs it, with --json and the limits).
scenarios::Reproducer reproducer(const PlannedScenario& scenario, uint64_t seed,
                                 bool strict_faults);
// "pass", "violation:<oracle>" or "violation:<oracle>:some-seeds": how `eosim run --expect` is told
// an overridden expectation.
std::string expect_argument(const scenarios::Expectation& expect);

// The plan as it is written at the head of a results file: name, scenarios with seed ranges.
nlohmann::json plan_json(const SuitePlan& plan);

}  // namespace eosim::cli
