#pragma once
// Stop-with-savepoint's promise (Flink's `stop`: the sources are suspended with the savepoint's
// barrier), and where the next deployment starts. Checks:
// - after a source subtask took the trigger of a stop-with-savepoint's final savepoint, it reads
// and
//   emits no record in that attempt (records read after the barrier, emitted by the stopping job
//   and read again by the next deployment, would be duplicates as soon as anything committed them:
//   the check does not wait for that luck);
// - a deployment that starts from the savepoint that stopped the one before it starts from exactly
//   the positions where the stopping attempt's sources took the barrier (the savepoint's offsets as
//   the new JobManager read them from its _metadata);
// - every restore from a checkpoint or savepoint: each source subtask resumes every split it owns
// at
//   the restored snapshot's offset for it, and the subtasks together own every split of the
//   snapshot (checked once every source subtask of the attempt restored).
//
// Does not check: what the stopping job's other tasks do after the barrier (the output oracles see
// what got committed), a stop whose savepoint never completed (the job goes on, or fails), or where
// a deployment that starts from another snapshot (an older savepoint, a named one, a retained
// checkpoint) starts beyond the restore check above.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "engine/vocabulary/job_spec.h"
#include "oracles/oracle.h"

namespace eosim::oracles {

class StopWithSavepointOracle final : public Oracle {
public:
    explicit StopWithSavepointOracle(const engine::JobSpec& job) : job_(&job) {}
    const char* name() const override { return "stop_with_savepoint"; }
    Verdict verdict() const override;
    // A later deployment's program starts: its first restore is the hand-over, from the savepoint
    // that stopped the previous deployment when `from_previous_stop`.
    void program_started(const engine::JobSpec& job, bool from_previous_stop);

    void source_read(sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
                     int64_t records) override;
    void source_stopped_for_savepoint(sim::Time at, int64_t attempt, const std::string& vertex,
                                      int32_t subtask, int64_t savepoint_id,
                                      const engine::SourceOffsets& position) override;
    void restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id,
                         const engine::SourceOffsets& offsets) override;
    void source_restored(sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
                         int64_t checkpoint_id, const engine::SourceOffsets& position) override;

private:
    struct Stop {
        int64_t attempt = 0;
        engine::SourceOffsets positions;  // every stopped subtask's, together
    };
    struct Restore {
        int64_t checkpoint_id = 0;
        engine::SourceOffsets offsets;  // the snapshot's, as the JobManager read them
        engine::SourceOffsets resumed;  // where the source subtasks resumed, together
        std::set<std::pair<std::string, int32_t>> subtasks;  // (vertex, subtask) that restored
    };
    void violate(sim::Time at, const std::string& what);
    int32_t source_subtasks() const;

    const engine::JobSpec* job_;
    std::map<std::tuple<int64_t, std::string, int32_t>, int64_t>
        stopped_;  // (attempt, vertex, subtask) -> savepoint id
    // By savepoint id, the newest stop with that id (deployments restored from an older snapshot
    // continue its ids, so two branches of the history may share one; a hand-over from the previous
    // deployment's stop names the newest).
    std::map<int64_t, Stop> stops_;
    bool deployment_starting_ = false;  // a program started from the previous stop's savepoint; its
                                        // first restore is not seen yet
    std::map<int64_t, Restore> restores_;  // by attempt
    int64_t stops_checked_ = 0;
    int64_t handovers_checked_ = 0;
    int64_t restores_checked_ = 0;
    std::optional<std::string> violation_;
};

}  // namespace eosim::oracles
