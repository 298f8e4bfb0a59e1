#pragma once
// Keyed state backends: where a keyed operator keeps one int64 value per key. A snapshot is a
// byte string written to checkpoint storage; a restore reads the snapshots of every subtask of the
// operator and keeps the key groups this subtask owns (so the same code serves rescaling).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eosim::engine {

struct KeyGroupRange {
    int32_t first = 0;  // inclusive
    int32_t last = 0;   // inclusive
    bool contains(int32_t key_group) const { return key_group >= first && key_group <= last; }
    static KeyGroupRange of_subtask(int32_t subtask, int32_t parallelism, int32_t max_parallelism);
};

class KeyedStateBackend {
public:
    virtual ~KeyedStateBackend() = default;
    virtual std::optional<int64_t> get(int64_t key) const = 0;
    virtual void put(int64_t key, int64_t value) = 0;
    // Drops the key (a keyed aggregate over a changelog whose key has no rows left).
    virtual void remove(int64_t key) = 0;
    // A full, self-contained snapshot of the state this backend holds.
    virtual std::string snapshot() const = 0;
    // Replaces the state with the entries of `snapshots` whose key group this backend owns.
    virtual void restore(const std::vector<std::string>& snapshots) = 0;
    // The savepoint form, the same for every backend: per non-empty key group in ascending order,
    // the key group, its entry count and its (key, value) entries in key order, encoded with
    // blob_codec. Any backend restores from it, whichever backend (and parallelism) wrote it.
    virtual std::string canonical_snapshot() const = 0;
    // Replaces the state with the entries of canonical snapshots whose key group this backend owns.
    virtual void restore_canonical(const std::vector<std::string>& snapshots) = 0;
    // Every (key, value), ordered by key: what the state-after-restore oracle compares.
    virtual std::map<int64_t, int64_t> contents() const = 0;
};

// The in-memory hash-map backend of Flink (HashMapStateBackend), with full snapshots.
std::unique_ptr<KeyedStateBackend> make_heap_state_backend(KeyGroupRange range, int32_t max_parallelism);

}  // namespace eosim::engine
