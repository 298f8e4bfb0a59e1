#pragma once
// Which subtasks a checkpoint triggers and which it waits for once some subtasks have finished
// (Flink's DefaultCheckpointPlanCalculator with
// execution.checkpointing.checkpoints-after-tasks-finish, FLIP-147). A finished subtask sent end of
// partition through every output channel and left: it is not triggered, not waited for, and the
// checkpoint records it as finished (Flink's FinishedOperatorSubtaskState /
// FullyFinishedOperatorState), so that a restore deploys it finished. A running subtask is
// triggered directly (as a source is) when every upstream subtask it reads from has finished: no
// barrier would reach it otherwise. Every other running subtask gets its barriers from upstream and
// is waited for. Upstream: a forward edge reads the subtask of the same index, a hash or rebalance
// edge every subtask of the producer (Flink: POINTWISE and ALL_TO_ALL).
//
// The coordinator's side (checkpoint_coordinator.h): once a subtask reports finished, the
// checkpoints that follow carry the source offsets of the latest completed checkpoint for the
// partitions no running source acknowledges (a finished source's: its end offsets; the oracles read
// the input prefix from them). A savepoint has no finished marker (eosim's canonical format):
// finished sources snapshot it too (their splits at their end, no barrier sent), and a savepoint
// while a task other than a source has finished is refused (NOT_ALL_REQUIRED_TASKS_RUNNING).
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "engine/vocabulary/job_spec.h"

namespace eosim::engine {

using SubtaskId = std::pair<int32_t, int32_t>;  // (vertex index, subtask)

struct CheckpointPlan {
    std::vector<SubtaskId> to_trigger;  // in (vertex, subtask) order
    std::set<SubtaskId> to_wait_for;    // every running subtask
    std::set<SubtaskId> finished;       // recorded as finished in the checkpoint
};

// The plan for `job`'s subtasks when `finished` have finished. Empty to_trigger: every subtask
// finished (Flink refuses such a checkpoint: nothing is left to snapshot).
CheckpointPlan plan_checkpoint(const JobSpec& job, const std::set<SubtaskId>& finished);

// A savepoint's plan. eosim's canonical savepoint format has no finished marker: finished sources
// are triggered and waited for too (they snapshot their splits at their end, without a barrier),
// and nothing is recorded finished. std::nullopt when a subtask other than a source has finished
// (its final state is gone: such a savepoint is refused).
std::optional<CheckpointPlan> plan_savepoint(const JobSpec& job,
                                             const std::set<SubtaskId>& finished);

}  // namespace eosim::engine
