#pragma once
// The layout of checkpoints in durable storage, in one place:
//   checkpoints/<job>/chk-<id>/<vertex>-<subtask>-a<attempt>   a task's state, written by that
//   attempt checkpoints/<job>/chk-<id>/_metadata            the completed checkpoint (JSON):
//   handles and offsets checkpoints/<job>/shared/<vertex>-<subtask>-a<attempt>-c<id>-<file>
//                                                   a shared file of incremental state (an SST
//                                                   file), uploaded by checkpoint <id> and referred
//                                                   to by later ones (shared_state_registry.h)
//   checkpoints/<job>/checkpoint-id-counter/<id>    the highest checkpoint id made durable (Flink's
//                                                   CheckpointIDCounter); one key per value, so a
//                                                   late write of an older value never lowers it
// A checkpoint is complete exactly when its _metadata exists; a JobManager recovers from the
// newest, and continues ids above the highest counter value or checkpoint id it finds.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/job_spec.h"

namespace eosim::engine {

std::string checkpoint_prefix(const JobSpec& job);
std::string state_key(const JobSpec& job, int64_t checkpoint_id, const TaskKey& task);
std::string metadata_key(const JobSpec& job, int64_t checkpoint_id);
// Where a task's incremental snapshot for `checkpoint_id` uploads its new shared files (+ file
// name).
std::string shared_state_prefix(const JobSpec& job, int64_t checkpoint_id, const TaskKey& task);
// The checkpoint id in a key under checkpoint_prefix, or 0.
int64_t checkpoint_id_of(const std::string& key);
std::string checkpoint_id_counter_key(const JobSpec& job, int64_t checkpoint_id);
// The id a checkpoint_id_counter_key holds, or 0 for any other key.
int64_t checkpoint_id_counter_value(const std::string& key);

// The checkpoint files in `blobs` (a storage's contents), leaving out those `being_removed` says
// are being deleted: `retained`, those of checkpoints with durable metadata (the metadata and the
// state it refers to), and `unretained`, every other one -- what a run leaves behind. The id
// counter is not a checkpoint file.
struct CheckpointFiles {
    int64_t files = 0;
    int64_t bytes = 0;
};
struct CheckpointStorageUse {
    CheckpointFiles retained;
    CheckpointFiles unretained;
};
CheckpointStorageUse checkpoint_storage_use(
    const JobSpec& job, const std::map<std::string, std::string>& blobs,
    const std::function<bool(const std::string&)>& being_removed);

// What a listing of checkpoint_prefix shows a recovering JobManager.
struct StoredCheckpoints {
    int64_t highest_id = 0;   // the highest id made durable (counter value or checkpoint files)
    std::string counter_key;  // the counter key holding it (empty: none)
    std::string latest_metadata_key;  // of the newest completed checkpoint (empty: none)
    // The completed checkpoints below the newest, oldest first, as their files: kept for
    // retention, never restored (their handles' positions are unknown: (-1, n)).
    std::vector<CompletedCheckpoint> older_completed;
};
StoredCheckpoints read_checkpoint_listing(const std::vector<std::string>& keys);

// `older_shared`: the shared files of the checkpoints retained besides this one (a recovering
// JobManager rebuilds its shared-state registry from them).
std::string serialize_checkpoint_metadata(const CompletedCheckpoint& checkpoint,
                                          const std::vector<std::string>& older_shared = {});
CompletedCheckpoint parse_checkpoint_metadata(const std::string& text);

}  // namespace eosim::engine
