// Scaling of the standard run: the standard job (bench/standard_scenario.h: Kafka -> keyBy -> count
// -> two-phase-commit Kafka, parallelism 4, 3 TaskManager crashes, a checkpoint every 500 ms, every
// oracle) at 10k, 100k, 1M and 10M input records (1,000 per virtual second, so 10 s to 10,000 s of
// virtual time). Each run is its own child process, so that its peak resident memory is its own
// (the kernel's maximum RSS of the child). Per size: wall time (median over --runs), CPU time
// (user + system, median), events, virtual/wall, peak RSS and, above the peak RSS of a 1k-record
// run (the fixed base), bytes per input record; then the ratio of each step to the previous one.
// Targets (DESIGN.md): each 10x step at most 11x the wall time; peak RSS at most 64 bytes per
// input record plus the fixed base, the 10M run under 1 GB. The machine yardstick (bare heap, as
// bench_standard_run prints it) is measured before and after.
// Liveness bound and time limit: see bench/standard_scenario.h (they grow with the input span).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "bench/bare_heap.h"
#include "bench/standard_scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace {

struct ChildFigures {
    uint64_t events = 0;
    double virtual_seconds = 0;
    double wall_seconds = 0;  // run_scenario's own wall time (world, engine, oracles)
    int expectation_met = 0;
    int64_t records_out = 0;
};

struct Sample {
    ChildFigures figures;
    double cpu_seconds = 0;
    long peak_rss_kb = 0;
};

// Runs the standard job with `records` records in a child process and returns its figures.
bool run_child(const std::string& base, int64_t records, uint64_t seed, Sample* sample) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    const pid_t pid = fork();
    if (pid < 0) return false;
    if (pid == 0) {
        close(fds[0]);
        const eosim::scenarios::Scenario s = eosim::bench::standard_scenario(base, records);
        const eosim::scenarios::RunResult r =
            eosim::scenarios::run_scenario(s, eosim::scenarios::RunOptions{seed, nullptr});
        ChildFigures f{r.figures.events, r.figures.virtual_seconds, r.figures.wall_seconds,
                       r.expectation_met ? 1 : 0, r.figures.records_out};
        const ssize_t written = write(fds[1], &f, sizeof f);
        _exit(written == static_cast<ssize_t>(sizeof f) ? 0 : 1);
    }
    close(fds[1]);
    ChildFigures f;
    const ssize_t got = read(fds[0], &f, sizeof f);
    close(fds[0]);
    int status = 0;
    rusage usage{};
    if (wait4(pid, &status, 0, &usage) != pid || got != static_cast<ssize_t>(sizeof f) ||
        !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return false;
    }
    sample->figures = f;
    sample->cpu_seconds =
        static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
        static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    sample->peak_rss_kb = usage.ru_maxrss;
    return true;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Scaling of the standard run: 10k, 100k, 1M, 10M records"};
    std::string base = eosim::testing::catalogue_scenario("kafka-count-eos").string();
    std::vector<int64_t> sizes = {10'000, 100'000, 1'000'000, 10'000'000};
    int runs = 3;
    int big_runs = 1;
    uint64_t seed = 1;
    app.add_option("--scenario", base,
                   "scenario to base the runs on (its inputs and faults are replaced)");
    app.add_option("--sizes", sizes, "input records per size, ascending (comma-separated)")
        ->delimiter(',');
    app.add_option("--runs", runs, "runs per size below 5M records (medians reported)");
    app.add_option("--big-runs", big_runs, "runs per size of 5M records and more");
    app.add_option("--seed", seed, "seed");
    CLI11_PARSE(app, argc, argv);

    const double yardstick_before = eosim::bench::yardstick_mops();
    Sample base_sample;
    if (!run_child(base, 1'000, seed, &base_sample)) {
        std::fprintf(stderr, "the 1k-record base run failed\n");
        return 2;
    }
    const double base_mb = static_cast<double>(base_sample.peak_rss_kb) / 1024.0;
    std::printf("standard job, seed %llu; fixed base: peak RSS of a 1k-record run %.1f MB\n",
                static_cast<unsigned long long>(seed), base_mb);
    std::printf("%10s %9s %9s %11s %10s %9s %9s %8s %6s\n", "records", "wall s", "cpu s", "events",
                "virt/wall", "peak MB", "B/record", "expect", "runs");
    bool all_met = true;
    struct Row {
        int64_t records;
        double wall, cpu, rss_mb;
        uint64_t events;
    };
    std::vector<Row> rows;
    for (int64_t records : sizes) {
        const int n = records >= 5'000'000 ? big_runs : runs;
        std::vector<double> walls, cpus;
        long rss_kb = 0;
        Sample last;
        bool met = true;
        for (int i = 0; i < n; ++i) {
            if (!run_child(base, records, seed, &last)) {
                std::fprintf(stderr, "the %lld-record run failed\n",
                             static_cast<long long>(records));
                return 2;
            }
            walls.push_back(last.figures.wall_seconds);
            cpus.push_back(last.cpu_seconds);
            rss_kb = std::max(rss_kb, last.peak_rss_kb);
            met = met && last.figures.expectation_met != 0 && last.figures.records_out == records;
        }
        all_met = all_met && met;
        const double wall = median(walls);
        const double rss_mb = static_cast<double>(rss_kb) / 1024.0;
        const double per_record =
            (rss_mb - base_mb) * 1024.0 * 1024.0 / static_cast<double>(records);
        std::printf("%10lld %9.3f %9.3f %11llu %9.0fx %9.1f %9.1f %8s %6d\n",
                    static_cast<long long>(records), wall, median(cpus),
                    static_cast<unsigned long long>(last.figures.events),
                    last.figures.virtual_seconds / wall, rss_mb, per_record,
                    met ? "met" : "NOT MET", n);
        std::fflush(stdout);
        rows.push_back(Row{records, wall, median(cpus), rss_mb, last.figures.events});
    }
    std::printf(
        "steps (each ratio: this size / the previous; target: wall <= 11x per 10x records)\n");
    for (size_t i = 1; i < rows.size(); ++i) {
        std::printf(
            "  %lld -> %lld: records %.1fx, events %.2fx, wall %.2fx, cpu %.2fx, peak RSS %.2fx\n",
            static_cast<long long>(rows[i - 1].records), static_cast<long long>(rows[i].records),
            static_cast<double>(rows[i].records) / static_cast<double>(rows[i - 1].records),
            static_cast<double>(rows[i].events) / static_cast<double>(rows[i - 1].events),
            rows[i].wall / rows[i - 1].wall, rows[i].cpu / rows[i - 1].cpu,
            rows[i].rss_mb / rows[i - 1].rss_mb);
    }
    const double yardstick_after = eosim::bench::yardstick_mops();
    std::printf(
        "machine yardstick: bare heap %.1f M ops/s before the runs, %.1f after (lower means a slower phase;\n"
        "wall time grows with it, CPU time less so on a machine shared with other work)\n",
        yardstick_before, yardstick_after);
    return all_met ? 0 : 1;
}
