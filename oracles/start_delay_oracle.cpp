#include "oracles/start_delay_oracle.h"

#include "oracles/oracle_registry.h"

namespace eosim::oracles {

using sim::seconds_text;

namespace {
std::string millis_text(sim::Duration d) { return std::to_string(d.ns / 1'000'000) + " ms"; }
}  // namespace

void StartDelayOracle::checkpoint_triggered(sim::Time at, int64_t checkpoint_id,
                                            engine::SnapshotType type) {
    if (!type.is_savepoint()) pending_[checkpoint_id] = Slowest{at};
}

void StartDelayOracle::task_checkpoint_stats(sim::Time, const engine::TaskCheckpointStats& stats) {
    auto it = pending_.find(stats.checkpoint_id);
    if (it == pending_.end()) return;
    const sim::Duration delay = stats.first_barrier_at - it->second.triggered;
    if (delay > it->second.delay) {
        it->second.delay = delay;
        it->second.subtask = stats.vertex + "-" + std::to_string(stats.subtask);
    }
}

void StartDelayOracle::checkpoint_completed(sim::Time at, int64_t checkpoint_id,
                                            const engine::SourceOffsets&) {
    auto it = pending_.find(checkpoint_id);
    if (it == pending_.end()) return;
    const Slowest slowest = it->second;
    pending_.erase(pending_.begin(), std::next(it));  // older ones will not complete any more
    if (fault_during_(slowest.triggered, at)) {
        ++excused_;
        return;
    }
    ++judged_;
    if (slowest.delay > longest_) longest_ = slowest.delay;
    if (!violation_ && slowest.delay > timeout_ + kSlack) {
        violation_ = "checkpoint " + std::to_string(checkpoint_id) + " (triggered at " +
                     seconds_text(slowest.triggered) + "): " + slowest.subtask +
                     " got its first barrier after " + millis_text(slowest.delay) +
                     ", more than the " + millis_text(timeout_) + " aligned-checkpoint timeout + " +
                     millis_text(kSlack);
    }
}

Verdict StartDelayOracle::verdict() const {
    if (violation_) return Verdict{false, *violation_};
    return Verdict{true, std::to_string(judged_) + " completed checkpoints, slowest start delay " +
                             millis_text(longest_) + " (bound " + millis_text(timeout_ + kSlack) +
                             "; " + std::to_string(excused_) + " excused by faults)"};
}

OracleRegistration start_delay_registration() {
    return {
        "start_delay",
        "with an aligned-checkpoint timeout, no subtask's start delay exceeds the timeout by more than the network's hops",
        [](const OracleJobFacts& facts) -> std::string {
            if (facts.job.checkpointing.aligned_checkpoint_timeout > sim::Duration::zero())
                return "";
            return "an aligned_checkpoint_timeout in the job's checkpointing (it bounds start delays by that timeout)";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            return std::make_unique<StartDelayOracle>(
                run.job.checkpointing.aligned_checkpoint_timeout, run.fault_effect_during);
        }};
}

}  // namespace eosim::oracles
