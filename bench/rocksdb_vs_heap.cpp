// What RocksDB costs a run: every scenario of the catalogue (scenarios/catalogue/) whose job (or a
// later deployment) keeps its keyed state in RocksDB, run over the same seeds next to its heap twin
// (the same scenario with every "state_backend": "heap", "incremental": false). Prints per scenario
// the CPU time of both (the process's CPU clock, so RocksDB's background flushes and compactions
// count) summed over the seeds, their wall time, whether every run met its expectation, and the
// ratio RocksDB/heap of the CPU times. Runs alternate (RocksDB, heap) seed by seed, so a slow phase
// of a shared machine hits both; a first pair, not counted, warms the process up (its first runs
// map the code and grow the heap, which the first scenario measured would otherwise pay alone).
// Target: a ratio of at most 2.
//
// Wall-clock and CPU time are read here and only here: benchmarks are not part of any simulation.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_files.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace {

using eosim::engine::StateBackendKind;
using eosim::engine::StateBackendOptions;
using eosim::scenarios::Scenario;

bool uses_rocksdb(const Scenario& s) {
    if (s.job.state_backend.kind == StateBackendKind::rocksdb) return true;
    return std::any_of(s.deployments.begin(), s.deployments.end(), [](const auto& d) {
        return d.state_backend && d.state_backend->kind == StateBackendKind::rocksdb;
    });
}

Scenario heap_twin(Scenario s) {
    s.job.state_backend = StateBackendOptions{StateBackendKind::heap, false};
    for (auto& deployment : s.deployments) {
        if (deployment.state_backend)
            deployment.state_backend = StateBackendOptions{StateBackendKind::heap, false};
    }
    return s;
}

double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Totals {
    double cpu_s = 0;
    double wall_s = 0;
    int met = 0;
};

void run_into(const Scenario& s, uint64_t seed, Totals& totals) {
    eosim::scenarios::RunOptions options;
    options.seed = seed;
    const double cpu_start = cpu_seconds();
    const auto wall_start = std::chrono::steady_clock::now();
    const eosim::scenarios::RunResult r = eosim::scenarios::run_scenario(s, options);
    totals.wall_s +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    totals.cpu_s += cpu_seconds() - cpu_start;
    totals.met += r.expectation_met ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"RocksDB scenarios against their heap twins: CPU time and its ratio"};
    uint64_t first_seed = 1;
    uint64_t last_seed = 5;
    std::string only;
    app.add_option("--first-seed", first_seed, "first seed");
    app.add_option("--last-seed", last_seed, "last seed");
    app.add_option("--scenario", only, "only this scenario (its name, without .json)");
    CLI11_PARSE(app, argc, argv);
    if (last_seed < first_seed) {
        std::fprintf(stderr, "--last-seed must not be below --first-seed\n");
        return 2;
    }

    const std::vector<std::filesystem::path> files =
        eosim::scenarios::scenario_files_in(eosim::testing::kCatalogue);

    const auto seeds = last_seed - first_seed + 1;
    std::printf("seeds %llu..%llu; CPU and wall time summed over the seeds\n",
                static_cast<unsigned long long>(first_seed),
                static_cast<unsigned long long>(last_seed));
    std::printf("%-30s %9s %9s %9s %9s %6s %6s %7s\n", "scenario", "rocks cpu", "heap cpu",
                "rocks wall", "heap wall", "rocks", "heap", "ratio");
    bool warm = false;
    for (const auto& file : files) {
        const Scenario rocks = eosim::scenarios::load_scenario(file);
        if (!uses_rocksdb(rocks) || (!only.empty() && rocks.name != only)) continue;
        const Scenario heap = heap_twin(rocks);
        if (!warm) {  // the process's first runs map the code and grow the heap: counted for
                      // neither
            Totals ignored;
            run_into(rocks, first_seed, ignored);
            run_into(heap, first_seed, ignored);
            warm = true;
        }
        Totals rocks_totals, heap_totals;
        for (uint64_t seed = first_seed; seed <= last_seed; ++seed) {
            run_into(rocks, seed, rocks_totals);
            run_into(heap, seed, heap_totals);
        }
        std::printf("%-30s %8.2fs %8.2fs %9.2fs %8.2fs %3d/%-2llu %3d/%-2llu %6.2fx\n",
                    rocks.name.c_str(), rocks_totals.cpu_s, heap_totals.cpu_s, rocks_totals.wall_s,
                    heap_totals.wall_s, rocks_totals.met, static_cast<unsigned long long>(seeds),
                    heap_totals.met, static_cast<unsigned long long>(seeds),
                    rocks_totals.cpu_s / heap_totals.cpu_s);
    }
    return 0;
}
