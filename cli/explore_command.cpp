#include "cli/explore_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/cpu_share.h"
#include "cli/exit_codes.h"
#include "cli/files.h"
#include "cli/run_command.h"
#include "cli/run_values.h"
#include "scenarios/coverage.h"
#include "scenarios/exploration.h"
#include "scenarios/reproducer.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::cli {

namespace {

constexpr size_t kExploreWrittenCatchesMax =
    5;                                        // guided: scenario files written for catching mutants
constexpr size_t kExploreProgressEvery = 50;  // runs between two progress lines

struct ExploreSetup {
    scenarios::Scenario scenario;
    nlohmann::ordered_json document;
    scenarios::ExploreOptions options;
    std::vector<uint64_t> seeds;
    bool unbounded = false;
    double budget_seconds = 0;
    uint32_t pct_depth =
        0;  // the PCT options every run had (0: not a pct run), for the reproducers
    uint64_t pct_steps = 0;
    WorkerCount workers;  // threads: --jobs, else the CPUs the process may use (cli/cpu_share.h)
};

// Reads and checks everything the command line and the file say; "" or what is wrong.
std::string explore_setup(const ExploreCommand& command, ExploreSetup& setup) {
    try {
        setup.scenario = scenarios::load_scenario(command.file);
        std::ifstream in(command.file, std::ios::binary);
        setup.document =
            nlohmann::ordered_json::parse(in);  // the loader has read and checked it already
    } catch (const scenarios::ScenarioError& error) {
        return error.what();
    }
    const std::optional<scenarios::ExploreStrategy> strategy =
        scenarios::parse_explore_strategy(command.strategy);
    if (!strategy)
        return "--strategy: expected swarm, pct or guided, found \"" + command.strategy + "\"";
    setup.options.strategy = *strategy;
    if (*strategy != scenarios::ExploreStrategy::pct &&
        (command.pct_depth != 0 || command.pct_steps != 0)) {
        return "--pct-depth and --pct-steps: only with --strategy pct";
    }
    if (*strategy != scenarios::ExploreStrategy::guided && command.guided_batch != 8) {
        return "--guided-batch: only with --strategy guided";
    }
    if (command.guided_batch == 0 || command.guided_batch > 1024) {
        return "--guided-batch: expected 1..1024 runs per generation, found " +
               std::to_string(command.guided_batch);
    }
    setup.options.guided_batch = command.guided_batch;
    if (*strategy == scenarios::ExploreStrategy::pct) {
        scenarios::Scenario probe = setup.scenario;
        scenarios::Reproducer pct;
        const std::string problem = apply_pct_option(command.pct_depth == 0 ? 3 : command.pct_depth,
                                                     command.pct_steps, probe, &pct);
        if (!problem.empty()) return problem;
        setup.pct_depth = pct.pct_depth;
        setup.pct_steps = pct.pct_steps;
        setup.options.pct = probe.world.network.priority_delivery;
    }
    try {
        setup.seeds = parse_seed_set(command.seeds.value_or(command.time_budget ? "1" : "1..100"));
        if (command.time_budget) {
            setup.budget_seconds = parse_duration_seconds(*command.time_budget);
            if (setup.budget_seconds <= 0) return "--time-budget: expected a positive duration";
        }
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    setup.unbounded = command.time_budget && !command.seeds;  // a budget alone: seeds 1, 2, 3, ...
    setup.options.max_events = command.max_events;
    setup.workers = default_workers(command.jobs);
    setup.options.jobs = setup.workers.workers;
    if (!setup.unbounded) setup.options.jobs = std::min(setup.options.jobs, setup.seeds.size());
    return {};
}

// The command that replays `seed` of the explored scenario, with the PCT options the runs had.
scenarios::Reproducer reproducer(const ExploreSetup& setup, uint64_t seed) {
    scenarios::Reproducer r = scenarios::Reproducer::of(setup.scenario, seed);
    r.pct_depth = setup.pct_depth;
    r.pct_steps = setup.pct_steps;
    return r;
}

// The scenario file a guided mutant replays from, written next to nothing else: "" or the error.
std::string write_guided_catch(const ExploreCommand& command, const ExploreSetup& setup,
                               const scenarios::ExploreRun& run, std::filesystem::path* written) {
    *written = std::filesystem::path(command.out_dir) /
               (std::filesystem::path(command.file).stem().string() + "-guided-run" +
                std::to_string(run.index + 1) + ".json");
    const std::string text =
        scenarios::guided_scenario_document(setup.document, run, command.file).dump(2) + "\n";
    return write_file_atomically(*written, text);
}

// A run an oracle failed, or that broke an engine invariant (an engine bug, whatever the scenario
// expects).
bool is_catch(const scenarios::ExploreRun& run) {
    return !run.fired.empty() || !run.invariant_broken.empty();
}

// Prints a run where an oracle fired (or whose outcome `eosim run` would not accept).
void print_explore_run(const ExploreCommand& command, const ExploreSetup& setup,
                       const scenarios::ExploreRun& run, size_t* written_catches, std::ostream& out,
                       std::ostream& err) {
    if (!is_catch(run)) return;
    std::string oracles;
    for (const std::string& name : run.fired) oracles += (oracles.empty() ? "" : ",") + name;
    std::string reproduce = reproducer(setup, run.seed).text();
    if (run.schedule) {
        reproduce =
            "(not written: more than " + std::to_string(kExploreWrittenCatchesMax) + " catches)";
        if (*written_catches < kExploreWrittenCatchesMax) {
            std::filesystem::path written;
            if (const std::string error = write_guided_catch(command, setup, run, &written);
                !error.empty()) {
                err << "error: " << error << '\n';
                reproduce = "(could not write the scenario file)";
            } else {
                ++*written_catches;
                scenarios::Reproducer replay;
                replay.file = written.string();
                replay.seed = run.seed;
                reproduce = replay.text();
            }
        }
    }
    if (setup.options.strategy == scenarios::ExploreStrategy::guided)
        out << "run=" << run.index + 1 << ' ';
    out << "seed=" << run.seed << " oracle=" << (oracles.empty() ? "none" : oracles);
    if (!run.invariant_broken.empty()) out << " engine " << run.invariant_broken;
    if (!run.outcome_met) out << " (not expected)";
    if (run.schedule) out << " [" << run.origin << "]";
    out << "  reproduce: " << reproduce << '\n' << std::flush;
}

void print_explore_header(const ExploreCommand& command, const ExploreSetup& setup,
                          std::ostream& out) {
    const scenarios::Scenario& scenario = setup.scenario;
    const size_t jobs = setup.options.jobs;
    const bool guided = setup.options.strategy == scenarios::ExploreStrategy::guided;
    out << "explore " << command.file << ": strategy "
        << scenarios::to_string(setup.options.strategy)
        << (setup.options.strategy == scenarios::ExploreStrategy::pct
                ? " (depth " + std::to_string(setup.options.pct.depth) + ")"
                : std::string())
        << ", "
        << (scenario.random_faults
                ? std::string(scenarios::to_string(scenario.random_faults->mode)) + " random faults"
                : std::string("its explicit faults only (no faults.random)"))
        << "; "
        << (setup.unbounded ? "seeds from " + std::to_string(setup.seeds.front())
                            : std::to_string(setup.seeds.size()) + (guided ? " runs" : " seeds"))
        << (command.time_budget ? " within " + *command.time_budget : std::string()) << "; "
        << describe(
               WorkerCount{jobs, jobs < setup.workers.workers ? "one per seed" : setup.workers.why},
               "thread")
        << '\n'
        << std::flush;
}

// Runs the exploration, printing every catch as its generation ends and a progress line every
// kExploreProgressEvery runs; stops at the first catch (--until-first) or when the budget is spent.
scenarios::ExploreReport run_exploration(const ExploreCommand& command, const ExploreSetup& setup,
                                         std::ostream& out, std::ostream& err,
                                         std::optional<size_t>* first_catch) {
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    size_t written_catches = 0;
    size_t runs_so_far = 0;
    size_t catches = 0;
    return scenarios::explore_scenario(
        setup.scenario, setup.seeds, setup.unbounded, setup.options,
        [&](const std::vector<scenarios::ExploreRun>& generation, size_t coverage_keys) {
            for (const scenarios::ExploreRun& run : generation) {
                print_explore_run(command, setup, run, &written_catches, out, err);
                if (is_catch(run)) {
                    ++catches;
                    if (!*first_catch) *first_catch = run.index + 1;
                }
            }
            const size_t before = runs_so_far;
            runs_so_far += generation.size();
            if (runs_so_far / kExploreProgressEvery != before / kExploreProgressEvery) {
                err << "progress: " << runs_so_far << " runs, " << coverage_keys
                    << " coverage keys, " << catches << " catch" << (catches == 1 ? "" : "es")
                    << '\n';
            }
            if (command.until_first && *first_catch) return false;
            return !(setup.budget_seconds > 0 && elapsed() >= setup.budget_seconds);
        });
}

// What the explored runs add up to.
struct ExploreTally {
    std::map<std::string, int64_t> per_oracle;
    int64_t runs_fired = 0;
    int64_t not_met = 0;
    int64_t invariants_broken = 0;
    std::optional<uint64_t> first_failing_seed;
    std::optional<uint64_t>
        first_breaking_seed;  // the first seed that broke an invariant (not a guided mutant)
    uint64_t lowest = 0;
    uint64_t highest = 0;

    explicit ExploreTally(const std::vector<scenarios::ExploreRun>& runs) {
        lowest = runs.empty() ? 0 : UINT64_MAX;
        for (const scenarios::ExploreRun& run : runs) {
            if (!run.invariant_broken.empty() && invariants_broken++ == 0 && !run.schedule)
                first_breaking_seed = run.seed;
            if (!run.fired.empty() && runs_fired++ == 0 && !run.schedule)
                first_failing_seed = run.seed;
            for (const std::string& name : run.fired) ++per_oracle[name];
            if (!run.outcome_met) ++not_met;
            lowest = std::min(lowest, run.seed);
            highest = std::max(highest, run.seed);
        }
    }
};

void print_explore_summary(const ExploreSetup& setup, const scenarios::ExploreReport& report,
                           const ExploreTally& tally, double seconds,
                           std::optional<size_t> first_catch, std::ostream& out) {
    std::string by_oracle;
    for (const auto& [name, count] : tally.per_oracle) {
        by_oracle += (by_oracle.empty() ? "" : ", ") + name + ": " + std::to_string(count);
    }
    char timing[96];
    std::snprintf(timing, sizeof timing, "%.1f s", seconds);
    const bool guided = setup.options.strategy == scenarios::ExploreStrategy::guided;
    out << "explored " << report.runs.size() << (guided ? " runs (seeds " : " seeds (")
        << tally.lowest << ".." << tally.highest << ") in " << timing << ": " << tally.runs_fired
        << " fired an oracle" << (by_oracle.empty() ? "" : " (" + by_oracle + ")") << "; "
        << (tally.invariants_broken > 0
                ? std::to_string(tally.invariants_broken) + " broke an engine invariant; "
                : std::string())
        << report.coverage_keys << " coverage keys"
        << (guided ? "; corpus " + std::to_string(report.corpus_size) : std::string()) << '\n';
    if (first_catch) out << "first catch: run " << *first_catch << '\n';
    // A guided mutant shrinks from its written file: eosim shrink FILE --seed N.
    if (tally.first_breaking_seed) {  // an engine bug comes first
        out << "shrink the broken invariant: "
            << reproducer(setup, *tally.first_breaking_seed).shrink_text() << '\n';
    }
    if (tally.first_failing_seed)
        out << "shrink one: " << reproducer(setup, *tally.first_failing_seed).shrink_text() << '\n';
}

// Whether the exploration met what the scenario expects: every run's outcome, every sometimes
// expectation, and a negative control's violation found.
bool explore_verdict(const scenarios::Scenario& scenario, const ExploreTally& tally,
                     const std::vector<std::string>& never, std::ostream& out) {
    bool ok = tally.not_met == 0 && never.empty();
    for (const std::string& name : never)
        out << "sometimes expectation never met: " << name << '\n';
    if (tally.not_met > 0)
        out << tally.not_met
            << " run(s) gave an outcome the scenario does not expect (marked \"not expected\")\n";
    if (!scenario.expect.pass) {
        const std::string wanted = scenario.expect.violation;
        const auto found = tally.per_oracle.find(wanted);
        out << "negative control: " << wanted
            << (found != tally.per_oracle.end()
                    ? " found on " + std::to_string(found->second) + " run(s), as expected"
                    : " never found: the control did not show its bug")
            << '\n';
        ok = ok && found != tally.per_oracle.end();
    }
    return ok;
}

}  // namespace

int explore_command(const ExploreCommand& command, std::ostream& out, std::ostream& err) {
    ExploreSetup setup;
    if (const std::string problem = explore_setup(command, setup); !problem.empty()) {
        err << "error: " << problem << '\n';
        return kExitBadInput;
    }
    print_explore_header(command, setup, out);
    const auto start = std::chrono::steady_clock::now();
    std::optional<size_t> first_catch;
    const scenarios::ExploreReport report = run_exploration(command, setup, out, err, &first_catch);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    scenarios::CoverageSummary coverage;
    for (const scenarios::ExploreRun& run : report.runs) coverage.add_run(run.coverage);
    out << scenarios::coverage_table(coverage, setup.scenario.sometimes);
    const std::vector<std::string> never =
        scenarios::check_sometimes(coverage, setup.scenario.sometimes);
    const ExploreTally tally(report.runs);
    print_explore_summary(setup, report, tally, seconds, first_catch, out);
    return explore_verdict(setup.scenario, tally, never, out) ? kExitMet : kExitNotMet;
}

}  // namespace eosim::cli
