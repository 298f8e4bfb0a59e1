#pragma once
// The asynchronous part of a subtask's checkpoint (Flink's AsyncCheckpointRunnable): the snapshot's
// state goes to durable storage -- with incremental keyed state its new shared files first, then
// its private blob -- and the acknowledgement (or a decline) to the coordinator. What it uploaded
// of a snapshot that failed, or whose task was cancelled meanwhile, it deletes again.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/state/state_backend.h"
#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/deployment.h"
#include "sim/world.h"

namespace eosim::engine {

class Engine;
class Task;

// Declines `checkpoint_id` for `task` to the JobManager (a datagram).
void send_decline(Engine& engine, sim::NodeId node, const TaskKey& task, int64_t checkpoint_id,
                  CheckpointFailureReason reason, const std::string& detail);

class CheckpointUpload {
public:
    explicit CheckpointUpload(Task& task) : task_(task) {}

    // The shared files of an incremental snapshot of `checkpoint_id`, uploaded with it later.
    void prepare(int64_t checkpoint_id, IncrementalSnapshot snapshot);
    // What `checkpoint_id`'s shared files weigh (nullptr: no incremental keyed state).
    const SharedStateReport* shared_report(int64_t checkpoint_id) const;
    // Uploads the snapshot's shared files (if any), then `blob`, then acknowledges.
    void upload(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets,
                bool unaligned);
    // A shared file's upload ended.
    void shared_file_uploaded(int64_t checkpoint_id, const std::string& key, bool ok);

private:
    struct SharedUploads {
        std::vector<SharedStateUpload> files;
        SharedStateReport report;
        int32_t outstanding = 0;
        bool started = false;  // its uploads are under way
        bool failed = false;
        std::vector<std::string> landed;  // uploaded files (deleted again if the snapshot fails)
        std::string blob;
        SourceOffsets offsets;
        bool unaligned = false;
    };
    void upload_private_state(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets,
                              bool unaligned, const SharedStateReport& shared);

    Task& task_;
    // Incremental keyed state of snapshots not yet uploaded, and of those whose shared files are
    // uploading.
    std::map<int64_t, SharedUploads> shared_uploads_;
};

}  // namespace eosim::engine
