#pragma once
// What the engine tells the harness as it runs: the narrow view that oracles and reports get of
// the engine's inside. Observing never changes behaviour; every method defaults to nothing.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/record.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/time.h"

namespace eosim::engine {

struct StateKey;  // engine/state/state_backend.h (not a public header: a cell is named here, never
                  // looked into)

// (topic, partition) -> the next offset to read: the input prefix a checkpoint covers.
using SourceOffsets = std::map<std::pair<std::string, int32_t>, int64_t>;

// Records a restored task replays before any new data: channel state on the edge from -> to.
struct InFlightRecords {
    std::string from_vertex;
    std::string to_vertex;  // the vertex that will process them
    RecordBatch records;
};

// What a task tells about its part of a checkpoint when it sends the state to storage.
struct TaskCheckpointStats {
    int64_t checkpoint_id = 0;
    std::string vertex;
    int32_t subtask = 0;
    sim::Time first_barrier_at;  // sources: when the trigger arrived
    sim::Duration alignment =
        sim::Duration::zero();  // first barrier to last barrier (0 for sources)
    // The synchronous part's end when it came before these stats (a snapshot whose barrier waited
    // in an output queue: the asynchronous part waits for its channel state); unset: at the stats'
    // time.
    std::optional<sim::Time> sync_end;
    int64_t operator_state_bytes = 0;
    int64_t channel_state_bytes = 0;
    bool unaligned = false;
    bool after_alignment_timeout =
        false;  // unaligned because its aligned-checkpoint timeout passed
    // Incremental keyed state: shared-file bytes this snapshot uploads, and those it refers to.
    int64_t shared_bytes_uploaded = 0;
    int64_t shared_bytes_referenced = 0;
};

// Where a subtask of an attempt runs: its TaskManager's node name and its slot there.
struct SubtaskPlacement {
    std::string vertex;
    int32_t subtask = 0;
    std::string task_manager;
    int32_t slot = 0;
};

class RunObserver {
public:
    virtual ~RunObserver() = default;
    // `type`: a periodic checkpoint, a savepoint or the final savepoint of a stop-with-savepoint.
    virtual void checkpoint_triggered(sim::Time, int64_t /*checkpoint_id*/, SnapshotType /*type*/) {
    }
    virtual void checkpoint_completed(sim::Time, int64_t /*checkpoint_id*/, const SourceOffsets&) {}
    // `detail` says what happened (which task declined, and why).
    virtual void checkpoint_aborted(sim::Time, int64_t /*checkpoint_id*/,
                                    CheckpointFailureReason /*reason*/,
                                    const std::string& /*detail*/) {}
    // A new attempt restores from `checkpoint_id` (0: from scratch) whose sources were at
    // `offsets`.
    virtual void restore_started(sim::Time, int64_t /*attempt*/, int64_t /*checkpoint_id*/,
                                 const SourceOffsets&) {}
    // The JobManager deployed attempt `attempt` (right after restore_started): every subtask's
    // TaskManager and slot (engine/runtime/slot_placement.h), vertex by vertex in subtask order.
    virtual void attempt_deployed(sim::Time, int64_t /*attempt*/,
                                  const std::vector<SubtaskPlacement>& /*placement*/) {}
    // One subtask of a keyed vertex applied its restored keyed state.
    virtual void keyed_state_restored(sim::Time, int64_t /*attempt*/, const std::string& /*vertex*/,
                                      int32_t /*subtask*/,
                                      const std::map<int64_t, int64_t>& /*state*/) {}
    // One subtask of a join restored its keyed state: every cell (both sides' rows), after
    // keyed_state_restored (whose key -> value view holds none of them).
    virtual void keyed_cells_restored(sim::Time, int64_t /*attempt*/, const std::string& /*vertex*/,
                                      int32_t /*subtask*/,
                                      const std::map<StateKey, int64_t>& /*cells*/) {}
    // One subtask of any vertex restored from a checkpoint (id > 0): the in-flight records it will
    // replay before any new data, by edge (input channel state: into its own vertex; output
    // channel state: toward the consumer). Empty when the checkpoint was aligned.
    virtual void channel_state_restored(sim::Time, int64_t /*attempt*/,
                                        const std::string& /*vertex*/, int32_t /*subtask*/,
                                        const std::vector<InFlightRecords>& /*in_flight*/) {}
    virtual void task_checkpoint_stats(sim::Time, const TaskCheckpointStats&) {}
    // The subtask's state of `checkpoint_id` is in storage and its acknowledgement on the way: the
    // end of the checkpoint's asynchronous part (Flink's AsyncCheckpointRunnable) for that subtask.
    virtual void task_checkpoint_acknowledged(sim::Time, int64_t /*checkpoint_id*/,
                                              const std::string& /*vertex*/, int32_t /*subtask*/) {}
    virtual void failover(sim::Time, int64_t /*new_attempt*/, const std::string& /*reason*/) {}
    virtual void transaction_event(sim::Time, const std::string& /*transactional_id*/,
                                   const char* /*what*/) {}
    // A sink could not commit a transaction it had pre-committed: its records are lost.
    virtual void likely_data_loss(sim::Time, const std::string& /*transactional_id*/,
                                  const std::string& /*why*/) {}
    // A connector's own step, for the timeline: a span from `begin` to `end` (an instant when
    // equal) on the lane `lane` (e.g. "cdc source-0": a snapshot chunk read, the switch to the
    // binlog; "upsert sink-1": a batch written).
    virtual void connector_event(sim::Time /*begin*/, sim::Time /*end*/,
                                 const std::string& /*lane*/, const std::string& /*what*/,
                                 const std::string& /*detail*/) {}
    // Event time: the watermark a subtask holds advanced (a source's output watermark; any other
    // task's input watermark, also when restored). Only in jobs with a watermark strategy.
    virtual void watermark_advanced(sim::Time, int64_t /*attempt*/, const std::string& /*vertex*/,
                                    int32_t /*subtask*/, int64_t /*watermark*/) {}
    // The JobManager lost its leadership (high availability): the job is suspended until a new
    // leader recovers it (Flink's JobStatus.SUSPENDED).
    virtual void job_suspended(sim::Time, const std::string& /*why*/) {}
    // The JobManager that ran the job is gone (with HA: the leader): its process crashed, or it
    // lost its leadership. `attempt`: the attempt it ran last. Checkpoints it had in flight can no
    // longer complete; a new JobManager (a restarted process, a new leader) recovers the job. A
    // standby's loss, or one after the job ended, is not told.
    virtual void job_manager_lost(sim::Time, int64_t /*attempt*/, const std::string& /*why*/) {}
    // A source subtask read `records` (> 0) records, which it emits now.
    virtual void source_read(sim::Time, int64_t /*attempt*/, const std::string& /*vertex*/,
                             int32_t /*subtask*/, int64_t /*records*/) {}
    // A source subtask took the trigger of a stop-with-savepoint's final savepoint at `position`
    // (the next offset of each split it reads): from here on it reads and emits nothing (Flink
    // suspends the sources with that barrier).
    virtual void source_stopped_for_savepoint(sim::Time, int64_t /*attempt*/,
                                              const std::string& /*vertex*/, int32_t /*subtask*/,
                                              int64_t /*savepoint_id*/,
                                              const SourceOffsets& /*position*/) {}
    // A source subtask restored from checkpoint or savepoint `checkpoint_id` (> 0): where it
    // resumes reading, per split it owns.
    virtual void source_restored(sim::Time, int64_t /*attempt*/, const std::string& /*vertex*/,
                                 int32_t /*subtask*/, int64_t /*checkpoint_id*/,
                                 const SourceOffsets& /*position*/) {}
    // A savepoint completed: its _metadata, the path a user restores from (`flink run -s`).
    virtual void savepoint_completed(sim::Time, const std::string& /*path*/) {}
    // A timer (SinkContext::after) of a sink whose task was cancelled (closed) at `closed_at`
    // fired: what the sink's close() did not stop.
    virtual void closed_sink_timer_fired(sim::Time, const std::string& /*vertex*/,
                                         int32_t /*subtask*/, sim::Time /*closed_at*/) {}
    virtual void job_finished(sim::Time) {}
    virtual void job_failed(sim::Time, const std::string& /*reason*/) {}
};

}  // namespace eosim::engine
