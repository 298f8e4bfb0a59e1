#pragma once
// What the JobManager sends a TaskManager to run an attempt of the job: where every subtask
// runs, and which checkpoint to restore.
#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/vocabulary/run_observer.h"
#include "sim/trace.h"

namespace eosim::engine {

// A subtask of one execution attempt of the job.
struct TaskKey {
    int64_t attempt = 0;
    int32_t vertex = 0;
    int32_t subtask = 0;
    auto operator<=>(const TaskKey&) const = default;
};

// A completed checkpoint, as the coordinator keeps it and a restore reads it.
struct CompletedCheckpoint {
    int64_t id = 0;
    std::map<std::pair<int32_t, int32_t>, std::string> handles;  // (vertex, subtask) -> storage key
    SourceOffsets offsets;
    std::string metadata_key;
    int64_t state_bytes = 0;     // the tasks' state files together (for the storage figures)
    int64_t metadata_bytes = 0;  // the _metadata file
    // A savepoint (engine/checkpointing/savepoint_storage.h): its state is in the canonical form
    // and its files are the user's, never discarded by retention or subsumption.
    bool savepoint = false;
    // Restoring from a snapshot whose vertices had other parallelisms: vertex -> its old
    // parallelism (only those that differ), for the task.restoring_rescaled point.
    std::map<int32_t, int32_t> rescaled_from;
    // Another job's retained checkpoint, restored by a new deployment (`flink run -s
    // <checkpoint>`): its shared files stay that job's, so the restored backends refer to none of
    // them and the first checkpoint uploads everything (Flink's restore mode NO_CLAIM).
    bool no_claim = false;
    // Incremental state: the shared files (checkpoint_storage.h) each subtask's state refers to,
    // and the bytes this checkpoint uploaded of them vs the bytes it refers to.
    std::map<std::pair<int32_t, int32_t>, std::vector<std::string>> shared;
    int64_t shared_bytes_uploaded = 0;
    int64_t shared_bytes_referenced = 0;
    // After a JobManager restart only: the shared files the checkpoints retained before this one
    // referred to when this one completed (its metadata says); held for them as a group.
    std::vector<std::string> older_shared;
    // Subtasks that had finished (FLIP-147: end of partition sent, gone): no state of theirs is in
    // the checkpoint, and a restore deploys them finished (Flink's FinishedOperatorSubtaskState).
    std::set<std::pair<int32_t, int32_t>> finished;
};

// What a task's acknowledgement says of the shared files its (incremental) state refers to.
struct SharedStateReport {
    std::vector<std::string> keys;      // every shared file referred to, ordered
    std::vector<std::string> uploaded;  // those this snapshot uploaded, ordered
    int64_t bytes_uploaded = 0;
    int64_t bytes_referenced = 0;
};

struct Deployment {
    int64_t attempt = 0;
    std::vector<std::vector<sim::NodeId>> placement;  // [vertex][subtask] -> TaskManager node
    std::vector<std::vector<int32_t>> slots;  // [vertex][subtask] -> its slot on that TaskManager
    CompletedCheckpoint restore;              // id 0: start from scratch
};

}  // namespace eosim::engine
