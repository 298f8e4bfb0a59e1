#pragma once
// Savepoints in durable storage, next to (never inside) the checkpoints:
//   savepoints/<job>/savepoint-<id>/<uid>-<subtask>-a<attempt>   a task's state, canonical form
//   savepoints/<job>/savepoint-<id>/_metadata                    which operator (by uid) holds
//   which state
// A savepoint is self-contained (its tasks wrote its own files; it shares none with a checkpoint)
// and owned by the user: no retention, subsumption or JobManager recovery ever deletes it, and a
// JobManager's recovery never lists it (Flink >= 1.15: intermediate savepoints are not added to
// the CompletedCheckpointStore, are not used for failover, and commit no side effects).
//
// Restoring a job from a savepoint matches the savepoint's operators to the job's by uid, as
// Flink's Checkpoints.loadAndValidateCheckpoint does: an operator of the savepoint with state
// that the job lacks is refused unless allow_non_restored_state; an operator whose max
// parallelism differs is refused always. Both with Flink's error text.
//
// The coordinator's side (checkpoint_coordinator.h): savepoints go through the same path as
// checkpoints, as requests of kind savepoint, which the decider runs first. As in Flink >= 1.15: an
// intermediate savepoint is not added to the completed checkpoints (never restored on failover,
// never discarded by retention), subsumes nothing and is not notified (it commits no side effects:
// a sink's transaction pre-committed at it is committed by the next checkpoint). The final
// savepoint of a stop-with-savepoint stops the periodic trigger, is notified (the sinks commit it,
// then the tasks finish) and is added to the completed checkpoints, so that a failover before the
// job finished restores it (a pointer _metadata in the checkpoint folder makes a new JobManager
// find it too); retention drops it from the list but never deletes a savepoint's files. If it
// fails, the attempt fails over and the stop is tried again once the job runs (the user's request
// stands).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/job_spec.h"

namespace eosim::engine {

std::string savepoint_prefix(const JobSpec& job);
std::string savepoint_state_key(const JobSpec& job, int64_t savepoint_id, const TaskKey& task);
std::string savepoint_metadata_key(const JobSpec& job, int64_t savepoint_id);

// The metadata of a savepoint: per operator its uid, parallelism, max parallelism and state files.
struct SavepointOperator {
    std::string uid;
    int32_t parallelism = 0;
    int32_t max_parallelism = 0;
    std::vector<std::pair<int32_t, std::string>> subtask_state;  // (subtask, storage key)
};
struct SavepointMetadata {
    int64_t id = 0;
    std::string job;
    std::vector<SavepointOperator> operators;
    SourceOffsets offsets;
};

std::string serialize_savepoint_metadata(const JobSpec& job, const CompletedCheckpoint& savepoint);
SavepointMetadata parse_savepoint_metadata(const std::string& text);

// The savepoints of `job` in `blobs` (a storage's contents): how many have their _metadata, the
// files they hold, and the files their metadata refers to that are gone (a savepoint deleted under
// the user by retention or subsumption would show here).
struct SavepointFiles {
    int64_t savepoints = 0;
    int64_t files = 0;    // metadata and state files under savepoint_prefix
    int64_t missing = 0;  // referenced by a savepoint's metadata, absent
    std::string first_missing;
};
SavepointFiles savepoint_files(const JobSpec& job, const std::map<std::string, std::string>& blobs);

// What restoring `job` from the savepoint at `path` gives: the restore (handles by the job's vertex
// indices, savepoint = true, rescaled_from filled), or Flink's error when the job cannot take it.
struct SavepointRestore {
    std::optional<CompletedCheckpoint> restore;
    std::string error;
    std::vector<std::string> skipped_uids;  // state of operators the job lacks, skipped (allowed)
};
SavepointRestore restore_from_savepoint(const SavepointMetadata& savepoint, const std::string& path,
                                        const JobSpec& job, bool allow_non_restored_state);
// The same for a retained checkpoint of job `writer` (its handles by the writer's vertex indices),
// restored by `job`: matched by uid with the same refusals; the state stays in the checkpoint's own
// format (native, incremental or not), restored at any parallelism by key-group range, NO_CLAIM.
SavepointRestore restore_from_retained_checkpoint(const CompletedCheckpoint& checkpoint,
                                                  const JobSpec& writer, const std::string& path,
                                                  const JobSpec& job,
                                                  bool allow_non_restored_state);

}  // namespace eosim::engine
