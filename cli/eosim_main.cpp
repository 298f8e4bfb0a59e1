// The `eosim` command (cli/eosim_main.h). A thin shell over the libraries: parse the command line
// with CLI11 and hand over to the subcommand (run_command.h, suite_command.h, shrink_command.h,
// explore_command.h, golden_command.h, points_command.h); `sinks` lists the registered sink kinds.
//
// Exit codes: 0 every expectation met; 1 an expectation not met (or a determinism check failed);
// 2 bad input (command line, scenario file, output file); 3 an internal error (a bug in eosim);
// 130 a suite interrupted (resume it with --resume).
#include <unistd.h>

#include <algorithm>
#include <exception>
#include <iomanip>
#include <iostream>
#include <new>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/eosim_main.h"

#include "cli/command_line.h"
#include "cli/exit_codes.h"
#include "engine/connectors/process/process_channel.h"
#include "engine/connectors/sink_registry.h"

namespace {

using eosim::cli::kExitBadInput;
using eosim::cli::kExitInternal;
using eosim::cli::kExitMet;

CLI::App* add_run(CLI::App& app, eosim::cli::RunCommand& c) {
    CLI::App* run = app.add_subcommand(
        "run", "Run one scenario with one seed and report the oracles' verdicts");
    run->add_option("FILE", c.file, "Scenario file (JSON; see scenarios/README.md)")->required();
    run->add_option("--seed", c.seed, "Root seed of the run (the same seed gives the same run)");
    run->add_option(
        "--trace", c.trace_path,
        "Write every event as JSON lines to this file (node names, protocol point names)");
    run->add_option(
        "--grep", c.trace_grep,
        "With --trace: only the lines that contain this text, e.g. window.fired or tm1");
    run->add_option(
        "--chrome-trace", c.chrome_trace_path,
        "Write the run's timeline as Chrome trace events (open in ui.perfetto.dev or chrome://tracing)");
    run->add_flag("--check-determinism", c.check_determinism,
                  "Run twice and check that both runs give the same trace hash and state hash");
    run->add_flag("--json", c.json,
                  "Print the result as one JSON object instead of the text report");
    run->add_option(
           "--json-history", c.json_history,
           "With --json: the timeline, per-checkpoint figures, status history and exceptions in it: all, failing (only "
           "when the expectation was not met) or none")
        ->check(CLI::IsMember({"all", "failing", "none"}));
    run->add_option("--expect", c.expect,
                    "Replace the scenario's expectation: pass, or violation:<oracle>");
    run->add_option(
        "--twin", c.twin,
        "Run a known-bad twin of the scenario instead (eosim sensitivity lists them), e.g. checkpointing.at_least_once");
    run->add_flag(
        "--strict-faults", c.strict_faults,
        "Fail the run when a scheduled fault never fired or fired without effect (as \"faults\": {\"strict\": true})");
    run->add_option(
        "--savepoint-at", c.savepoint_at,
        "Take a savepoint at this virtual time (e.g. 12s; repeatable), as the scenario's \"savepoints\" do");
    run->add_option(
        "--pct-depth", c.pct_depth,
        "Deliver messages in PCT priority order with this depth d (1..64), as `explore --strategy pct` ran the seed");
    run->add_option(
        "--pct-steps", c.pct_steps,
        "With --pct-depth: change points fall within the first this many messages (default 20000)");
    // Limits a suite gives its workers; hidden from the help, as `eosim suite` sets them.
    run->add_option("--max-events", c.max_events,
                    "Cut the run after this many events (a hang guard)")
        ->group("");
    run->add_option("--max-virtual-time", c.max_virtual_time, "Cut the run at this virtual time")
        ->group("");
    return run;
}

// A suite's limits per run (a run over one fails).
void add_suite_limits(CLI::App& suite_app, eosim::cli::SuiteCommand& c) {
    CLI::App* suite = &suite_app;
    suite
        ->add_option("--timeout", c.timeout,
                     "Wall-clock limit per run, e.g. 60s or 5m (a run over it fails)")
        ->capture_default_str();
    suite->add_option("--max-events", c.max_events, "Event limit per run (a run over it fails)")
        ->capture_default_str();
    suite->add_option("--max-virtual-time", c.max_virtual_time,
                      "Virtual-time limit per run, when shorter than the scenario's time_limit");
    suite
        ->add_option("--max-memory", c.max_memory_mb,
                     "Address-space limit per run, in MB (0: none)")
        ->capture_default_str();
}

CLI::App* add_suite(CLI::App& app, eosim::cli::SuiteCommand& c) {
    CLI::App* suite = app.add_subcommand(
        "suite",
        "Run scenarios x seeds in parallel worker processes; results as JSON lines, JUnit XML, an HTML report");
    suite
        ->add_option("PATH", c.path,
                     "A scenario file, a suite file (*.suite.json) or a folder of scenarios")
        ->required();
    suite->add_option("MORE", c.more_paths,
                      "More of them, run as one suite (e.g. to --compare them)");
    suite->add_flag("--compare", c.compare,
                    "Also print the scenarios' checkpoints side by side, a column each");
    suite->add_option(
        "--seeds", c.seeds,
        "Seeds for every scenario, e.g. 1..50 or 1..10,20 (replaces the suite's ranges)");
    suite
        ->add_option(
            "--fresh-seeds", c.fresh_seeds,
            "Run every scenario over seeds it is not tuned to: without a value three times as many right above "
            "its own (1..100 -> 101..400), or the range given (above every scenario's seeds)")
        ->expected(0, 1);
    suite->add_option(
        "--jobs,-j", c.jobs,
        "Worker processes at a time (default: one per CPU this process may use: affinity, cgroup quota)");
    suite->add_option("--junit", c.junit_path,
                      "Write JUnit XML here (one testcase per scenario x seed)");
    suite->add_option(
        "--report", c.report_dir,
        "Write the HTML report (index.html, with timelines) and each shown run's JSON into this folder");
    suite->add_option(
        "--results", c.results_path,
        "The results file (JSON lines; default: eosim-results.jsonl in the report folder or here)");
    suite->add_flag("--resume", c.resume,
                    "Keep the results file's finished runs and run only the missing ones");
    suite->add_option(
        "--shard", c.shard,
        "Run shard I of N (e.g. 2/3; default from TEST_SHARD_INDEX and TEST_TOTAL_SHARDS)");
    add_suite_limits(*suite, c);
    suite
        ->add_option(
            "--timelines", c.timelines,
            "Which runs keep their timeline for the report: failing, first (plus the first seed of each "
            "scenario) or all")
        ->capture_default_str();
    suite
        ->add_option("--progress", c.progress,
                     "auto (a bar on a terminal, lines otherwise), bar, lines or none")
        ->capture_default_str();
    suite->add_flag("--coverage", c.coverage,
                    "Print the coverage table: every fault x phase combination the runs hit");
    suite->add_flag(
        "--strict-faults", c.strict_faults,
        "Fail a run when a scheduled fault never fired or fired without effect (eosim run --strict-faults)");
    suite->add_flag(
        "--sensitivity", c.sensitivity,
        "Then run the known-bad twins of every scenario that expects to pass over the same seeds (eosim "
        "sensitivity); a twin no seed catches fails the suite");
    suite
        ->add_option("--worker-command", c.worker_command,
                     "Program to run instead of this eosim (test fixtures)")
        ->group("");
    return suite;
}

CLI::App* add_merge(CLI::App& app, eosim::cli::MergeCommand& c) {
    CLI::App* merge = app.add_subcommand(
        "merge", "Join the results files of a suite's shards into one summary and report");
    merge->add_option("FILES", c.inputs, "Results files (JSON lines) of `eosim suite`")->required();
    merge->add_option("--junit", c.junit_path, "Write JUnit XML here");
    merge->add_flag("--compare", c.compare,
                    "Also print the scenarios' checkpoints side by side, a column each");
    merge->add_option("--report", c.report_dir, "Write the HTML report into this folder");
    merge->add_option("--results", c.results_path, "Write the merged results file here");
    merge->add_flag("--coverage", c.coverage,
                    "Print the coverage table: every fault x phase combination the runs hit");
    return merge;
}

CLI::App* add_shrink(CLI::App& app, eosim::cli::ShrinkCommand& c) {
    CLI::App* shrink = app.add_subcommand(
        "shrink",
        "Minimise a failing run's fault schedule and input; write a standalone scenario that reproduces it");
    shrink->add_option("FILE", c.file, "Scenario file (JSON)")->required();
    shrink->add_option("--seed", c.seed, "The failing run's seed")->required();
    shrink->add_option("--out", c.out,
                       "Write the minimal scenario here (default: <name>-seed<N>-min.json here)");
    shrink->add_option("--max-replays", c.max_replays, "Replay budget")->capture_default_str();
    shrink->add_flag("--verbose,-v", c.verbose, "Progress lines on stderr");
    shrink->add_option(
        "--pct-depth", c.pct_depth,
        "A pct run (explore --strategy pct): its PCT depth, 1..64, for every replay");
    shrink->add_option("--pct-steps", c.pct_steps,
                       "With --pct-depth: its change-point steps (default 20000)");
    return shrink;
}

CLI::App* add_explore(CLI::App& app, eosim::cli::ExploreCommand& c) {
    CLI::App* explore = app.add_subcommand(
        "explore",
        "Run many seeds (random faults as the scenario draws them) and print every seed where an oracle fired");
    explore->add_option("FILE", c.file, "Scenario file (JSON)")->required();
    explore->add_option(
        "--seeds", c.seeds,
        "Seeds, e.g. 1..200 (default 1..100, or upwards from 1 with --time-budget)");
    explore->add_option("--time-budget", c.time_budget,
                        "Stop starting seeds after this much wall time, e.g. 60s");
    explore->add_option(
        "--jobs,-j", c.jobs,
        "Threads (default: one per CPU this process may use: affinity, cgroup quota)");
    explore->add_option("--max-events", c.max_events, "Event limit per run (a hang guard)")
        ->capture_default_str();
    explore
        ->add_option(
            "--strategy", c.strategy,
            "swarm (random faults per seed), pct (the same with PCT message ordering) or guided "
            "(coverage-guided mutation of fault schedules)")
        ->capture_default_str();
    explore->add_option("--pct-depth", c.pct_depth,
                        "pct: the depth d, 1..64 (d-1 priority change points; default 3)");
    explore->add_option("--pct-steps", c.pct_steps,
                        "pct: change points within the first this many messages (default 20000)");
    explore
        ->add_option("--guided-batch", c.guided_batch,
                     "guided: runs per generation, 1..1024 (the runs depend on it)")
        ->capture_default_str();
    explore->add_flag("--until-first", c.until_first,
                      "Stop after the generation of the first run where an oracle fired");
    explore
        ->add_option("--out", c.out_dir,
                     "guided: the folder for the scenario files of catching mutants")
        ->capture_default_str();
    return explore;
}

CLI::App* add_golden(CLI::App& app, eosim::cli::GoldenCommand& c) {
    CLI::App* golden = app.add_subcommand(
        "golden",
        "Check (or --write) the golden trace hashes: every scenario of a suite over a few seeds, run from the project root");
    golden->add_option("--file", c.golden_path, "The golden file")->capture_default_str();
    golden->add_flag(
        "--write", c.write,
        "Write the hashes of this build instead of checking them (say why in the commit message)");
    golden->add_option(
        "--suite", c.suite_path,
        "With --write: the suite to hash (default: the file's, else scenarios/default.suite.json)");
    golden->add_option("--seeds", c.seeds,
                       "With --write: the seeds (default: the file's, else 1..3)");
    return golden;
}

CLI::App* add_sensitivity(CLI::App& app, eosim::cli::SensitivityCommand& c) {
    CLI::App* sensitivity = app.add_subcommand(
        "sensitivity",
        "Run the known-bad twins of every scenario that expects to pass: which could it have caught?");
    sensitivity
        ->add_option("PATH", c.path,
                     "A scenario file, a suite file (*.suite.json) or a folder of scenarios")
        ->required();
    sensitivity->add_option("--seeds", c.seeds,
                            "Seeds for every scenario, e.g. 1..20 (replaces the suite's ranges)");
    sensitivity->add_option(
        "--jobs,-j", c.jobs,
        "Worker processes at a time (default: one per CPU this process may use: affinity, cgroup quota)");
    sensitivity->add_option("--timeout", c.timeout, "Wall-clock limit per run")
        ->capture_default_str();
    sensitivity->add_option("--json", c.json_path, "Also write the table as JSON to this file");
    return sensitivity;
}

CLI::App* add_points(CLI::App& app, eosim::cli::PointsCommand& c) {
    CLI::App* points = app.add_subcommand(
        "points",
        "List every protocol point and who announces it; given a scenario, which of them its job can reach");
    points->add_option("FILE", c.file,
                       "Scenario file (JSON): also say which points its job announces");
    return points;
}

CLI::App* add_test_sink(CLI::App& app, eosim::cli::TestSinkCommand& c) {
    CLI::App* test = app.add_subcommand(
        "test-sink",
        "Property-test a sink in any language (a process speaking docs/sink-protocol.md) at the testkit's levels");
    test->add_option(
        "--command", c.command,
        "The sink's command line, e.g. \"python3 sink.py\" (blanks split, quotes group)");
    test->add_option(
        "--replay", c.replay,
        "Replay a contract-level counterexample file instead (written by a failing run)");
    test->add_option("--level", c.level, "contract, jobs or both")->capture_default_str();
    test->add_option("--cases", c.cases,
                     "Contract cases / drawn jobs (default: the testkit's, 100 and 10 x 2 runs)");
    test->add_option("--seed", c.seed,
                     "The testkit's seed (the same seed finds the same counterexample)")
        ->capture_default_str();
    test->add_option("--guarantee", c.guarantee,
                     "What the sink promises: exactly_once or at_least_once")
        ->capture_default_str();
    test->add_option("--cwd", c.cwd, "The folder the command runs in (default: here)");
    test->add_option("--answer-timeout-ms", c.answer_timeout_ms,
                     "Wall-clock limit for one answer of the sink")
        ->capture_default_str();
    test->add_option("--out", c.out, "Folder for counterexample (replay) files")
        ->capture_default_str();
    test->require_option(1, 0);
    return test;
}

CLI::App* add_sinks(CLI::App& app) {
    return app.add_subcommand(
        "sinks",
        "List the sink kinds this program knows (built-in and registered with EOSIM_REGISTER_SINK)");
}

int list_sinks(std::ostream& out) {
    const eosim::engine::SinkRegistry& registry = eosim::engine::SinkRegistry::global();
    size_t width = 0;
    for (const std::string& name : registry.names()) width = std::max(width, name.size());
    for (const std::string& name : registry.names()) {
        out << std::left << std::setw(static_cast<int>(width) + 2) << name
            << registry.find(name)->summary << '\n';
    }
    return kExitMet;
}

// This program's own file, resolved once at start: `suite` runs its workers as this same program,
// so a user's binary (with its own sink kinds) runs as its own workers.
std::string this_program() {
    char path[4096];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return {};
    return std::string(path, static_cast<size_t>(n));
}

// Every subcommand with its options, on `app`; `c` receives what the command line gives.
void add_commands(CLI::App& app, eosim::cli::CommandLine& c) {
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("eosim ") +
                                          EOSIM_VERSION);  // the package's version (CMakeLists.txt)
    add_run(app, c.run);
    add_suite(app, c.suite);
    add_merge(app, c.merge);
    add_shrink(app, c.shrink);
    add_explore(app, c.explore);
    add_golden(app, c.golden);
    add_sinks(app);
    add_test_sink(app, c.test_sink);
    add_sensitivity(app, c.sensitivity);
    add_points(app, c.points);
}

std::string parsed_subcommand(const CLI::App& app) {
    const std::vector<const CLI::App*> parsed =
        app.get_subcommands([](const CLI::App* sub) { return sub->parsed(); });
    return parsed.empty() ? std::string() : parsed.front()->get_name();
}

int dispatch(eosim::cli::CommandLine& c) {
    namespace cli = eosim::cli;
    if (c.subcommand == "run") return cli::run_command(c.run, std::cout, std::cerr);
    if (c.subcommand == "suite") return cli::suite_command(c.suite, std::cout, std::cerr);
    if (c.subcommand == "merge") return cli::merge_command(c.merge, std::cout, std::cerr);
    if (c.subcommand == "shrink") return cli::shrink_command(c.shrink, std::cout, std::cerr);
    if (c.subcommand == "explore") return cli::explore_command(c.explore, std::cout, std::cerr);
    if (c.subcommand == "golden") return cli::golden_command(c.golden, std::cout, std::cerr);
    if (c.subcommand == "sinks") return list_sinks(std::cout);
    if (c.subcommand == "sensitivity")
        return cli::sensitivity_command(c.sensitivity, std::cout, std::cerr);
    if (c.subcommand == "points") return cli::points_command(c.points, std::cout, std::cerr);
    if (c.subcommand == "test-sink")
        return cli::test_sink_command(c.test_sink, std::cout, std::cerr);
    return kExitBadInput;
}

}  // namespace

std::string eosim::cli::parse_command_line(const std::vector<std::string>& arguments,
                                           CommandLine& parsed) {
    CLI::App app{"eosim"};
    add_commands(app, parsed);
    std::vector<std::string> reversed(arguments.rbegin(),
                                      arguments.rend());  // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::ParseError& error) {
        return error.get_name() + ": " + error.what();
    }
    parsed.subcommand = parsed_subcommand(app);
    return {};
}

int eosim::eosim_main(int argc, char** argv) {
    CLI::App app{
        "eosim: deterministic simulation and fault injection for exactly-once stream processing"};
    eosim::cli::CommandLine commands;
    add_commands(app, commands);
    commands.sensitivity.self_program = this_program();
    commands.sensitivity.self_entry = &eosim_main;
    commands.suite.self_program = this_program();
    commands.suite.self_entry = &eosim_main;
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);  // prints help, or the error and a hint
        return code == 0 ? kExitMet : kExitBadInput;
    }
    commands.subcommand = parsed_subcommand(app);
    for (int i = 0; i < argc; ++i)
        commands.suite.command_line += (i == 0 ? "eosim" : std::string(" ") + argv[i]);

    try {
        return dispatch(commands);
    } catch (const eosim::engine::process::ProcessSinkError&
                 error) {  // a process sink broke the protocol
        std::cerr << "error: a process sink broke the protocol (docs/sink-protocol.md):\n"
                  << error.what() << '\n';
        return kExitBadInput;
    } catch (const std::bad_alloc&) {
        std::cerr << "internal error: out of memory (std::bad_alloc)\n";
        return kExitInternal;
    } catch (const std::exception& error) {
        std::cerr << "internal error (a bug in eosim, please report it with the command line): "
                  << error.what() << '\n';
        return kExitInternal;
    }
}
