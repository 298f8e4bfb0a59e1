#pragma once
// The layout of checkpoints in durable storage, in one place:
//   checkpoints/<job>/chk-<id>/<vertex>-<subtask>   a task's state
//   checkpoints/<job>/chk-<id>/_metadata            the completed checkpoint (JSON): handles and offsets
// A checkpoint is complete exactly when its _metadata exists; a JobManager recovers from the newest.
#include <cstdint>
#include <string>

#include "engine/runtime/deployment.h"
#include "engine/runtime/job_spec.h"

namespace eosim::engine {

std::string checkpoint_prefix(const JobSpec& job);
std::string state_key(const JobSpec& job, int64_t checkpoint_id, const TaskKey& task);
std::string metadata_key(const JobSpec& job, int64_t checkpoint_id);
// The checkpoint id in a key under checkpoint_prefix, or 0.
int64_t checkpoint_id_of(const std::string& key);

std::string serialize_checkpoint_metadata(const CompletedCheckpoint& checkpoint);
CompletedCheckpoint parse_checkpoint_metadata(const std::string& text);

}  // namespace eosim::engine
