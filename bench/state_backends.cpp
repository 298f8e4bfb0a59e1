// The same job with three keyed state backends, side by side: the heap (full snapshots), RocksDB
// with full snapshots, RocksDB with incremental checkpoints. The job is the keyed count of
// rocksdb-incremental-crashes.json of the catalogue without faults, over a large key space (default
// 1M keys, 1.2M records at 40,000 per virtual second, a checkpoint every second, retained 2). Each
// backend runs in its own child process, so that its peak RSS is its own. Prints wall time, bytes
// uploaded per completed checkpoint (task state blobs plus, for incremental, the new shared
// files), bytes referred to per checkpoint, and peak RSS; and the ratio of the full to the
// incremental upload per checkpoint over the second half of the run (once the key space is full).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace {

struct Backend {
    const char* name;
    eosim::engine::StateBackendKind kind;
    bool incremental;
};

struct Figures {
    double wall_s = 0;
    double uploaded_per_checkpoint = 0;
    double uploaded_per_checkpoint_late = 0;  // over the second half of the completed checkpoints
    double referenced_per_checkpoint = 0;
    long long checkpoints = 0;
    long long records_out = 0;
    int passed = 0;
};

Figures run(const Backend& backend, long long keys, long long records, long long rate,
            unsigned long long seed) {
    using eosim::sim::Duration;
    const std::filesystem::path base =
        eosim::testing::catalogue_scenario("rocksdb-incremental-crashes");
    eosim::scenarios::Scenario s = eosim::scenarios::load_scenario(base);
    s.faults.clear();
    s.job.state_backend = eosim::engine::StateBackendOptions{backend.kind, backend.incremental};
    s.job.checkpointing.interval = Duration::seconds(1);
    s.job.checkpointing.retained = 2;
    s.job.checkpointing.timeout = Duration::seconds(60);
    s.inputs.front().keys = keys;
    s.inputs.front().records = records;
    s.inputs.front().rate_per_second = rate;
    s.time_limit = Duration::seconds(3600);
    s.liveness_bound = Duration::seconds(3600);
    eosim::scenarios::RunOptions options;
    options.seed = seed;
    const auto start = std::chrono::steady_clock::now();
    const eosim::scenarios::RunResult r = eosim::scenarios::run_scenario(s, options);
    Figures f;
    f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<double> uploaded;
    double referenced = 0;
    for (const auto& c : r.checkpoints) {
        if (c.status != "completed") continue;
        uploaded.push_back(static_cast<double>(c.operator_state_bytes + c.channel_state_bytes +
                                               c.shared_bytes_uploaded));
        referenced += static_cast<double>(c.operator_state_bytes + c.channel_state_bytes +
                                          c.shared_bytes_referenced);
    }
    f.checkpoints = static_cast<long long>(uploaded.size());
    double all = 0, late = 0;
    for (size_t i = 0; i < uploaded.size(); ++i) {
        all += uploaded[i];
        if (i >= uploaded.size() / 2) late += uploaded[i];
    }
    if (!uploaded.empty()) {
        f.uploaded_per_checkpoint = all / static_cast<double>(uploaded.size());
        f.uploaded_per_checkpoint_late =
            late / static_cast<double>(uploaded.size() - uploaded.size() / 2);
        f.referenced_per_checkpoint = referenced / static_cast<double>(uploaded.size());
    }
    f.records_out = r.figures.records_out;
    f.passed = r.expectation_met ? 1 : 0;
    return f;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Keyed state backends side by side: heap, RocksDB full, RocksDB incremental"};
    long long keys = 1000000;
    long long records = 1200000;
    long long rate = 40000;
    unsigned long long seed = 1;
    app.add_option("--keys", keys, "Distinct keys");
    app.add_option("--records", records, "Input records");
    app.add_option("--rate", rate, "Records per virtual second");
    app.add_option("--seed", seed, "Seed");
    CLI11_PARSE(app, argc, argv);
    const Backend backends[] = {
        {"heap", eosim::engine::StateBackendKind::heap, false},
        {"rocksdb full", eosim::engine::StateBackendKind::rocksdb, false},
        {"rocksdb incremental", eosim::engine::StateBackendKind::rocksdb, true}};
    std::printf(
        "%lld keys, %lld records at %lld/s, a checkpoint every second, retained 2, seed %llu\n",
        keys, records, rate, seed);
    std::printf("%-20s %6s %9s %12s %14s %16s %14s %10s\n", "backend", "pass", "wall",
                "checkpoints", "uploaded/chk", "uploaded/chk 2nd", "referred/chk", "peak RSS");
    double full_late = 0, incremental_late = 0;
    for (const Backend& backend : backends) {
        int pipe_fds[2];
        if (pipe(pipe_fds) != 0) return 1;
        const pid_t child = fork();
        if (child == 0) {
            close(pipe_fds[0]);
            const Figures f = run(backend, keys, records, rate, seed);
            if (write(pipe_fds[1], &f, sizeof f) != static_cast<ssize_t>(sizeof f)) _exit(1);
            _exit(0);
        }
        close(pipe_fds[1]);
        Figures f;
        const bool got = read(pipe_fds[0], &f, sizeof f) == static_cast<ssize_t>(sizeof f);
        close(pipe_fds[0]);
        int status = 0;
        rusage usage{};
        wait4(child, &status, 0, &usage);
        if (!got) {
            std::printf("%-20s failed (child status %d)\n", backend.name, status);
            continue;
        }
        std::printf("%-20s %6s %8.2fs %12lld %14.0f %16.0f %14.0f %7.0f MB\n", backend.name,
                    f.passed ? "yes" : "NO", f.wall_s, f.checkpoints, f.uploaded_per_checkpoint,
                    f.uploaded_per_checkpoint_late, f.referenced_per_checkpoint,
                    static_cast<double>(usage.ru_maxrss) / 1024.0);
        if (backend.kind == eosim::engine::StateBackendKind::rocksdb)
            (backend.incremental ? incremental_late : full_late) = f.uploaded_per_checkpoint_late;
    }
    if (incremental_late > 0) {
        std::printf(
            "RocksDB full / incremental bytes uploaded per checkpoint (second half of the run): %.1fx\n",
            full_late / incremental_late);
    }
    return 0;
}
