#pragma once
// The catalogue of protocol points the engine announces through `sim::World::announce`, so that a
// scenario can place a fault exactly there ("crash the announcing node at the 3rd occurrence of
// sink.precommitted"). `detail` is the checkpoint id unless said otherwise. Announced before the
// step's effects go out, unless said otherwise: a crash placed there loses them.
//
// Also read by scenarios/: random schedules place faults at these points (a crash "at the
// announcer" needs to know who announces: kJobManagerPoints), and coverage (scenarios/coverage.h)
// derives its phases from them -- sink.precommitted..sink.committed, checkpoint.completed..
// checkpoint.notified, failover.started..job.running, barrier.alignment_started..task.snapshotted,
// window.fired..checkpoint.completed.
#include <string_view>

#include "engine/vocabulary/sink_point_names.h"

namespace eosim::engine::points {

// JobManager
inline constexpr std::string_view kCheckpointTriggered =
    "checkpoint.triggered";  // triggers not yet sent
inline constexpr std::string_view kCheckpointAcknowledged =
    "checkpoint.acknowledged";  // all acks in, metadata not yet written
inline constexpr std::string_view kCheckpointCompleted =
    "checkpoint.completed";  // metadata durable, notifications not yet sent
inline constexpr std::string_view kCheckpointAborted =
    "checkpoint.aborted";  // notifications of the abort not yet sent
inline constexpr std::string_view kFailoverStarted = "failover.started";  // detail: the new attempt
inline constexpr std::string_view kJobRunning =
    "job.running";  // detail: attempt; every task started
inline constexpr std::string_view kJobFinished = "job.finished";  // detail: attempt
// Incremental state (engine/checkpointing/shared_state_registry.h)
inline constexpr std::string_view kSharedStateRegistered =
    "shared_state.registered";  // an ack's shared files counted (after the fact)
inline constexpr std::string_view kSharedStateDiscarded =
    "shared_state.discarded";  // unreferenced shared files, not yet deleted; detail: how many
inline constexpr std::string_view kSavepointCompleted =
    "savepoint.completed";  // savepoint metadata durable, not yet reported (stop: not yet notified)
inline constexpr std::string_view kStopWithSavepointTriggered =
    "stop_with_savepoint.triggered";  // the final savepoint's triggers not yet sent
// JobManager high availability (announced only with it)
inline constexpr std::string_view kCheckpointMetadataWritten =
    "checkpoint.metadata_written";  // metadata durable, its pointer not yet added to the
                                    // completed-checkpoint store
inline constexpr std::string_view kLeadershipGranted =
    "leadership.granted";  // detail: the fencing token; nothing recovered yet
inline constexpr std::string_view kLeadershipLost =
    "leadership.lost";  // detail: the fencing token; the process is about to be replaced

// TaskManager (announced by the node running the task)
inline constexpr std::string_view kTaskRestoring =
    "task.restoring";  // state read, not yet applied; detail: restored checkpoint (0: none)
inline constexpr std::string_view kTaskRestoringRescaled =
    "task.restoring_rescaled";  // as task.restoring, from a snapshot taken at another parallelism;
                                // detail: that parallelism
inline constexpr std::string_view kSourceStoppedForSavepoint =
    "stop_with_savepoint.source_stopped";  // a source snapshotted the final savepoint and stops
                                           // reading; end of input (drain) not yet sent
inline constexpr std::string_view kAlignmentStarted =
    "barrier.alignment_started";  // first barrier of a checkpoint at a task with several inputs
inline constexpr std::string_view kTaskSnapshotted =
    "task.snapshotted";  // state captured, barrier not yet forwarded
inline constexpr std::string_view kCheckpointNotified =
    "checkpoint.notified";  // notifyCheckpointComplete reached the TaskManager, tasks not yet told
// The sink points are public (engine/connectors/sink_points.h): a user's sink announces them too.
inline constexpr std::string_view kSinkPrecommitted =
    sink_points::kPrecommitted;  // transaction flushed and in the snapshot, not committed
inline constexpr std::string_view kSinkCommitted =
    sink_points::kCommitted;  // a transaction of this checkpoint committed (after the fact)
inline constexpr std::string_view kSinkRecovered =
    sink_points::kRecovered;  // restored transactions committed, lingering ones aborted (after the
                              // fact)
inline constexpr std::string_view kChannelStatePersisted =
    "task.channel_state_persisted";  // unaligned: operator and channel state durable, ack not yet
                                     // sent
inline constexpr std::string_view kChannelStateReplaying =
    "task.replaying_channel_state";  // a restored task holds recovered in-flight data, not yet
                                     // replayed; detail: restored checkpoint
inline constexpr std::string_view kTaskEndOfData =
    "task.end_of_data";  // a task read the end of all its input, end_of_data not yet sent on;
                         // detail: the latest checkpoint it took part in
inline constexpr std::string_view kTaskFinalSnapshot =
    "task.final_snapshot";  // a task snapshotted its final checkpoint (the first after its end of
                            // data), barrier not yet forwarded
inline constexpr std::string_view kTaskFinished =
    "task.finished";  // a task finished (FLIP-147): end of partition sent through every output, the
                      // JobManager not yet told; detail: the latest checkpoint it heard completed
// A window operator (engine/runtime/window_operator.h) fired a window: its result emitted to the
// task's output (after the fact; not yet in any checkpoint or sink). Detail: the window's
// maxTimestamp (count windows: the result's timestamp).
inline constexpr std::string_view kWindowFired = "window.fired";
inline constexpr std::string_view kSinkFlushed =
    sink_points::kFlushed;  // an upsert sink's batch committed in the database (after the fact);
                            // detail: rows
// The CDC source (engine/connectors/cdc_source.h); detail: the chunk index unless noted.
inline constexpr std::string_view kCdcChunkStarted =
    "cdc.chunk_started";  // low watermark taken, no row read yet
inline constexpr std::string_view kCdcChunkFinished =
    "cdc.chunk_finished";  // rows corrected to the high watermark and emitted (after the fact)
inline constexpr std::string_view kCdcSnapshotFinished =
    "cdc.snapshot_finished";  // a subtask's last chunk done, binlog reading not yet started;
                              // detail: subtask
inline constexpr std::string_view kCdcBinlogCheckpointed =
    "cdc.binlog_checkpointed";  // a completed checkpoint holds this subtask's binlog position
                                // (after the fact)

// Every point, for documentation, validation and coverage tables.
inline constexpr std::string_view kAll[] = {
    kCheckpointTriggered,
    kCheckpointAcknowledged,
    kCheckpointCompleted,
    kCheckpointAborted,
    kFailoverStarted,
    kJobRunning,
    kJobFinished,
    kCheckpointMetadataWritten,
    kLeadershipGranted,
    kLeadershipLost,
    kTaskRestoring,
    kAlignmentStarted,
    kTaskSnapshotted,
    kCheckpointNotified,
    kSinkPrecommitted,
    kSinkCommitted,
    kSinkRecovered,
    kChannelStatePersisted,
    kChannelStateReplaying,
    kSinkFlushed,
    kCdcChunkStarted,
    kCdcChunkFinished,
    kCdcSnapshotFinished,
    kCdcBinlogCheckpointed,
    kTaskEndOfData,
    kTaskFinalSnapshot,
    kTaskFinished,
    kSavepointCompleted,
    kStopWithSavepointTriggered,
    kTaskRestoringRescaled,
    kSourceStoppedForSavepoint,
    kSharedStateRegistered,
    kSharedStateDiscarded,
    kWindowFired,
};

// The points the JobManager announces; every other point is announced by a TaskManager.
inline constexpr std::string_view kJobManagerPoints[] = {
    kCheckpointTriggered,   kCheckpointAcknowledged,    kCheckpointCompleted,
    kCheckpointAborted,     kFailoverStarted,           kJobRunning,
    kJobFinished,           kCheckpointMetadataWritten, kLeadershipGranted,
    kLeadershipLost,        kSavepointCompleted,        kStopWithSavepointTriggered,
    kSharedStateRegistered, kSharedStateDiscarded,
};

}  // namespace eosim::engine::points
