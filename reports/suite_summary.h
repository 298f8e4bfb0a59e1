#pragma once
// The summary of a suite's runs: one row per scenario (its expectation, the seeds run, how many
// runs met the expectation, how many did not, how many of those did not even complete, how many
// found the violation a negative control expects, and the wall time spent) and a total. Rows are
// sorted by scenario name and computed from the records alone, so a summary does not depend on
// the order runs finished in, on the number of workers, or on how the runs were sharded.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/run_record.h"

namespace eosim::reports {

struct ScenarioSummary {
    std::string scenario;
    std::string expectation;        // "pass" or "violation of <oracle>" ("" in the total)
    std::string short_expectation;  // the same for the text table (short_expectation)
    std::vector<uint64_t> seeds;    // sorted
    int64_t runs = 0;
    int64_t passed = 0;            // expectation met
    int64_t failed = 0;            // expectation not met, errors included
    int64_t errors = 0;            // of the failed: runs that did not complete
    int64_t violations_found = 0;  // negative controls: runs in which the expected oracle fired
    bool expects_violation = false;
    double wall_seconds = 0;  // the runs' wall time, added up
    // Planned faults over the runs (scenarios/fault_accounting.h): planned, fired with an effect,
    // fired without effect, never fired.
    scenarios::FaultTally faults;
    // Coverage combinations the scenario expects "sometimes" (scenarios/coverage.h): in how many
    // runs each happened; those that happened in none fail the suite. Not checked for a shard
    // (another shard's seeds may reach them): the merge checks.
    std::map<std::string, int64_t> sometimes_runs;
    std::vector<std::string> sometimes_missing;
};

struct SuiteSummary {
    std::vector<ScenarioSummary> scenarios;
    ScenarioSummary total;
    bool sometimes_checked = false;
    // Every run met its expectation and, when checked, every "sometimes" combination happened.
    bool all_met() const;
};

// `sometimes`: per scenario name, the combinations it expects in at least one run; nullptr when
// they are not to be checked (a shard).
SuiteSummary summarize(const std::vector<RunRecord>& records,
                       const std::map<std::string, std::vector<std::string>>* sometimes = nullptr);

// "1..50", "1..3, 7, 9..12"; more than `max_ranges` ranges read "40 seeds in 1..120".
std::string seed_ranges(const std::vector<uint64_t>& sorted_seeds, size_t max_ranges = 4);

// The faults column: "planned/fired/without effect" over the runs, e.g. "60/52/5" ("-" for none).
std::string faults_text(const scenarios::FaultTally& tally);

// What a scenario's row amounts to, in a word: "ok"; "FAILED" (some run did not meet its
// expectation); "NOT FOUND" (a negative control whose violation appeared in none of its runs,
// though each run alone may pass); "MISSING" (a coverage combination it expects sometimes never
// happened); "none yet" (a negative control's violation not found in a shard, which another
// shard's seeds may find: `sometimes_checked` false).
std::string scenario_result(const ScenarioSummary& s, bool sometimes_checked);

// The expectation as the suite table shows it, at most ~32 columns: "pass", "violates <oracle>"
// (every seed), "may violate <oracle>" (some seeds), "job fails: \"<text...>\"".
std::string short_expectation(const scenarios::Expectation& expect);

// The table printed at the end of a suite.
void write_summary_table(std::ostream& out, const SuiteSummary& summary);

nlohmann::json to_json(const SuiteSummary& summary);

}  // namespace eosim::reports
