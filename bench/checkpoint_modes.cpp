// The trade-off the articles describe, measured: the backpressured job of
// backpressure-unaligned.json of the catalogue (a hot key, a slow keyed count and a slow sink; no
// faults) with aligned checkpoints, with unaligned checkpoints, and aligned with a 200 ms
// aligned-checkpoint timeout, on the same seeds. Prints side by side, over the completed
// checkpoints of every run: end-to-end checkpoint duration (median, p99), alignment (per
// checkpoint, its slowest task), bytes persisted per checkpoint (and of them channel state), and
// the job's throughput in virtual time. The checkpoint timeout is raised to 60 s here so that
// aligned checkpoints complete (slowly) instead of failing the job over as in
// backpressure-aligned-timeouts.json.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace {

double quantile(std::vector<double> values, double q) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    size_t rank = static_cast<size_t>(q * static_cast<double>(values.size()));
    return values[std::min(rank, values.size() - 1)];
}

struct Mode {
    const char* name;
    bool unaligned;
    int64_t timeout_ms;
};

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"Checkpoint modes under backpressure: aligned, unaligned, aligned with a timeout"};
    int seeds = 20;
    app.add_option("--seeds", seeds, "Seeds 1..N per mode");
    CLI11_PARSE(app, argc, argv);
    using eosim::sim::Duration;
    const std::filesystem::path base = eosim::testing::catalogue_scenario("backpressure-unaligned");
    const Mode modes[] = {
        {"aligned", false, 0}, {"unaligned", true, 0}, {"aligned, 200ms timeout", true, 200}};
    std::printf("%-24s %6s %6s %10s %10s %10s %10s %12s %12s %12s\n", "mode", "done", "failed",
                "dur p50", "dur p99", "align p50", "align max", "bytes p50", "channel p50",
                "records/s");
    for (const Mode& mode : modes) {
        std::vector<double> durations, alignments, bytes, channel_bytes, throughput;
        int64_t completed = 0, failed = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            eosim::scenarios::Scenario s = eosim::scenarios::load_scenario(base);
            s.faults.clear();
            s.job.checkpointing.timeout = Duration::seconds(60);
            s.job.checkpointing.unaligned = mode.unaligned;
            s.job.checkpointing.aligned_checkpoint_timeout = Duration::millis(mode.timeout_ms);
            eosim::scenarios::RunOptions options;
            options.seed = static_cast<uint64_t>(seed);
            const eosim::scenarios::RunResult r = eosim::scenarios::run_scenario(s, options);
            for (const auto& c : r.checkpoints) {
                if (c.status == "failed") ++failed;
                if (c.status != "completed") continue;
                ++completed;
                durations.push_back(c.duration_ms);
                alignments.push_back(c.max_alignment_ms);
                bytes.push_back(
                    static_cast<double>(c.operator_state_bytes + c.channel_state_bytes));
                channel_bytes.push_back(static_cast<double>(c.channel_state_bytes));
            }
            if (r.figures.virtual_seconds > 0) {
                throughput.push_back(static_cast<double>(r.figures.records_out) /
                                     r.figures.virtual_seconds);
            }
        }
        std::printf("%-24s %6lld %6lld %8.1fms %8.1fms %8.1fms %8.1fms %12.0f %12.0f %12.1f\n",
                    mode.name, static_cast<long long>(completed), static_cast<long long>(failed),
                    quantile(durations, 0.5), quantile(durations, 0.99), quantile(alignments, 0.5),
                    quantile(alignments, 1.0), quantile(bytes, 0.5), quantile(channel_bytes, 0.5),
                    quantile(throughput, 0.5));
    }
    std::printf(
        "(over seeds 1..%d; durations and alignment in virtual time; throughput: committed records per virtual "
        "second until the job finished, median over runs)\n",
        seeds);
    return 0;
}
