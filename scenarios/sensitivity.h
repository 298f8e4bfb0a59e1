#pragma once
// The sensitivity check's known-bad twins. A scenario that expects every oracle to pass proves
// something only if it could have failed: each twin is the same scenario -- same world, input,
// faults and seeds -- with one part switched to a form known to break exactly-once, and the check
// (`eosim sensitivity`, cli/sensitivity_command.h) runs every twin and reports which of them the
// scenario's oracles catch. A twin no seed catches means the scenario is blind to that class of
// bug.
//
// The twins that apply to a scenario:
// - "checkpointing.at_least_once": the job's checkpointing mode at_least_once (barriers not
// aligned);
// - "kafka.no_fencing": the Kafka model without producer fencing (with an exactly-once Kafka sink);
// - "sink.<vertex id>.<twin>": each sink's known-bad forms, as its kind declares them
//   (engine::SinkKind::known_bad_twins: the Kafka sink at_least_once, documents with generated ids,
//   an upsert without its version guard, key-values with a plain INCRBY), in every program: the
//   sink of that id in /job/vertices and in each later deployment's job_vertices (a sink only a
//   later program has gets its twins too).
// An oracle that applies only to the scenario's own form (freshness: an exactly-once Kafka sink) is
// left out of a twin it no longer applies to; the others judge it.
// A scenario may leave twins out on purpose: "sensitivity": {"skip": [names], "why": "..."}; a
// reason several scenarios share is named once below (skip_reasons) and given by its key,
// "sensitivity": {"skip": [names], "reasons": [keys]}, with "why" for the twins no key explains.
// Targeted twins run only where a scenario names them ("sensitivity": {"targets": [names]}): bug
// classes only a scenario built for them can see, which every other scenario would report blind:
// - "kafka.timer_per_write": the broker's transaction timeout check restarts at every write (a
//   transaction kept busy past the timeout never expires; with an exactly-once Kafka sink);
// - "tasks.finish_early": tasks finish at their end of data without waiting for a final checkpoint
//   (FLIP-147's contract broken; with checkpointing enabled);
// - "checkpointing.retention_discards_savepoints": retention deletes savepoints' files as
//   checkpoints' (an intermediate one once subsumed, a stop's final one leaving the window);
// - "tasks.watermark_max_on_restore": a task restored from several subtasks' states takes the
//   highest watermark (with event time);
// - "sink.<vertex id>.<twin>" of a sink kind's targeted forms (the Kafka sink's settled_early).
// A scenario that expects a violation (a negative control) runs its targeted twins only, and a
// seed catches one when the run misses the expectation: the twin removed what the violation needs.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace eosim::scenarios {

struct KnownBadTwin {
    std::string name;
    std::string summary;      // what breaks
    nlohmann::json document;  // the scenario document with that part switched
    bool targeted = false;    // runs only where the scenario names it in "sensitivity"/"targets"
};

// Every twin that applies to the scenario `document` (a valid scenario's JSON), in a fixed order:
// the general ones and the targeted ones the document names.
std::vector<KnownBadTwin> known_bad_twins(const nlohmann::json& document);
// The same with every targeted twin that could apply, named or not (what "targets" may name).
std::vector<KnownBadTwin> all_known_bad_twins(const nlohmann::json& document);
std::vector<std::string> twin_names(const std::vector<KnownBadTwin>& twins);

// The twins of the scenario file `file` (a valid one).
std::vector<KnownBadTwin> known_bad_twins_of(const std::filesystem::path& file);

// A reason for skipping a twin, named once: scenarios give it by `key` in "sensitivity"/"reasons",
// and the report prints its `text` where it printed a scenario's own "why".
struct SkipReason {
    std::string key;
    std::string twin;  // the twin it explains; "sink.*.<twin>" for that twin of any sink vertex
    std::string text;
};
// Every registered reason, in a fixed order.
const std::vector<SkipReason>& skip_reasons();
// The reason registered under `key`, or nullptr.
const SkipReason* find_skip_reason(const std::string& key);
// Whether `reason` explains the twin named `twin_name`.
bool explains(const SkipReason& reason, const std::string& twin_name);

struct Scenario;
// The scenario of `file` with twin `twin` applied, named "<scenario>+<twin>". Throws ScenarioError
// for a bad file or a twin that does not apply to it (listing those that do).
Scenario load_twin(const std::filesystem::path& file, const std::string& twin);
// The same for a twin already derived from `file`, whose scenario is named `scenario_name`; throws
// ScenarioError when the loader refuses the twin (a fault at a point only the original announces).
Scenario load_twin(const std::filesystem::path& file, const std::string& scenario_name,
                   const KnownBadTwin& twin);

}  // namespace eosim::scenarios
