#include "engine/runtime/checkpoint_upload.h"

#include <algorithm>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"
#include "engine/runtime/task.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kSharedCleanupRetry{"task.shared_cleanup_retry"};
constexpr int32_t kSharedCleanupTries = 10;

// Deletes a shared file a failed or abandoned snapshot uploaded; a failed delete is tried again a
// heartbeat interval later (dropped if the node crashes meanwhile: the file stays an orphan).
void remove_shared_upload(Engine* engine, sim::NodeId node, const std::string& key,
                          int32_t tries_left) {
    engine->world().storage().remove(
        node, key, [engine, node, key, tries_left](sim::StorageStatus status) {
            if (status != sim::StorageStatus::failed || tries_left <= 1) return;
            engine->world().scheduler().schedule(
                engine->job().runtime.heartbeat_interval, node, kSharedCleanupRetry, 0,
                [engine, node, key, tries_left] {
                    remove_shared_upload(engine, node, key, tries_left - 1);
                });
        });
}
}  // namespace

void send_decline(Engine& engine, sim::NodeId node, const TaskKey& task, int64_t checkpoint_id,
                  CheckpointFailureReason reason, const std::string& detail) {
    engine.send_to_job_manager(node, messages::kAcknowledge,
                               key_digest(task) ^ static_cast<uint64_t>(checkpoint_id),
                               [task, checkpoint_id, reason, detail](JobManager& jm) {
                                   jm.decline_checkpoint(task, checkpoint_id, reason, detail);
                               });
}

void CheckpointUpload::prepare(int64_t checkpoint_id, IncrementalSnapshot snapshot) {
    SharedUploads& uploads = shared_uploads_[checkpoint_id];
    uploads = SharedUploads{};
    uploads.report.keys = std::move(snapshot.shared_keys);
    for (const SharedStateUpload& file : snapshot.uploads) {
        uploads.report.uploaded.push_back(file.key);
        uploads.report.bytes_uploaded += static_cast<int64_t>(file.bytes.size());
    }
    std::sort(uploads.report.uploaded.begin(), uploads.report.uploaded.end());
    uploads.report.bytes_referenced = snapshot.bytes_referenced;
    uploads.files = std::move(snapshot.uploads);
}

const SharedStateReport* CheckpointUpload::shared_report(int64_t checkpoint_id) const {
    auto it = shared_uploads_.find(checkpoint_id);
    return it == shared_uploads_.end() ? nullptr : &it->second.report;
}

void CheckpointUpload::upload(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets,
                              bool unaligned) {
    auto shared = shared_uploads_.find(checkpoint_id);
    if (shared == shared_uploads_.end()) {
        upload_private_state(checkpoint_id, std::move(blob), offsets, unaligned,
                             SharedStateReport{});
        return;
    }
    // Older snapshots still waiting for their barrier were aborted: their uploads never start.
    for (auto older = shared_uploads_.begin(); older != shared;) {
        older = older->second.started ? std::next(older) : shared_uploads_.erase(older);
    }
    SharedUploads& uploads = shared->second;
    uploads.started = true;
    uploads.blob = std::move(blob);
    uploads.offsets = offsets;
    uploads.unaligned = unaligned;
    uploads.outstanding = static_cast<int32_t>(uploads.files.size());
    if (uploads.outstanding == 0) {
        SharedUploads done = std::move(uploads);
        shared_uploads_.erase(shared);
        upload_private_state(checkpoint_id, std::move(done.blob), done.offsets, done.unaligned,
                             done.report);
        return;
    }
    std::vector<SharedStateUpload> files = std::move(uploads.files);
    Engine* engine = &task_.engine();
    const sim::NodeId node = task_.node();
    const TaskKey key = task_.key();
    for (SharedStateUpload& file : files) {
        engine->world().storage().put(
            node, file.key, std::move(file.bytes),
            [engine, node, key, checkpoint_id, shared_key = file.key](sim::StorageStatus status) {
                if (Task* task = engine->find_task(node, key)) {
                    task->checkpoint().upload().shared_file_uploaded(
                        checkpoint_id, shared_key, status == sim::StorageStatus::ok);
                } else if (status == sim::StorageStatus::ok) {
                    // Cancelled meanwhile: nobody will acknowledge it.
                    remove_shared_upload(engine, node, shared_key, kSharedCleanupTries);
                }
            });
    }
}

void CheckpointUpload::shared_file_uploaded(int64_t checkpoint_id, const std::string& key,
                                            bool ok) {
    auto it = shared_uploads_.find(checkpoint_id);
    if (it == shared_uploads_.end()) return;
    SharedUploads& uploads = it->second;
    if (ok) {
        uploads.landed.push_back(key);
    } else {
        uploads.failed = true;
    }
    if (--uploads.outstanding > 0) return;
    SharedUploads done = std::move(uploads);
    shared_uploads_.erase(it);
    if (!done.failed) {
        upload_private_state(checkpoint_id, std::move(done.blob), done.offsets, done.unaligned,
                             done.report);
        return;
    }
    // Flink's AsyncCheckpointRunnable cleans up what it wrote of a failed snapshot.
    for (const std::string& landed : done.landed)
        remove_shared_upload(&task_.engine(), task_.node(), landed, kSharedCleanupTries);
    send_decline(task_.engine(), task_.node(), task_.key(), checkpoint_id,
                 CheckpointFailureReason::checkpoint_async_exception, "shared state upload failed");
}

void CheckpointUpload::upload_private_state(int64_t checkpoint_id, std::string blob,
                                            const SourceOffsets& offsets, bool unaligned,
                                            const SharedStateReport& shared) {
    SubtaskCheckpoint& checkpoint = task_.checkpoint();
    if (task_.carries_watermark()) blob = checkpoint.with_watermark(checkpoint_id, std::move(blob));
    const JobSpec& job = task_.engine().job();
    const TaskKey key = task_.key();
    const std::string storage_key = checkpoint.snapshot_type(checkpoint_id).is_savepoint()
                                        ? savepoint_state_key(job, checkpoint_id, key)
                                        : state_key(job, checkpoint_id, key);
    const int64_t state_bytes = static_cast<int64_t>(blob.size());
    Engine* engine = &task_.engine();
    const sim::NodeId node = task_.node();
    engine->world().storage().put(
        node, storage_key, std::move(blob),
        [engine, node, key, checkpoint_id, storage_key, state_bytes, offsets, unaligned,
         shared](sim::StorageStatus status) {
            if (engine->find_task(node, key) == nullptr) {
                // Cancelled meanwhile: nobody will acknowledge it, so the task's
                // asynchronous part deletes it (Flink's AsyncCheckpointRunnable cleanup).
                if (status == sim::StorageStatus::ok)
                    engine->world().storage().remove(node, storage_key, [](sim::StorageStatus) {});
                for (const std::string& uploaded : shared.uploaded) {
                    remove_shared_upload(engine, node, uploaded, kSharedCleanupTries);
                }
                return;
            }
            if (status != sim::StorageStatus::ok) {
                // Declined below: the shared files this snapshot uploaded go too.
                for (const std::string& uploaded : shared.uploaded) {
                    remove_shared_upload(engine, node, uploaded, kSharedCleanupTries);
                }
            }
            if (unaligned && status == sim::StorageStatus::ok) {
                engine->world().announce(
                    points::kChannelStatePersisted, node, checkpoint_id,
                    {engine->job().vertices[static_cast<size_t>(key.vertex)].id, key.subtask});
                EOSIM_INVARIANT(
                    engine->world().nodes().is_up(node),
                    "no code runs on a crashed node after an announcement (sim/scheduler.h)");
            }
            if (status != sim::StorageStatus::ok) {
                send_decline(*engine, node, key, checkpoint_id,
                             CheckpointFailureReason::checkpoint_async_exception,
                             "state upload failed");
                return;
            }
            engine->observer().task_checkpoint_acknowledged(
                engine->world().now(), checkpoint_id,
                engine->job().vertices[static_cast<size_t>(key.vertex)].id, key.subtask);
            engine->send_to_job_manager(
                node, messages::kAcknowledge,
                key_digest(key) ^ static_cast<uint64_t>(checkpoint_id),
                [key, checkpoint_id, storage_key, state_bytes, offsets, shared](JobManager& jm) {
                    jm.acknowledge_checkpoint(key, checkpoint_id, storage_key, state_bytes, offsets,
                                              shared);
                });
        });
}

}  // namespace eosim::engine
