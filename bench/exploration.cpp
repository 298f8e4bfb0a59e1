// bench_exploration: runs to first catch of the exploration strategies on one scenario.
//
//   bench_exploration --scenario FILE [--strategies swarm,pct,guided] [--masters 3] [--max-runs
//   200]
//                     [--oracle NAME] [--jobs 2] [--pct-depth 3] [--full]
//
// For every strategy and master seed m (1..masters) it explores the scenario from seed
// m * 100000 + 1 upwards (guided: its mutator stream seeded with m too) until the first run that
// catches -- an oracle fired (with --oracle: that oracle) -- or max-runs runs, and prints the runs
// to the first catch per master seed, their median (a master that never caught counts as
// "> max-runs"), the share of the runs that caught and the coverage keys reached. --full runs all
// max-runs runs of every master (the share and the coverage after N runs, not only the first
// catch).
//
// The planted bugs of bench/bug-corpus/ are switched on by the environment (EOSIM_PLANTED_BUG) in
// a scratch build that bench/bug_corpus.sh makes; in the product build this measures the
// unplanted engine (a catch there is a false alarm, or a negative control's own bug).
// Never a test: nothing here asserts; wall time is printed for information only.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenarios/exploration.h"
#include "scenarios/scenario.h"

namespace {

struct StrategyFigures {
    std::string strategy;
    std::vector<int64_t> first_catch;  // per master: runs to the first catch, -1 never
    int64_t runs = 0;
    int64_t catching_runs = 0;
    size_t coverage_keys = 0;  // summed over the masters (printed as the mean)
    double wall_seconds = 0;
};

bool bench_run_catches(const eosim::scenarios::ExploreRun& run, const std::string& oracle) {
    if (oracle.empty()) return !run.fired.empty();
    return std::find(run.fired.begin(), run.fired.end(), oracle) != run.fired.end();
}

std::string bench_median(std::vector<int64_t> values, int64_t cap) {
    // A master that never caught counts as more than cap: sorted last.
    for (int64_t& v : values) {
        if (v < 0) v = cap + 1;
    }
    std::sort(values.begin(), values.end());
    const int64_t median = values[values.size() / 2];
    return median > cap ? "> " + std::to_string(cap) : std::to_string(median);
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Runs to first catch of the exploration strategies on one scenario"};
    std::string scenario_path;
    std::string strategies = "swarm,pct,guided";
    int64_t masters = 3;
    int64_t max_runs = 200;
    std::string oracle;
    size_t jobs = 2;
    uint32_t pct_depth = 3;
    bool full = false;
    app.add_option("--scenario", scenario_path, "Scenario file")->required();
    app.add_option("--strategies", strategies, "Comma-separated: swarm, pct, guided")
        ->capture_default_str();
    app.add_option("--masters", masters, "Master seeds (1..N)")
        ->capture_default_str()
        ->check(CLI::Range(1, 1000));
    app.add_option("--max-runs", max_runs, "Runs per master seed at most")
        ->capture_default_str()
        ->check(CLI::Range(1, 100000));
    app.add_option("--oracle", oracle, "A catch is this oracle firing (default: any oracle)");
    app.add_option("--jobs", jobs, "Threads")->capture_default_str()->check(CLI::Range(1, 64));
    app.add_option("--pct-depth", pct_depth, "pct: depth d")
        ->capture_default_str()
        ->check(CLI::Range(1, 64));
    app.add_flag("--full", full,
                 "Run every master's max-runs runs (share and coverage after N runs)");
    CLI11_PARSE(app, argc, argv);

    eosim::scenarios::Scenario scenario;
    try {
        scenario = eosim::scenarios::load_scenario(scenario_path);
    } catch (const eosim::scenarios::ScenarioError& error) {
        std::cerr << "error: " << error.what() << '\n';
        return 2;
    }
    const char* planted = std::getenv("EOSIM_PLANTED_BUG");
    std::cout << "bench_exploration " << scenario_path
              << " (planted bug: " << (planted != nullptr ? planted : "none") << "), " << masters
              << " master seeds, at most " << max_runs << " runs each"
              << (oracle.empty() ? "" : ", catch = " + oracle + " fired")
              << (full ? ", full" : ", until the first catch") << '\n';

    std::vector<StrategyFigures> figures;
    std::stringstream list(strategies);
    for (std::string name; std::getline(list, name, ',');) {
        const auto strategy = eosim::scenarios::parse_explore_strategy(name);
        if (!strategy) {
            std::cerr << "error: --strategies: expected swarm, pct or guided, found \"" << name
                      << "\"\n";
            return 2;
        }
        StrategyFigures f;
        f.strategy = name;
        const auto start = std::chrono::steady_clock::now();
        for (int64_t m = 1; m <= masters; ++m) {
            std::vector<uint64_t> seeds;
            for (int64_t i = 0; i < max_runs; ++i)
                seeds.push_back(static_cast<uint64_t>(m * 100000 + 1 + i));
            eosim::scenarios::ExploreOptions options;
            options.strategy = *strategy;
            options.pct.depth = pct_depth;
            options.guided_seed = static_cast<uint64_t>(m);
            options.jobs = jobs;
            int64_t first = -1;
            std::string first_fired;
            const auto report = eosim::scenarios::explore_scenario(
                scenario, seeds, false, options,
                [&](const std::vector<eosim::scenarios::ExploreRun>& generation, size_t) {
                    for (const auto& run : generation) {
                        if (first < 0 && bench_run_catches(run, oracle)) {
                            first = static_cast<int64_t>(run.index) + 1;
                            for (const std::string& fired : run.fired)
                                first_fired += (first_fired.empty() ? "" : ",") + fired;
                        }
                    }
                    return full || first < 0;
                });
            f.first_catch.push_back(first);
            f.runs += static_cast<int64_t>(report.runs.size());
            for (const auto& run : report.runs)
                f.catching_runs += bench_run_catches(run, oracle) ? 1 : 0;
            f.coverage_keys += report.coverage_keys;
            std::cout << "  " << name << " master " << m << ": first catch "
                      << (first < 0 ? "none in " + std::to_string(max_runs)
                                    : "at run " + std::to_string(first) + " (" + first_fired + ")")
                      << ", " << report.runs.size() << " runs, " << report.coverage_keys
                      << " coverage keys" << '\n'
                      << std::flush;
        }
        f.wall_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        figures.push_back(f);
    }
    std::cout
        << "| strategy | runs to first catch per master | median | share of runs that caught | coverage keys (mean) | wall s |\n"
        << "|---|---|---|---|---|---|\n";
    for (const StrategyFigures& f : figures) {
        std::string per;
        for (const int64_t v : f.first_catch)
            per += (per.empty() ? "" : ", ") + (v < 0 ? std::string("-") : std::to_string(v));
        char share[64];
        std::snprintf(share, sizeof share, "%lld/%lld", static_cast<long long>(f.catching_runs),
                      static_cast<long long>(f.runs));
        char wall[32];
        std::snprintf(wall, sizeof wall, "%.1f", f.wall_seconds);
        std::cout << "| " << f.strategy << " | " << per << " | "
                  << bench_median(f.first_catch, max_runs) << " | " << share << " | "
                  << f.coverage_keys / static_cast<size_t>(masters) << " | " << wall << " |\n";
    }
    return 0;
}
