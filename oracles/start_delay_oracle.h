#pragma once
// Start delay: with an aligned-checkpoint timeout (Flink 1.14+'s timeoutable aligned barriers), no
// subtask waits much longer than that timeout for a checkpoint's first barrier. For every completed
// periodic checkpoint, each subtask's start delay (the checkpoint's trigger to the subtask's first
// barrier; a source: its trigger) is at most `timeout + slack`: a barrier still queued when the
// timeout runs out -- in an output queue waiting for credit, or in an input queue behind buffers
// the task has not processed -- is taken ahead of them as unaligned, so what is left is the
// network's latency on each hop. A checkpoint whose window (trigger to completion) a fault's
// effect overlaps is excused (a slow link or a pause holds barriers on purpose). A violation names
// the checkpoint, the subtask and its start delay.
//
// Does not check: savepoints (always aligned in Flink, never timed out), checkpoints that failed,
// anything about the output.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "oracles/oracle.h"

namespace eosim::oracles {

class StartDelayOracle final : public Oracle {
public:
    // Above the timeout: the hops from a source to the last subtask, at the network's latency.
    static constexpr sim::Duration kSlack = sim::Duration::millis(50);

    using FaultDuring = std::function<bool(sim::Time from, sim::Time to)>;
    StartDelayOracle(sim::Duration timeout, FaultDuring fault_during)
        : timeout_(timeout), fault_during_(std::move(fault_during)) {}
    const char* name() const override { return "start_delay"; }
    Verdict verdict() const override;

    void checkpoint_triggered(sim::Time at, int64_t checkpoint_id,
                              engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time at, int64_t checkpoint_id,
                              const engine::SourceOffsets&) override;
    void task_checkpoint_stats(sim::Time at, const engine::TaskCheckpointStats& stats) override;

private:
    struct Slowest {
        sim::Time triggered;
        sim::Duration delay = sim::Duration::zero();
        std::string subtask;  // vertex-subtask of the latest first barrier
    };
    sim::Duration timeout_;
    FaultDuring fault_during_;
    std::map<int64_t, Slowest> pending_;  // periodic checkpoints triggered, not yet completed
    int64_t judged_ = 0;
    int64_t excused_ = 0;
    sim::Duration longest_ = sim::Duration::zero();
    std::optional<std::string> violation_;
};

}  // namespace eosim::oracles
