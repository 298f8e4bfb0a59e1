#pragma once
// The completed checkpoints a coordinator retains (Flink's CompletedCheckpointStore, in memory):
// the last `retained`, oldest first, the newest restorable. Adding one past the window hands the
// oldest back for the coordinator to discard (with HA its store pointer first); nothing here
// deletes a file. Retention drops a stop-with-savepoint's final savepoint from the list like a
// checkpoint, but the coordinator never deletes a savepoint's files.
//
// Also the negative control checkpointing.retention_discards_savepoints: intermediate savepoints
// are held here as if retained, and handed back for discarding once a checkpoint newer than them
// leaves the window.
//
// Not modelled: Flink's store ordering by anything but completion (checkpoints complete in id
// order here, savepoints aside).
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "engine/vocabulary/deployment.h"

namespace eosim::engine {

class CheckpointRetention {
public:
    explicit CheckpointRetention(int32_t retained) : retained_(retained) {}

    const CompletedCheckpoint* latest() const {
        return completed_.empty() ? nullptr : &completed_.back();
    }
    const std::deque<CompletedCheckpoint>& completed() const { return completed_; }
    // Adds the newest completed checkpoint; returns those that left the window, oldest first.
    std::vector<CompletedCheckpoint> add(CompletedCheckpoint checkpoint);
    // After a JobManager restart: `retained` (oldest first) as found; returns those past the
    // window. The shared files `older_shared` the newest one's metadata lists for the older ones
    // are held by the newest older one that stays (if one does).
    std::vector<CompletedCheckpoint> restore(std::vector<CompletedCheckpoint> retained,
                                             const std::vector<std::string>& older_shared);
    // The shared files the checkpoints retained besides a completing one refer to (its metadata
    // keeps them), ordered, each once.
    std::vector<std::string> older_retained_shared() const;
    bool refers_to(const std::string& key) const;

    // The negative control's intermediate savepoints: held, then handed back once older than every
    // retained checkpoint.
    void hold_savepoint(CompletedCheckpoint savepoint) {
        savepoints_.push_back(std::move(savepoint));
    }
    std::vector<CompletedCheckpoint> subsumed_savepoints();

private:
    std::vector<CompletedCheckpoint> trim();

    int32_t retained_;
    std::deque<CompletedCheckpoint> completed_;
    std::deque<CompletedCheckpoint> savepoints_;
};

// Whether `checkpoint` refers to the state file `key`.
bool refers_to(const CompletedCheckpoint& checkpoint, const std::string& key);

}  // namespace eosim::engine
