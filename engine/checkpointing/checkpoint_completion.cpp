// The checkpoint coordinator's acknowledgements and completion (checkpoint_coordinator.h): a
// checkpoint acknowledged by every task it awaits has its metadata written, its pointer added to
// the completed-checkpoint store, and only then counts as complete and is notified.
#include <algorithm>

#include "engine/checkpointing/checkpoint_coordinator.h"
#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/coordinator_callbacks.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

// ---- acknowledgements and completion ------------------------------------------------------------

void CheckpointCoordinator::acknowledge(const TaskKey& task, int64_t checkpoint_id,
                                        const std::string& handle, int64_t state_bytes,
                                        const SourceOffsets& offsets,
                                        const SharedStateReport& shared) {
    PendingCheckpoint* pending =
        running_ && task.attempt == attempt_ ? find_in_progress(checkpoint_id) : nullptr;
    // Shared files this acknowledgement uploaded that nothing holds: deleted with its state.
    auto discard_uploads = [this, &shared] {
        std::vector<std::string> orphans;
        for (const std::string& key : shared.uploaded) {
            if (!shared_registry_.contains(key)) orphans.push_back(key);
        }
        cleaner_.discard_shared(orphans);
    };
    if (pending == nullptr || !pending->awaits({task.vertex, task.subtask})) {
        // Late (aborted, unknown, an older attempt's) or repeated: Flink discards such state.
        if (!referenced(handle)) cleaner_.discard_state(handle, state_bytes);
        discard_uploads();
        return;
    }
    for (const std::string& key : shared.keys) {
        if (std::binary_search(shared.uploaded.begin(), shared.uploaded.end(), key) ||
            shared_registry_.contains(key))
            continue;
        // Refers to a file already discarded: this checkpoint must not complete.
        if (!referenced(handle)) cleaner_.discard_file(handle);
        discard_uploads();
        abort(checkpoint_id, CheckpointFailureReason::checkpoint_declined,
              "declined by " + gateway_.job().vertices[static_cast<size_t>(task.vertex)].id + "-" +
                  std::to_string(task.subtask) +
                  ": its state refers to shared state already discarded (" + key + ")");
        return;
    }
    pending->acknowledge({task.vertex, task.subtask}, handle, state_bytes);
    CompletedCheckpoint& result = pending->result();
    if (!shared.keys.empty()) {
        shared_registry_.add_references(shared.keys);
        result.shared[{task.vertex, task.subtask}] = shared.keys;
        result.shared_bytes_uploaded += shared.bytes_uploaded;
        result.shared_bytes_referenced += shared.bytes_referenced;
        gateway_.world().announce(points::kSharedStateRegistered, node_, checkpoint_id);
    }
    for (const auto& [where, offset] : offsets) result.offsets[where] = offset;
    if (pending->fully_acknowledged()) write_metadata(*pending);
}

void CheckpointCoordinator::write_metadata(PendingCheckpoint& pending) {
    pending.start_writing_metadata();
    // Fully acknowledged: from here the metadata write alone decides, not the timeout.
    gateway_.world().scheduler().cancel(pending.timeout());
    const int64_t id = pending.id();
    gateway_.world().announce(points::kCheckpointAcknowledged, node_, id);
    const uint64_t generation = generation_;
    if (pending.snapshot().is_savepoint()) {
        write_savepoint_metadata(pending);
        return;
    }
    CompletedCheckpoint& result = pending.result();
    result.metadata_key = metadata_key(gateway_.job(), id);
    std::string metadata =
        serialize_checkpoint_metadata(result, retention_.older_retained_shared());
    result.metadata_bytes = static_cast<int64_t>(metadata.size());
    gateway_.world().storage().put(
        node_, result.metadata_key, std::move(metadata),
        on_coordinator(&gateway_, node_, instance_,
                       [generation, id](CheckpointCoordinator& c, sim::StorageStatus status) {
                           c.metadata_written(generation, id, status == sim::StorageStatus::ok);
                       }));
}

// A savepoint's own _metadata (uids, canonical state); the final one of a stop also gets a pointer
// _metadata in the checkpoint folder, written second, so that a new JobManager restores it.
void CheckpointCoordinator::write_savepoint_metadata(PendingCheckpoint& pending) {
    const int64_t id = pending.id();
    const uint64_t generation = generation_;
    const bool terminates = pending.snapshot().terminates();
    CompletedCheckpoint& result = pending.result();
    std::string metadata = serialize_savepoint_metadata(gateway_.job(), result);
    result.metadata_key =
        terminates ? metadata_key(gateway_.job(), id) : savepoint_metadata_key(gateway_.job(), id);
    std::string pointer = terminates ? serialize_checkpoint_metadata(result) : std::string();
    result.metadata_bytes = static_cast<int64_t>(metadata.size() + pointer.size());
    ExecutionGateway* gateway = &gateway_;
    const sim::NodeId node = node_;
    const std::string pointer_key = result.metadata_key;
    gateway_.world().storage().put(
        node_, savepoint_metadata_key(gateway_.job(), id), std::move(metadata),
        on_coordinator(
            &gateway_, node_, instance_,
            [gateway, node, instance = instance_, generation, id, terminates, pointer_key,
             pointer = std::move(pointer)](CheckpointCoordinator& c, sim::StorageStatus status) {
                if (status != sim::StorageStatus::ok || !terminates) {
                    c.metadata_written(generation, id, status == sim::StorageStatus::ok);
                    return;
                }
                gateway->world().storage().put(
                    node, pointer_key, pointer,
                    on_coordinator(
                        gateway, node, instance,
                        [generation, id](CheckpointCoordinator& c2, sim::StorageStatus second) {
                            // A savepoint that failed leaves no _metadata naming files its discard
                            // deletes.
                            if (second != sim::StorageStatus::ok)
                                c2.cleaner_.discard_file(
                                    savepoint_metadata_key(c2.gateway_.job(), id));
                            c2.metadata_written(generation, id, second == sim::StorageStatus::ok);
                        }));
            }));
}

void CheckpointCoordinator::metadata_written(uint64_t generation, int64_t checkpoint_id, bool ok) {
    if (const PendingCheckpoint* checkpoint = find(checkpoint_id);
        store_ && ok && checkpoint != nullptr && !checkpoint->discarding()) {
        add_to_store(generation, checkpoint_id);
        return;
    }
    finalised(generation, checkpoint_id, ok, false);
}

const PendingCheckpoint* CheckpointCoordinator::find(int64_t checkpoint_id) const {
    auto it = checkpoints_.find(checkpoint_id);
    return it != checkpoints_.end() ? &it->second : nullptr;
}

// Flink's protocol: the pointer is in the store before the checkpoint counts as complete and before
// any task is notified. Fenced: a deposed leader's add is refused.
void CheckpointCoordinator::add_to_store(uint64_t generation, int64_t checkpoint_id) {
    gateway_.world().announce(points::kCheckpointMetadataWritten, node_, checkpoint_id);
    const PendingCheckpoint* checkpoint = find(checkpoint_id);
    if (checkpoint == nullptr) return;  // a crash at the point above
    store_->add(
        checkpoint->result(),
        on_coordinator(&gateway_, node_, instance_,
                       [generation, checkpoint_id](CheckpointCoordinator& c,
                                                   sim::external::CoordinationStatus status) {
                           c.store_added(generation, checkpoint_id, status);
                       }));
}

void CheckpointCoordinator::store_added(uint64_t generation, int64_t checkpoint_id,
                                        sim::external::CoordinationStatus status) {
    const bool unknown = status == sim::external::CoordinationStatus::connection_loss;
    // The store may or may not hold it: neither completing nor aborting is safe (an abort restores
    // an older checkpoint and aborts this one's transactions, which a later leader may restore from
    // the store). Give leadership up; the next leader reads the store.
    if (unknown && gateway_.resign_leadership(node_, instance_,
                                              "checkpoint " + std::to_string(checkpoint_id) +
                                                  ": store write outcome unknown")) {
        return;
    }
    if (status == sim::external::CoordinationStatus::ok) {
        ++gateway_.stats().checkpoints_stored;
    } else if (!unknown) {
        ++gateway_.stats().checkpoint_store_refusals;
    }
    finalised(generation, checkpoint_id, status == sim::external::CoordinationStatus::ok, unknown);
}

void CheckpointCoordinator::finalised(uint64_t generation, int64_t checkpoint_id, bool ok,
                                      bool keep_files) {
    const PendingCheckpoint* checkpoint = find(checkpoint_id);
    if (checkpoint != nullptr && checkpoint->discarding()) {
        release_after_write(checkpoint_id, ok, keep_files);
        return;
    }
    if (checkpoint != nullptr && checkpoint->settling()) {
        decide_settling(checkpoint_id, ok, keep_files);
        return;
    }
    if (generation_ != generation || find_in_progress(checkpoint_id) == nullptr) return;
    if (ok) {
        complete(checkpoint_id);
    } else {
        in_progress_at(checkpoint_id).fail_metadata(keep_files);  // decided: nothing more will land
        abort(checkpoint_id, CheckpointFailureReason::finalize_checkpoint_failure,
              store_ ? "checkpoint metadata or its store entry could not be written"
                     : "checkpoint metadata could not be written");
    }
}

// Aborted while its metadata was being written: that write is decided, its files may go.
void CheckpointCoordinator::release_after_write(int64_t checkpoint_id, bool ok, bool keep_files) {
    const CompletedCheckpoint partial = checkpoints_.at(checkpoint_id).discard_written();
    checkpoints_.erase(checkpoint_id);
    if (store_ && ok) {
        discard_completed(partial);  // its pointer made it into the store: out of it first
    } else if (!keep_files) {
        discard(partial);
    }
}

// Stopped while its metadata was being written: durable means completed, though its attempt is
// gone (the next one commits it on restore).
void CheckpointCoordinator::decide_settling(int64_t checkpoint_id, bool ok, bool keep_files) {
    PendingCheckpoint& decided = checkpoints_.at(checkpoint_id);
    CompletedCheckpoint checkpoint = ok ? decided.complete() : decided.abort();
    checkpoints_.erase(checkpoint_id);
    if (ok) {
        finish_completion(std::move(checkpoint), false);
    } else {
        if (!keep_files) discard(checkpoint);
        report_aborted(checkpoint_id, CheckpointFailureReason::finalize_checkpoint_failure,
                       "checkpoint metadata could not be written");
    }
    if (!settling()) settled_();
}

void CheckpointCoordinator::complete(int64_t checkpoint_id) {
    PendingCheckpoint& pending = in_progress_at(checkpoint_id);
    gateway_.world().scheduler().cancel(pending.timeout());
    const SnapshotType snapshot = pending.snapshot();
    const int32_t user_request = pending.user_request();
    CompletedCheckpoint checkpoint = pending.complete();
    checkpoints_.erase(checkpoint_id);
    if (snapshot.is_savepoint()) {
        gateway_.savepoint_completed(user_request, checkpoint);
        ++gateway_.stats().savepoints_completed;
        gateway_.world().announce(points::kSavepointCompleted, node_, checkpoint_id);
        EOSIM_INVARIANT(gateway_.world().nodes().is_up(node_),
                        "no code runs on a crashed node after an announcement (sim/scheduler.h)");
    }
    if (snapshot.is_savepoint() && !snapshot.terminates()) {
        finish_savepoint(std::move(checkpoint), user_request);
        run_queued();
        return;
    }
    // Completing N subsumes every older pending checkpoint (a savepoint is never subsumed).
    std::vector<int64_t> subsumed;
    for (const auto& [id, p] : checkpoints_) {
        if (p.in_progress() && id < checkpoint_id && !p.snapshot().is_savepoint())
            subsumed.push_back(id);
    }
    for (int64_t id : subsumed) {
        abort_pending(id, CheckpointFailureReason::checkpoint_subsumed,
                      "subsumed by checkpoint " + std::to_string(checkpoint_id));
    }
    finish_completion(std::move(checkpoint), true);
    run_queued();
}

void CheckpointCoordinator::finish_completion(CompletedCheckpoint checkpoint, bool notify) {
    const int64_t checkpoint_id = checkpoint.id;
    for (const CompletedCheckpoint& gone : retention_.add(std::move(checkpoint)))
        discard_completed(gone);
    if (config_.retention_discards_savepoints) {
        for (const CompletedCheckpoint& savepoint : retention_.subsumed_savepoints())
            cleaner_.discard_files(savepoint, false);
    }
    failures_.success(checkpoint_id);
    const CompletedCheckpoint& completed = *latest();
    gateway_.stats().shared_bytes_uploaded += completed.shared_bytes_uploaded;
    gateway_.stats().shared_bytes_referenced += completed.shared_bytes_referenced;
    last_completion_ = gateway_.world().now();
    ++gateway_.stats().checkpoints_completed;
    gateway_.observer().checkpoint_completed(gateway_.world().now(), checkpoint_id,
                                             completed.offsets);
    gateway_.world().announce(points::kCheckpointCompleted, node_, checkpoint_id);
    if (!notify) return;
    const int64_t attempt = attempt_;
    for (sim::NodeId tm : nodes_running()) {
        gateway_.notify_checkpoint_complete(node_, tm, attempt, checkpoint_id);
    }
}

void CheckpointCoordinator::finish_savepoint(CompletedCheckpoint savepoint,
                                             int32_t /*user_request*/) {
    failures_.success(savepoint.id);
    gateway_.observer().checkpoint_completed(gateway_.world().now(), savepoint.id,
                                             savepoint.offsets);
    if (config_.retention_discards_savepoints) retention_.hold_savepoint(std::move(savepoint));
}

void CheckpointCoordinator::savepoint_failed(SnapshotType snapshot, int32_t user_request,
                                             const std::string& detail) {
    savepoints_requested_.erase(user_request);
    if (!running_) return;  // stopped: the next attempt asks again
    if (snapshot.terminates()) {
        fail_job_("stop-with-savepoint failed: " + detail);
    } else {
        request_savepoint(user_request, snapshot);
    }
}

}  // namespace eosim::engine
