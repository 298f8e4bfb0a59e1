#pragma once
// A subtask's checkpoint work (Flink's SubtaskCheckpointCoordinator): take a snapshot when the
// trigger (a source) or the barriers (every other task) say so, forward the barrier, collect the
// channel state of an unaligned checkpoint, hand the state to the asynchronous upload
// (checkpoint_upload.h), which acknowledges it; decline a checkpoint and tell the downstream tasks
// in-band (a cancellation marker).
//
// Aligned barriers go on after the queued output buffers; an unaligned one ahead of them, and the
// buffers it overtook become output channel state. With an aligned-checkpoint timeout an aligned
// snapshot waits until its barrier left every output queue; a barrier still queued when the
// timeout fires is sent on as unaligned, ahead of the buffers it overtakes, which join the
// snapshot as output channel state (Flink times out aligned barriers on the output side too); a
// barrier that left every queue in time keeps the snapshot aligned. The wait is the asynchronous
// part's: the synchronous part ends at the snapshot.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/checkpointing/channel_state_writer.h"
#include "engine/runtime/checkpoint_upload.h"
#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace eosim::engine {

// The event of both alignment timers: the input side's (Task::start_alignment_timer) and the
// aligned checkpoint timeout on the output side (SubtaskCheckpoint::finish_aligned).
inline constexpr sim::EventKind kAlignmentTimer{"task.alignment_timer"};

class Task;

class SubtaskCheckpoint {
public:
    explicit SubtaskCheckpoint(Task& task) : task_(task), upload_(task) {}

    // A source's trigger: snapshot and send the barrier on. False when nothing was snapshotted
    // (declined, or aborted before the trigger came).
    bool trigger(int64_t checkpoint_id, SnapshotType snapshot, sim::Time started);
    // Every barrier arrived (aligned): snapshot and send the barrier on.
    void take_aligned(int64_t checkpoint_id);
    // The first barrier of an unaligned checkpoint: snapshot, send the barrier ahead, and persist
    // every input channel's buffers up to its barrier (`barrier_in[c]`: it already arrived).
    void start_unaligned(int64_t checkpoint_id, const std::vector<bool>& barrier_in);
    void channel_barrier_received(int32_t channel);
    void finish_unaligned(int64_t checkpoint_id);
    void discard_unaligned(int64_t checkpoint_id);
    // The output-side alignment timer of `checkpoint_id` fired (set for what is left of the
    // aligned-checkpoint timeout, counted from the checkpoint's start).
    void overtake_queued_barriers(int64_t checkpoint_id);
    // A barrier left an output queue.
    void barrier_sent();
    // Declines to the coordinator and tells the downstream tasks in-band.
    void decline(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail);
    // A source heard `checkpoint_id` aborted: when its trigger comes, it is skipped.
    void aborted(int64_t checkpoint_id);

    // The first barrier of a checkpoint reached the task's inputs.
    void first_barrier_arrived();
    // The snapshot type of checkpoint `id` as its trigger or barrier said (a checkpoint unless
    // noted).
    SnapshotType snapshot_type(int64_t checkpoint_id) const;
    // What a trigger or a barrier tells of checkpoint `id`: its type and when it started.
    void note_checkpoint(int64_t checkpoint_id, SnapshotType snapshot, sim::Time started);
    // The input channel state being recorded (unaligned checkpoints).
    ChannelStateWriter& channel_state() { return channel_state_; }
    CheckpointUpload& upload() { return upload_; }
    // The final savepoint of a stop-with-savepoint was snapshotted: the task reads nothing more.
    bool stopped() const { return stop_savepoint_ != 0; }
    // The task is done once `completed_checkpoint` completed (its stop-with-savepoint, or the
    // first checkpoint after its end of data).
    bool done_after(int64_t completed_checkpoint) const;
    int64_t last_barrier_forwarded() const { return last_barrier_forwarded_; }
    // A checkpointed task state with the input watermark at its snapshot in front.
    std::string with_watermark(int64_t checkpoint_id, std::string blob);

private:
    // Captures the operator state and forwards the barrier (aligned: after the queued buffers;
    // unaligned: ahead of them, which become output channel state). False when the sink failed.
    bool snapshot(int64_t checkpoint_id, bool unaligned);
    void finish_aligned(int64_t checkpoint_id);
    void upload_when_barrier_sent();
    void send_cancellation_marker(int64_t checkpoint_id);
    // When checkpoint `id` started, as its trigger or first barrier said (now when neither did).
    sim::Time started(int64_t checkpoint_id) const;
    // The synchronous part's end: statistics, then the upload.
    void upload_snapshot(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets,
                         bool unaligned);

    Task& task_;
    CheckpointUpload upload_;
    int64_t last_barrier_forwarded_ = 0;  // the newest checkpoint this task snapshotted
    int64_t last_cancellation_sent_ = 0;  // the newest checkpoint declined downstream in-band
    std::set<int64_t> aborted_ahead_;     // sources: aborted before their trigger arrived
    std::map<int64_t, SnapshotType> savepoints_seen_;  // savepoint barriers and triggers, by id
    // When each checkpoint seen and not yet snapshotted started (the coordinator's trigger time):
    // the barriers this task sends carry it, and the aligned-checkpoint timeout counts from it.
    std::map<int64_t, sim::Time> started_;
    int64_t stop_savepoint_ =
        0;  // the final savepoint of a stop-with-savepoint this task snapshotted
    int64_t end_of_data_checkpoint_ = 0;  // first checkpoint taken after end of data
    // The snapshot being taken: its operator state (kept until an unaligned one has its channel
    // state).
    ChannelStateWriter channel_state_;
    std::string snapshot_operator_state_;
    SourceOffsets snapshot_offsets_;
    // Checkpoint statistics of the snapshot in progress.
    sim::Time first_barrier_at_;
    sim::Time last_barrier_at_;
    sim::Time snapshot_started_;  // when the checkpoint of the snapshot in progress started
    size_t operator_state_size_ = 0;
    // Aligned-checkpoint timeout: an aligned snapshot waiting for its barrier to leave the outputs.
    ChannelStateWriter barrier_send_;
    std::string barrier_send_state_;
    bool barrier_overtook_ = false;  // the timeout moved its barrier ahead of queued buffers
    sim::Time snapshot_taken_;       // when the snapshot in progress captured the operator state
    std::optional<sim::Time> sync_end_;  // the synchronous part's end, when before the upload
    SourceOffsets barrier_send_offsets_;
    std::map<int64_t, int64_t>
        snapshot_watermarks_;  // checkpoint id -> input watermark at the snapshot
};

}  // namespace eosim::engine
