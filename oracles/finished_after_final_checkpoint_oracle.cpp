#include "oracles/finished_after_final_checkpoint_oracle.h"

#include <algorithm>

#include "engine/vocabulary/protocol_points.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

using sim::seconds_text;

void FinishedAfterFinalCheckpointOracle::checkpoint_triggered(sim::Time, int64_t checkpoint_id,
                                                              engine::SnapshotType type) {
    triggered_[checkpoint_id] = type;
    if (type.terminates()) stop_savepoint_ = checkpoint_id;
}

void FinishedAfterFinalCheckpointOracle::checkpoint_completed(sim::Time, int64_t checkpoint_id,
                                                              const engine::SourceOffsets&) {
    const auto type = triggered_.find(checkpoint_id);
    if (type != triggered_.end() && type->second.is_savepoint() && !type->second.terminates())
        return;
    latest_completed_ = std::max(latest_completed_, checkpoint_id);
}

void FinishedAfterFinalCheckpointOracle::forget_tasks() { end_of_data_.clear(); }

void FinishedAfterFinalCheckpointOracle::end_of_data(sim::Time t, std::string_view vertex,
                                                     int32_t subtask, int64_t last_checkpoint) {
    end_of_data_[{std::string(vertex), subtask}] = EndOfData{t, last_checkpoint};
}

void FinishedAfterFinalCheckpointOracle::finished(sim::Time t, std::string_view vertex,
                                                  int32_t subtask) {
    const auto it = end_of_data_.find({std::string(vertex), subtask});
    if (it == end_of_data_.end()) return;  // no end of data in this attempt: not judged
    ++finishes_checked_;
    const EndOfData& eod = it->second;
    const bool final_done = latest_completed_ > eod.last_checkpoint ||
                            (stop_savepoint_ && latest_completed_ >= *stop_savepoint_);
    if (final_done) return;
    if (violations_++ == 0) {
        first_violation_ = "task " + std::string(vertex) + "-" + std::to_string(subtask) +
                           " finished at " + seconds_text(t) + ", its end of data at " +
                           seconds_text(eod.at) + " after checkpoint " +
                           std::to_string(eod.last_checkpoint) +
                           ", with no later checkpoint completed (latest completed: " +
                           std::to_string(latest_completed_) + ")";
    }
}

Verdict FinishedAfterFinalCheckpointOracle::verdict() const {
    if (violations_ > 0) {
        return Verdict{
            false,
            std::to_string(violations_) + " of " + std::to_string(finishes_checked_) +
                " finishing tasks finished before a checkpoint after their end of data completed; first: " +
                first_violation_};
    }
    return Verdict{true,
                   std::to_string(finishes_checked_) +
                       " tasks finished after a checkpoint following their end of data completed"};
}

OracleRegistration finished_after_final_checkpoint_registration() {
    return {
        "finished_after_final_checkpoint",
        "no task reports finished before a checkpoint at or after its end of data completed (FLIP-147)",
        [](const OracleJobFacts& facts) -> std::string {
            if (facts.job.checkpointing.enabled) return "";
            return "checkpointing enabled (without checkpoints a task finishes at its end of data, as in Flink)";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            auto oracle = std::make_unique<FinishedAfterFinalCheckpointOracle>();
            FinishedAfterFinalCheckpointOracle* contract = oracle.get();
            sim::World& world = run.world;
            world.on_point([contract, &world](const sim::ProtocolPointEvent& event) {
                if (event.task.vertex.empty()) return;
                if (event.point == engine::points::kTaskEndOfData) {
                    contract->end_of_data(world.now(), event.task.vertex, event.task.subtask,
                                          event.detail);
                } else if (event.point == engine::points::kTaskFinished) {
                    contract->finished(world.now(), event.task.vertex, event.task.subtask);
                }
            });
            run.hooks.on_program([contract](const engine::JobSpec&) { contract->forget_tasks(); });
            return oracle;
        }};
}

}  // namespace eosim::oracles
