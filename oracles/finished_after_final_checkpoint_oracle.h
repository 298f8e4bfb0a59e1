#pragma once
// FLIP-147's contract (checkpoints after tasks finish): no task reports itself finished before a
// checkpoint at or after its end of data completed. A task whose input ended (task.end_of_data,
// whose detail is the latest checkpoint it took part in) may finish (task.finished) only once a
// checkpoint with a higher id completed -- its final checkpoint, which holds every record it
// emitted, so a sink's last transaction is committed by it and a restore never needs the finished
// task's work again. A stop-with-savepoint's final savepoint counts as that checkpoint once it
// completed; an intermediate savepoint never does (it commits no side effects, as Flink 1.15+).
// Completions are the JobManager's (checkpoint_completed), not what the task heard.
//
// Does not check: tasks without an end of data in their attempt (deployed finished from a
// checkpoint that recorded them finished; stopped by a savepoint without drain), that the finished
// task's sink committed (the output oracles do), or whether the job finishes at all (liveness).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "oracles/oracle.h"

namespace eosim::oracles {

class FinishedAfterFinalCheckpointOracle final : public Oracle {
public:
    const char* name() const override { return "finished_after_final_checkpoint"; }
    Verdict verdict() const override;

    void checkpoint_triggered(sim::Time, int64_t checkpoint_id, engine::SnapshotType type) override;
    void checkpoint_completed(sim::Time, int64_t checkpoint_id,
                              const engine::SourceOffsets&) override;
    void restore_started(sim::Time, int64_t, int64_t, const engine::SourceOffsets&) override {
        forget_tasks();
    }
    // A new program (a later deployment) starts: its tasks are new ones.
    void forget_tasks();
    // The protocol points task.end_of_data (detail: the latest checkpoint the task took part in)
    // and task.finished, of subtask `subtask` of `vertex`.
    void end_of_data(sim::Time t, std::string_view vertex, int32_t subtask,
                     int64_t last_checkpoint);
    void finished(sim::Time t, std::string_view vertex, int32_t subtask);

private:
    struct EndOfData {
        sim::Time at;
        int64_t last_checkpoint;
    };

    std::map<std::pair<std::string, int32_t>, EndOfData> end_of_data_;  // of the current attempt
    std::map<int64_t, engine::SnapshotType> triggered_;                 // checkpoint id -> its type
    std::optional<int64_t> stop_savepoint_;  // the latest stop-with-savepoint triggered
    int64_t latest_completed_ =
        0;  // the highest completed checkpoint (not intermediate savepoints)
    int64_t finishes_checked_ = 0;
    int64_t violations_ = 0;
    std::string first_violation_;
};

}  // namespace eosim::oracles
