#pragma once
// Which keyed state backend a job's keyed operators use (engine/state/README.md).
#include <cstdint>

namespace eosim::engine {

enum class StateBackendKind : uint8_t { heap, rocksdb };

struct StateBackendOptions {
    StateBackendKind kind = StateBackendKind::heap;
    bool incremental = false;  // rocksdb only: incremental checkpoints
    // rocksdb incremental only. false is a negative control, never in a passing scenario: a restore
    // at another parallelism copies every key of the overlapping old subtasks' files instead of
    // clipping them to the key groups the new subtask owns (Flink's clip of FLINK-21321).
    bool clip_on_rescale = true;
};

}  // namespace eosim::engine
