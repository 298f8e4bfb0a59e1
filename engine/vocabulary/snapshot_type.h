#pragma once
// What a snapshot is, as Flink's CheckpointType/SnapshotType says it: a periodic checkpoint, an
// intermediate savepoint, or the final savepoint of a stop-with-savepoint (Flink's
// SavepointType.terminate / suspend: with `drain`, sources send end of input after the barrier --
// Flink's `stop --drain`, MAX_WATERMARK -- without it they simply stop). Travels with the trigger
// and with every barrier, so that each task knows where its state goes (a savepoint's own folder,
// in the canonical form) and whether to stop after it.
#include <cstdint>

namespace eosim::engine {

enum class SnapshotKind : uint8_t { checkpoint, savepoint, terminate_savepoint };

struct SnapshotType {
    SnapshotKind kind = SnapshotKind::checkpoint;
    bool drain = false;  // terminate_savepoint only
    bool is_savepoint() const { return kind != SnapshotKind::checkpoint; }
    bool terminates() const { return kind == SnapshotKind::terminate_savepoint; }
};

}  // namespace eosim::engine
