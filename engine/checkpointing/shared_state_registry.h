#pragma once
// The JobManager's registry of shared state (Flink's SharedStateRegistry): the shared files of
// incremental checkpoints (RocksDB SST files, uploaded once and referred to by later checkpoints)
// with a reference count each. A reference is held by every pending checkpoint a task's
// acknowledgement said refers to the file, and by every retained completed checkpoint that does;
// a file is deleted exactly when its count drops to zero (the checkpoint that held the last
// reference was discarded: aborted, subsumed or past `retained`). Savepoints are self-contained
// canonical blobs and never refer to shared files, so they hold no references here.
//
// After a JobManager restart the registry is rebuilt from the list of retained completed
// checkpoints alone (rebuild()): each holds its own shared files, and the newest also holds, as a
// group for the older ones, the files its metadata says they referred to (older_shared).
//
// The coordinator takes references when an acknowledgement arrives and drops them when the
// checkpoint is discarded. An acknowledgement that refers to a shared file the registry no longer
// holds (its task had not yet heard that the checkpoints holding it were discarded) declines its
// checkpoint instead of completing one that refers to a deleted file.
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "engine/vocabulary/deployment.h"

namespace eosim::engine {

class SharedStateRegistry {
public:
    // Every shared key `checkpoint` holds a reference to (its subtasks' files and older_shared),
    // ordered, no repeats.
    static std::vector<std::string> keys_of(const CompletedCheckpoint& checkpoint);

    void add_references(const std::vector<std::string>& keys);
    // Drops one reference to each key; returns the keys no checkpoint refers to any more (to
    // delete).
    std::vector<std::string> release(const std::vector<std::string>& keys);
    // A checkpoint that is no longer kept (discarded, or aborted with the references its
    // acknowledgements took): release(keys_of(checkpoint)).
    std::vector<std::string> release_checkpoint(const CompletedCheckpoint& checkpoint) {
        return release(keys_of(checkpoint));
    }

    bool contains(const std::string& key) const { return references_.contains(key); }
    int32_t references(const std::string& key) const;
    const std::map<std::string, int32_t>& entries() const { return references_; }

    // The registry a JobManager rebuilds on recovery, a function of the retained completed
    // checkpoints.
    static SharedStateRegistry rebuild(const std::deque<CompletedCheckpoint>& retained);

private:
    std::map<std::string, int32_t> references_;
};

}  // namespace eosim::engine
