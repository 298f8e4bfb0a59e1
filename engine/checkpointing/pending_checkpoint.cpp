#include "engine/checkpointing/pending_checkpoint.h"

#include "sim/invariant.h"

namespace eosim::engine {

using State = PendingCheckpoint::State;

PendingCheckpoint::PendingCheckpoint(int64_t id, SnapshotType snapshot, int32_t user_request,
                                     std::set<std::pair<int32_t, int32_t>> awaiting)
    : awaiting_(std::move(awaiting)), snapshot_(snapshot), user_request_(user_request) {
    EOSIM_INVARIANT(id > 0, "a checkpoint id is positive");
    EOSIM_INVARIANT(!awaiting_.empty(), "a checkpoint waits for at least one task");
    result_.id = id;
    result_.savepoint = snapshot.is_savepoint();
}

bool PendingCheckpoint::in_progress() const {
    return state_ == State::pending || state_ == State::writing_metadata ||
           state_ == State::metadata_failed;
}

void PendingCheckpoint::acknowledge(std::pair<int32_t, int32_t> subtask, const std::string& handle,
                                    int64_t state_bytes) {
    EOSIM_INVARIANT(state_ == State::pending, "a checkpoint is acknowledged only while pending");
    const bool awaited = awaiting_.erase(subtask) == 1;
    EOSIM_INVARIANT(awaited, "a checkpoint is acknowledged only by a task it awaits, once");
    result_.handles[subtask] = handle;
    result_.state_bytes += state_bytes;
}

void PendingCheckpoint::start_writing_metadata() {
    EOSIM_INVARIANT(state_ == State::pending,
                    "a checkpoint's metadata is written only from pending");
    EOSIM_INVARIANT(awaiting_.empty(),
                    "a checkpoint's metadata is written only once every awaited task acknowledged");
    state_ = State::writing_metadata;
}

void PendingCheckpoint::fail_metadata(bool keep_files) {
    EOSIM_INVARIANT(state_ == State::writing_metadata,
                    "a metadata write fails only while it is being written");
    state_ = State::metadata_failed;
    if (keep_files) {  // the store may hold it: an abort deletes nothing
        CompletedCheckpoint nothing;
        nothing.id = result_.id;
        result_ = std::move(nothing);
    }
}

void PendingCheckpoint::settle() {
    EOSIM_INVARIANT(state_ == State::writing_metadata,
                    "only a checkpoint writing its metadata settles at a stop");
    state_ = State::settling;
}

void PendingCheckpoint::abort_while_writing() {
    EOSIM_INVARIANT(state_ == State::writing_metadata,
                    "a checkpoint is aborted mid write only while writing its metadata");
    state_ = State::discarding;
}

CompletedCheckpoint PendingCheckpoint::complete() {
    EOSIM_INVARIANT(state_ == State::writing_metadata || state_ == State::settling,
                    "a checkpoint completes only once its metadata was being written");
    return hand_out(State::completed);
}

CompletedCheckpoint PendingCheckpoint::abort() {
    EOSIM_INVARIANT(
        state_ == State::pending || state_ == State::metadata_failed || state_ == State::settling,
        "a checkpoint is aborted only while pending, settling or after its metadata failed");
    return hand_out(State::aborted);
}

CompletedCheckpoint PendingCheckpoint::discard_written() {
    EOSIM_INVARIANT(
        state_ == State::discarding,
        "a checkpoint's files are released after its write only when aborted mid write");
    return hand_out(State::discarded);
}

CompletedCheckpoint PendingCheckpoint::hand_out(State terminal) {
    state_ = terminal;
    return std::move(result_);
}

}  // namespace eosim::engine
