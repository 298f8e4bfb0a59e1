#pragma once
// One checkpoint (or savepoint) of the coordinator from its trigger until its fate is decided,
// after Flink's PendingCheckpoint: its state says where it is, and each transition is one verb
// that checks the states it may come from (an invariant, engine/invariant.h).
//
//   pending ──acknowledge (an awaited task, once each)──> pending
//   pending ──start_writing_metadata (every awaited task acknowledged)──> writing_metadata
//   writing_metadata ──complete──> completed             the metadata (and HA store entry) is
//   durable writing_metadata ──fail_metadata──> metadata_failed ──abort──> aborted writing_metadata
//   ──settle──> settling                the coordinator stopped mid write settling ──complete──>
//   completed  /  settling ──abort──> aborted writing_metadata ──abort_while_writing──> discarding
//   subsumed or declined mid write discarding ──discard_written──> discarded            its write
//   decided: its files may go pending ──abort──> aborted                           declined,
//   expired, stopped
//
// A checkpoint completes when every task it waits for acknowledged it and its metadata is durable
// (with HA: its pointer is in the completed-checkpoint store too); then the coordinator notifies
// the tasks (best effort). It is aborted on a decline, on timeout or when the metadata cannot be
// written, each with a CheckpointFailureReason. Once fully acknowledged only the metadata write
// decides it, never the timeout: a failover (the coordinator stopping) lets that write decide
// (settling), since durable metadata is what a recovering JobManager restores from (Flink
// finalises a fully acknowledged checkpoint in one step no failover interleaves); a checkpoint
// subsumed mid write is deleted only once the write is decided, so no _metadata lands after its
// state was deleted.
//
// The checkpoint holds what the acknowledgements brought (the CompletedCheckpoint being built) and
// the coordinator's bookkeeping of it (timeout timer, snapshot type, the user's request). Terminal
// states hand the result out once; the coordinator then forgets the object.
//
// The coordinator's side (checkpoint_coordinator.h): a failover or the end of the job aborts every
// pending checkpoint and tells the tasks (Flink's abortPendingCheckpoints), except one writing its
// metadata, which settles; until every settling checkpoint is decided, the coordinator's
// settling() holds the next deployment back, so that it restores the same checkpoint a JobManager
// restart would. Completing N subsumes (aborts) every pending checkpoint below N, never a
// savepoint.
#include <cstdint>
#include <set>
#include <string>
#include <utility>

#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/scheduler.h"

namespace eosim::engine {

class PendingCheckpoint {
public:
    enum class State : uint8_t {
        pending,
        writing_metadata,
        metadata_failed,
        settling,
        discarding,
        completed,
        aborted,
        discarded
    };

    PendingCheckpoint(int64_t id, SnapshotType snapshot, int32_t user_request,
                      std::set<std::pair<int32_t, int32_t>> awaiting);

    int64_t id() const { return result_.id; }
    State state() const { return state_; }
    const SnapshotType& snapshot() const { return snapshot_; }
    int32_t user_request() const { return user_request_; }
    // Triggered and not yet decided by the coordinator's own verbs: pending, writing its metadata,
    // or its write just failed (the coordinator's count of pending checkpoints).
    bool in_progress() const;
    bool writing_metadata() const { return state_ == State::writing_metadata; }
    bool settling() const { return state_ == State::settling; }
    bool discarding() const { return state_ == State::discarding; }
    bool awaits(std::pair<int32_t, int32_t> subtask) const {
        return state_ == State::pending && awaiting_.contains(subtask);
    }
    bool fully_acknowledged() const { return awaiting_.empty(); }
    // What the acknowledgements brought so far (the files a discard deletes, what a restore reads).
    const CompletedCheckpoint& result() const { return result_; }
    CompletedCheckpoint& result() { return result_; }
    sim::TimerId timeout() const { return timeout_; }
    void set_timeout(sim::TimerId timer) { timeout_ = timer; }

    // -- transitions (each checks the states it comes from)
    // `subtask` acknowledged with its state; the coordinator adds shared files and offsets to
    // result().
    void acknowledge(std::pair<int32_t, int32_t> subtask, const std::string& handle,
                     int64_t state_bytes);
    void start_writing_metadata();
    // The metadata (or its store entry) could not be written; `keep_files`: the outcome is unknown,
    // so nothing is deleted on abort (the store may hold it).
    void fail_metadata(bool keep_files);
    void settle();
    void abort_while_writing();
    CompletedCheckpoint complete();
    CompletedCheckpoint abort();
    CompletedCheckpoint discard_written();

private:
    CompletedCheckpoint hand_out(State terminal);

    State state_ = State::pending;
    std::set<std::pair<int32_t, int32_t>> awaiting_;
    CompletedCheckpoint result_;
    SnapshotType snapshot_;
    int32_t user_request_ = -1;
    sim::TimerId timeout_{};
};

}  // namespace eosim::engine
