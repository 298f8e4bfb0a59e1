// The standard run of DESIGN.md: Kafka -> keyBy -> count -> two-phase-commit Kafka sink,
// parallelism 4, 100k records arriving at 1,000 per virtual second (100 s of virtual time), a
// checkpoint every 500 ms, 3 TaskManager crashes; every oracle on. Prints the wall time of each
// whole run (world, engine, oracles) and the virtual-to-wall ratio; the median is the figure.
// Target (DESIGN.md): at least 2000x faster than the virtual time simulated (under 0.05 s) when the
// yardstick reads 19 M ops/s or more.
// Also prints a yardstick of the machine's speed at the moment (bench/bare_heap.h, measured before
// and after the runs): a shared machine has slow phases, and the wall time scales with them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bare_heap.h"
#include "bench/standard_scenario.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

int main(int argc, char** argv) {
    CLI::App app{"Wall time of the standard scenario run"};
    std::string base = eosim::testing::catalogue_scenario("kafka-count-eos").string();
    int64_t records = 100'000;
    int runs = 5;
    uint64_t seed = 1;
    app.add_option("--scenario", base,
                   "scenario to base the run on (its inputs and faults are replaced)");
    app.add_option("--records", records, "input records (arriving at 1,000 per virtual second)");
    app.add_option("--runs", runs, "runs to time (the median is reported)");
    app.add_option("--seed", seed, "seed");
    CLI11_PARSE(app, argc, argv);

    const eosim::scenarios::Scenario scenario = eosim::bench::standard_scenario(base, records);
    const double yardstick_before = eosim::bench::yardstick_mops();
    std::vector<double> walls;
    eosim::scenarios::RunResult last;
    for (int i = 0; i < runs; ++i) {
        last =
            eosim::scenarios::run_scenario(scenario, eosim::scenarios::RunOptions{seed, nullptr});
        walls.push_back(last.figures.wall_seconds);
    }
    const double yardstick_after = eosim::bench::yardstick_mops();
    std::sort(walls.begin(), walls.end());
    const double median = walls[walls.size() / 2];
    std::printf("standard run: %lld records, %lld crashes, seed %llu, expectation %s\n",
                static_cast<long long>(records),
                static_cast<long long>(last.figures.faults_injected),
                static_cast<unsigned long long>(seed), last.expectation_met ? "met" : "NOT MET");
    std::printf("events %llu, virtual time %.3f s, checkpoints %lld completed, restarts %lld\n",
                static_cast<unsigned long long>(last.figures.events), last.figures.virtual_seconds,
                static_cast<long long>(last.figures.checkpoints_completed),
                static_cast<long long>(last.figures.restarts));
    std::printf("wall time per run: min %.4f s, median %.4f s, max %.4f s (%d runs)\n",
                walls.front(), median, walls.back(), runs);
    std::printf(
        "virtual/wall: %.0fx (target >= 2000x, i.e. under 0.05 s, when the yardstick reads >= 19 M ops/s)\n",
        last.figures.virtual_seconds / median);
    std::printf(
        "machine yardstick: bare heap %.1f M ops/s before the runs, %.1f after (bench_sim_pingpong's bare-heap\n"
        "line on a quiet machine; lower means a slower phase, and the wall time above grows with it)\n",
        yardstick_before, yardstick_after);
    return last.expectation_met ? 0 : 1;
}
