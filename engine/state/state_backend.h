#pragma once
// Keyed state backends: where a keyed operator keeps int64 values per key, in cells addressed by
// StateKey (key, state, namespace, item). A snapshot is a byte string written to checkpoint
// storage; a restore reads the snapshots of every subtask of the operator and keeps the key groups
// this subtask owns (so the same code serves rescaling). Cell layout: engine/state/README.md.
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary/state_backend_options.h"

namespace eosim::engine {

// A file of an incremental snapshot that later snapshots share (a RocksDB SST file): uploaded once
// under `key`, then referred to by that key until nothing retained refers to it.
struct SharedStateUpload {
    std::string key;
    std::string bytes;
};

// An incremental snapshot: the subtask's own (private) blob, which names the shared files its
// state consists of, the shared files not yet in checkpoint storage, and every shared key it
// refers to (the uploads included), in key order.
struct IncrementalSnapshot {
    std::string private_state;
    std::vector<SharedStateUpload> uploads;
    std::vector<std::string> shared_keys;
    int64_t bytes_referenced = 0;  // the shared files' sizes together
};

struct KeyGroupRange {
    int32_t first = 0;  // inclusive
    int32_t last = 0;   // inclusive
    bool contains(int32_t key_group) const { return key_group >= first && key_group <= last; }
    static KeyGroupRange of_subtask(int32_t subtask, int32_t parallelism, int32_t max_parallelism);
};

// A cell of keyed state: a key's value in one of the operator's states, under a namespace (Flink's
// namespace: a window, a timer's time, a join row). The keyed aggregates use state 0, ns 0, item 0.
struct StateKey {
    int64_t key = 0;  // the record key: decides the key group
    int32_t state =
        0;  // which state of the operator (operators number their own; < 0 reserved: timers)
    int64_t ns = 0;    // namespace within the state (window end, timer time, row timestamp, ...)
    int64_t item = 0;  // element within the namespace (a join row's value, a timer's namespace)
    auto operator<=>(const StateKey&) const = default;
};

class KeyedStateBackend {
public:
    virtual ~KeyedStateBackend() = default;
    // The key's state-0/ns-0/item-0 cell: get(key) == get(StateKey{key}), and so on.
    virtual std::optional<int64_t> get(int64_t key) const = 0;
    virtual void put(int64_t key, int64_t value) = 0;
    // put(key, get(key).value_or(0) + delta), returning the new value; a backend that can overrides
    // it with one lookup (a keyed count or sum does this for every record).
    virtual int64_t add(int64_t key, int64_t delta) {
        const int64_t updated = get(key).value_or(0) + delta;
        put(key, updated);
        return updated;
    }
    // Drops the key (a keyed aggregate over a changelog whose key has no rows left).
    virtual void remove(int64_t key) = 0;
    // ---- cells (the key must belong to a key group this backend owns, as for the int64 API)
    virtual std::optional<int64_t> get(const StateKey& at) const = 0;
    virtual void put(const StateKey& at, int64_t value) = 0;
    virtual void remove(const StateKey& at) = 0;
    // Every cell of (`key`, `state`), ordered by (ns, item), handed to `visit` (which must not
    // write).
    virtual void scan(int64_t key, int32_t state,
                      const std::function<void(const StateKey&, int64_t)>& visit) const = 0;
    // Every cell of `state` over all keys held, ordered by (key group, key, ns, item).
    virtual void scan_state(int32_t state,
                            const std::function<void(const StateKey&, int64_t)>& visit) const = 0;
    // Every cell (all states), ordered: what oracles and tests compare.
    virtual std::map<StateKey, int64_t> cells() const = 0;

    // A full, self-contained snapshot of the state this backend holds.
    virtual std::string snapshot() const = 0;
    // Replaces the state with the entries of `snapshots` whose key group this backend owns.
    virtual void restore(const std::vector<std::string>& snapshots) = 0;
    // The savepoint form, the same for every backend (engine/state/canonical_state_codec.h): per
    // non-empty key group in ascending order, the key group, its count of state-0/ns-0/item-0 cells
    // and those as (key, value) in key order; then, if it holds other cells, -1 - key group, their
    // count and (key, state, ns, item, value) in StateKey order; encoded with blob_codec. Any
    // backend restores from it, whichever backend (and parallelism) wrote it. A state of only
    // state-0/ns-0/item-0 cells encodes exactly as before cells existed.
    virtual std::string canonical_snapshot() const = 0;
    // Replaces the state with the entries of canonical snapshots whose key group this backend owns.
    virtual void restore_canonical(const std::vector<std::string>& snapshots) = 0;
    // Every state-0/ns-0/item-0 cell as (key, value), ordered by key: what the state-after-restore
    // oracle compares.
    virtual std::map<int64_t, int64_t> contents() const = 0;

    // ---- incremental snapshots (only a backend whose incremental() is true implements these)
    virtual bool incremental() const { return false; }
    // Files new since the last confirmed snapshot are uploaded under `shared_key_prefix` + name.
    virtual IncrementalSnapshot snapshot_incremental(int64_t /*checkpoint_id*/,
                                                     const std::string& /*shared_key_prefix*/) {
        return {};
    }
    // Checkpoint `checkpoint_id` completed: the files its snapshot uploaded may be referred to from
    // now on (Flink's notifyCheckpointComplete). An abort forgets what was confirmed: the next
    // snapshot uploads everything again, so it never refers to a file the JobManager discarded.
    virtual void checkpoint_confirmed(int64_t /*checkpoint_id*/) {}
    virtual void checkpoint_aborted(int64_t /*checkpoint_id*/) {}
    // Replaces the state with the entries this backend owns, from incremental private blobs and
    // the shared files they name (`shared`: key -> bytes, at least those shared_keys_to_restore
    // returned).
    virtual void restore_incremental(const std::vector<std::string>& /*private_states*/,
                                     const std::map<std::string, std::string>& /*shared*/) {}
    // After restore_incremental from another job's checkpoint (NO_CLAIM): refer to none of the
    // restored files, so the next snapshot uploads everything under this job's own keys.
    virtual void disown_restored_files() {}
};

// Whether `blob` is the private blob of an incremental snapshot (else a full, canonical one).
bool is_incremental_state(const std::string& blob);
// The shared keys a backend owning `range` needs to restore from these private blobs: the files
// of every old subtask whose key-group range overlaps `range`, in key order, without repeats.
std::vector<std::string> shared_keys_to_restore(const std::vector<std::string>& private_states,
                                                KeyGroupRange range);

// `identity` names the backend's owner (vertex, subtask, attempt): it makes RocksDB's file
// contents a function of it instead of a random session id.
std::unique_ptr<KeyedStateBackend> make_state_backend(const StateBackendOptions& options,
                                                      KeyGroupRange range, int32_t max_parallelism,
                                                      const std::string& identity);

// The in-memory hash-map backend of Flink (HashMapStateBackend), with full snapshots.
std::unique_ptr<KeyedStateBackend> make_heap_state_backend(KeyGroupRange range,
                                                           int32_t max_parallelism);

}  // namespace eosim::engine
