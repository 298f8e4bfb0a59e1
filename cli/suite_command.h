#pragma once
// `eosim suite PATH` and `eosim merge`: many runs in parallel worker processes, their results as
// JSON lines, a summary, JUnit XML and an HTML report.
//
// Every run is a worker process (`eosim run FILE --seed N --json` of this very binary, or the
// command given by --worker-command / EOSIM_WORKER_COMMAND, for test fixtures), so a crash, an
// abort, a hang (per-run wall-clock, event and virtual-time limits) or a memory blow-up
// (address-space limit) of one run is recorded as that run's failure, with its seed and the
// reason, and the suite goes on. Results are appended to the results file as runs finish;
// `--resume` runs only what the file does not already hold. `--shard I/N` (or TEST_SHARD_INDEX /
// TEST_TOTAL_SHARDS) runs every N-th run of the sorted plan; `eosim merge` joins shards' files.
//
// Exit codes: 0 every run of the plan met its expectation; 1 some did not (or, for merge, some
// runs of the plan have no result); 2 bad input; 130 interrupted (resume with --resume).
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace eosim::cli {

struct SuiteCommand {
    std::string path;                        // scenario file, suite file or folder
    std::vector<std::string> more_paths;     // more of them, run as one suite (to --compare them)
    std::optional<std::string> seeds;        // replaces every seed range of the plan
    std::optional<std::string> fresh_seeds;  // seeds above the plan's ("" : 3x as many right above
                                             // each scenario's; cli/suite_plan.h)
    size_t jobs =
        0;  // worker processes at a time (0: one per CPU the process may use, cli/cpu_share.h)
    std::string junit_path;
    std::string report_dir;
    std::string results_path;  // default: <report dir or .>/eosim-results[.shard-I-of-N].jsonl
    bool resume = false;
    std::optional<std::string> shard;  // "I/N"
    std::string timeout = "60s";       // wall-clock limit per run
    uint64_t max_events = 50'000'000;  // event limit per run
    std::string max_virtual_time;   // virtual-time limit per run ("" : the scenario's time_limit)
    uint64_t max_memory_mb = 4096;  // address-space limit per run (0: none)
    std::string timelines =
        "first";  // which runs keep their timeline: failing, first (of each scenario) or all
    std::string progress = "auto";
    bool coverage = false;       // print the coverage table of every combination hit
    bool strict_faults = false;  // every run as `eosim run --strict-faults`
    bool sensitivity =
        false;  // then the sensitivity check of every pass scenario (cli/sensitivity_check.h)
    bool compare = false;        // also print the scenarios' checkpoints side by side
    std::string worker_command;  // hidden: a program to run instead of this binary (test fixtures)
    std::string command_line;    // as typed, for the report
    std::string
        self_program;  // this program, resolved by eosim_main at start (else /proc/self/exe now)
    int (*self_entry)(int, char**) =
        nullptr;  // its entry (eosim_main): workers that are this program fork without exec
};

struct MergeCommand {
    std::vector<std::string> inputs;  // results files
    std::string junit_path;
    std::string report_dir;
    std::string results_path;  // the merged results file ("" : none)
    bool coverage = false;     // print the coverage table of every combination hit
    bool compare = false;      // also print the scenarios' checkpoints side by side
};

int suite_command(const SuiteCommand& command, std::ostream& out, std::ostream& err);
int merge_command(const MergeCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
