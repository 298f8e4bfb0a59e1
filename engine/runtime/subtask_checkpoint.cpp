#include "engine/runtime/subtask_checkpoint.h"

#include <algorithm>

#include "engine/connectors/sink_registry.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {

// What a task state blob keeps of the in-flight records (channel_state_writer.h): their timestamps
// where something reads them, and their source identity where a sink names records by it.
ChannelRecordFields channel_record_fields_of(const JobSpec& job) {
    for (const VertexSpec& v : job.vertices) {
        if (v.kind == OperatorKind::sink && v.sink && !v.sink->source_identity_option().empty()) {
            return ChannelRecordFields::with_timestamp_and_source_id;
        }
    }
    return job.reads_timestamps() ? ChannelRecordFields::with_timestamp
                                  : ChannelRecordFields::key_value;
}

}  // namespace

bool SubtaskCheckpoint::trigger(int64_t checkpoint_id, SnapshotType snapshot_type,
                                sim::Time started) {
    note_checkpoint(checkpoint_id, snapshot_type, started);
    // A finished source snapshots a savepoint (its splits at their end), without a barrier.
    const bool finished_savepoint = task_.finished() && snapshot_type.is_savepoint();
    if (!task_.running() && !finished_savepoint) {
        decline(checkpoint_id, CheckpointFailureReason::checkpoint_declined_task_not_ready,
                "task not running");
        return false;
    }
    if (checkpoint_id <= last_barrier_forwarded_) {
        // A trigger that a newer one overtook (a slow link delays datagrams unevenly): Flink's
        // SubtaskCheckpointCoordinatorImpl.checkpointState skips an out-of-order checkpoint
        // ("aborted previously?") without a snapshot; the newer one subsumes it.
        return false;
    }
    if (aborted_ahead_.contains(checkpoint_id)) {
        // The abort notice overtook the trigger: skip the snapshot, tell downstream in-band.
        aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
        send_cancellation_marker(checkpoint_id);
        return false;
    }
    aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
    first_barrier_at_ = task_.world().now();
    // Sources have no input channels: an unaligned checkpoint's channel state is what the barrier
    // overtook on the outputs, complete at once.
    const bool unaligned =
        !finished_savepoint && task_.channel_state_possible() &&
        task_.engine().job().checkpointing.aligned_checkpoint_timeout == sim::Duration::zero();
    if (!snapshot(checkpoint_id, unaligned)) return false;
    if (unaligned) {
        finish_unaligned(checkpoint_id);
    } else {
        finish_aligned(checkpoint_id);
    }
    return true;
}

void SubtaskCheckpoint::aborted(int64_t checkpoint_id) {
    if (checkpoint_id > last_barrier_forwarded_) aborted_ahead_.insert(checkpoint_id);
}

void SubtaskCheckpoint::first_barrier_arrived() { first_barrier_at_ = task_.world().now(); }

sim::Time SubtaskCheckpoint::started(int64_t checkpoint_id) const {
    auto it = started_.find(checkpoint_id);
    return it == started_.end() ? task_.world().now() : it->second;
}

SnapshotType SubtaskCheckpoint::snapshot_type(int64_t checkpoint_id) const {
    auto it = savepoints_seen_.find(checkpoint_id);
    return it == savepoints_seen_.end() ? SnapshotType{} : it->second;
}

void SubtaskCheckpoint::note_checkpoint(int64_t checkpoint_id, SnapshotType snapshot,
                                        sim::Time started) {
    if (snapshot.is_savepoint()) savepoints_seen_[checkpoint_id] = snapshot;
    if (checkpoint_id > last_barrier_forwarded_) started_.emplace(checkpoint_id, started);
}

bool SubtaskCheckpoint::done_after(int64_t completed_checkpoint) const {
    const bool stopped = stop_savepoint_ != 0 && completed_checkpoint >= stop_savepoint_;
    return stopped || (task_.end_of_data() && end_of_data_checkpoint_ != 0 &&
                       completed_checkpoint >= end_of_data_checkpoint_);
}

void SubtaskCheckpoint::take_aligned(int64_t checkpoint_id) {
    if (!snapshot(checkpoint_id, false)) return;
    finish_aligned(checkpoint_id);
}

bool SubtaskCheckpoint::snapshot(int64_t checkpoint_id, bool unaligned) {
    EOSIM_INVARIANT(checkpoint_id > last_barrier_forwarded_,
                    "a task snapshots each checkpoint once, in increasing order");
    last_barrier_at_ = task_.world().now();
    snapshot_taken_ = last_barrier_at_;
    OperatorSnapshot captured;
    std::string error;
    if (!task_.chain().snapshot_state(checkpoint_id, snapshot_type(checkpoint_id), &captured,
                                      &error)) {
        decline(checkpoint_id, CheckpointFailureReason::checkpoint_declined, error);
        task_.fail(error);
        return false;
    }
    if (captured.incremental) upload_.prepare(checkpoint_id, std::move(*captured.incremental));
    if (task_.carries_watermark())
        snapshot_watermarks_[checkpoint_id] = task_.inputs().valve()->current();
    task_.announce(points::kTaskSnapshotted, checkpoint_id);
    if (task_.end_of_data() && end_of_data_checkpoint_ == 0) {
        end_of_data_checkpoint_ = checkpoint_id;
        task_.announce(points::kTaskFinalSnapshot, checkpoint_id);
    }
    last_barrier_forwarded_ = std::max(last_barrier_forwarded_, checkpoint_id);
    barrier_send_
        .discard();  // an older snapshot still waiting for its barrier to leave was aborted
    snapshot_operator_state_ = std::move(captured.state);
    snapshot_offsets_ = std::move(captured.offsets);
    if (snapshot_type(checkpoint_id).terminates()) stop_savepoint_ = checkpoint_id;
    ChannelElement barrier{ChannelElement::Type::barrier, checkpoint_id, {}};
    barrier.snapshot = snapshot_type(checkpoint_id);
    barrier.checkpoint_started = started(checkpoint_id);
    started_.erase(started_.begin(), started_.upper_bound(checkpoint_id));
    snapshot_started_ = barrier.checkpoint_started;
    if (task_.finished()) return true;  // it sent end of partition: no barrier follows
    if (!unaligned) {
        task_.writer().broadcast(std::move(barrier));
        return true;
    }
    // The barrier overtakes every queued output buffer (the open one sealed first); they become the
    // output channel state, and are still sent, after the barrier.
    channel_state_.start(checkpoint_id, task_.inputs().size(), task_.writer().size());
    task_.writer().send_barrier_ahead(barrier, channel_state_);
    return true;
}

void SubtaskCheckpoint::start_unaligned(int64_t checkpoint_id,
                                        const std::vector<bool>& barrier_in) {
    if (!snapshot(checkpoint_id, true)) return;
    TaskInputs& inputs = task_.inputs();
    for (size_t c = 0; c < inputs.size(); ++c) {
        const auto channel = static_cast<int32_t>(c);
        // A channel whose barrier arrived in order (it was blocked) holds only data after it; one
        // whose barrier overtook its queue holds data before it; every other channel records until
        // its barrier, starting with what is queued (up to a barrier of this checkpoint, if
        // queued).
        if (barrier_in[c] && channel != inputs.overtaking_channel()) continue;
        inputs.persist_queued(channel, checkpoint_id, channel_state_);
        channel_state_.set_recording(channel, !barrier_in[c]);
    }
}

void SubtaskCheckpoint::channel_barrier_received(int32_t channel) {
    last_barrier_at_ = task_.world().now();
    if (channel_state_.active()) channel_state_.set_recording(channel, false);
}

void SubtaskCheckpoint::finish_unaligned(int64_t checkpoint_id) {
    if (channel_state_.checkpoint_id() != checkpoint_id) return;  // the snapshot failed (a sink)
    last_barrier_at_ = task_.world().now();
    const ChannelState channels = channel_state_.take();
    operator_state_size_ = snapshot_operator_state_.size();
    upload_snapshot(checkpoint_id,
                    encode_task_state(snapshot_operator_state_, channels,
                                      channel_record_fields_of(task_.engine().job())),
                    snapshot_offsets_, true);
}

void SubtaskCheckpoint::discard_unaligned(int64_t checkpoint_id) {
    if (channel_state_.checkpoint_id() == checkpoint_id) channel_state_.discard();
}

// An aligned snapshot goes to storage at once, except with an aligned-checkpoint timeout: then it
// waits until its barrier left every output queue.
void SubtaskCheckpoint::finish_aligned(int64_t checkpoint_id) {
    const sim::Duration timeout = task_.engine().job().checkpointing.aligned_checkpoint_timeout;
    if (!task_.channel_state_possible() || timeout == sim::Duration::zero() ||
        task_.writer().empty()) {
        upload_snapshot(checkpoint_id, std::move(snapshot_operator_state_), snapshot_offsets_,
                        false);
        return;
    }
    barrier_send_.start(checkpoint_id, 0, task_.writer().size());
    barrier_overtook_ = false;
    barrier_send_state_ = std::move(snapshot_operator_state_);
    barrier_send_offsets_ = snapshot_offsets_;
    // As on the input side, the timeout counts from the checkpoint's start (Flink's
    // BarrierAlignmentUtil.getTimerDelay): a barrier already past it overtakes the queue at once.
    const sim::Duration left =
        std::max(timeout - (task_.world().now() - snapshot_started_), sim::Duration::zero());
    task_.engine().schedule_for_task(
        task_.node(), task_.key(), left, kAlignmentTimer, [checkpoint_id](Task& task) {
            if (task.running()) task.checkpoint().overtake_queued_barriers(checkpoint_id);
        });
    upload_when_barrier_sent();
}

void SubtaskCheckpoint::barrier_sent() {
    if (barrier_send_.active()) upload_when_barrier_sent();
}

// The synchronous part ended at the snapshot; this wait for the barrier is the asynchronous part's
// (Flink's AsyncCheckpointRunnable waits for the output channel state). A barrier that left every
// queue in order keeps the snapshot aligned; one that overtook a queue makes it unaligned here.
void SubtaskCheckpoint::upload_when_barrier_sent() {
    const int64_t checkpoint_id = barrier_send_.checkpoint_id();
    if (checkpoint_id == 0 || task_.writer().barrier_queued(checkpoint_id)) return;
    const ChannelState channels = barrier_send_.take();
    sync_end_ = snapshot_taken_;
    if (!barrier_overtook_) {
        upload_snapshot(checkpoint_id, std::move(barrier_send_state_), barrier_send_offsets_,
                        false);
        return;
    }
    operator_state_size_ = barrier_send_state_.size();
    upload_snapshot(checkpoint_id,
                    encode_task_state(barrier_send_state_, channels,
                                      channel_record_fields_of(task_.engine().job())),
                    barrier_send_offsets_, true);
}

void SubtaskCheckpoint::overtake_queued_barriers(int64_t checkpoint_id) {
    if (barrier_send_.checkpoint_id() != checkpoint_id ||
        task_.engine().job().checkpointing.queued_barriers_wait)
        return;
    // Set first: sending the moved barrier calls back into upload_when_barrier_sent.
    barrier_overtook_ = task_.writer().barrier_queued(checkpoint_id);
    task_.writer().overtake_queued_barrier(checkpoint_id, barrier_send_);
    upload_when_barrier_sent();
}

void SubtaskCheckpoint::decline(int64_t checkpoint_id, CheckpointFailureReason reason,
                                const std::string& detail) {
    send_decline(task_.engine(), task_.node(), task_.key(), checkpoint_id, reason, detail);
    send_cancellation_marker(checkpoint_id);
}

// Flink's CancelCheckpointMarker: a task that declines a checkpoint before forwarding its barrier
// tells its downstream tasks in-band, so that they stop aligning for a barrier that never comes.
void SubtaskCheckpoint::send_cancellation_marker(int64_t checkpoint_id) {
    if (!task_.running() || checkpoint_id <= last_barrier_forwarded_ ||
        checkpoint_id <= last_cancellation_sent_ || task_.writer().empty()) {
        return;
    }
    last_cancellation_sent_ = checkpoint_id;
    task_.writer().broadcast(
        ChannelElement{ChannelElement::Type::cancellation_marker, checkpoint_id, {}});
}

void SubtaskCheckpoint::upload_snapshot(int64_t checkpoint_id, std::string blob,
                                        const SourceOffsets& offsets, bool unaligned) {
    TaskCheckpointStats stats;
    stats.checkpoint_id = checkpoint_id;
    stats.vertex = task_.vertex().id;
    stats.subtask = task_.key().subtask;
    stats.first_barrier_at = first_barrier_at_;
    stats.alignment =
        task_.inputs().empty() ? sim::Duration::zero() : last_barrier_at_ - first_barrier_at_;
    stats.unaligned = unaligned;
    stats.sync_end = sync_end_;
    sync_end_.reset();
    stats.after_alignment_timeout =
        unaligned &&
        task_.engine().job().checkpointing.aligned_checkpoint_timeout > sim::Duration::zero();
    stats.operator_state_bytes =
        static_cast<int64_t>(unaligned ? operator_state_size_ : blob.size());
    if (!unaligned && task_.channel_state_possible()) {
        blob =
            encode_task_state(blob, ChannelState{}, channel_record_fields_of(task_.engine().job()));
    }
    if (unaligned)
        stats.channel_state_bytes = static_cast<int64_t>(blob.size()) - stats.operator_state_bytes;
    if (const SharedStateReport* shared = upload_.shared_report(checkpoint_id)) {
        stats.shared_bytes_uploaded = shared->bytes_uploaded;
        stats.shared_bytes_referenced = shared->bytes_referenced;
    }
    task_.observer().task_checkpoint_stats(task_.world().now(), stats);
    upload_.upload(checkpoint_id, std::move(blob), offsets, unaligned);
}

std::string SubtaskCheckpoint::with_watermark(int64_t checkpoint_id, std::string blob) {
    auto it = snapshot_watermarks_.find(checkpoint_id);
    const int64_t watermark = it == snapshot_watermarks_.end() ? kMinWatermark : it->second;
    if (it != snapshot_watermarks_.end())
        snapshot_watermarks_.erase(snapshot_watermarks_.begin(), std::next(it));
    return prepend_watermark(watermark, std::move(blob));
}

}  // namespace eosim::engine
