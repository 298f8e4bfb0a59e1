#pragma once
// Which keyed state backend a job's keyed operators use (engine/state/README.md).
#include <cstdint>

namespace eosim::engine {

enum class StateBackendKind : uint8_t { heap, rocksdb };

struct StateBackendOptions {
    StateBackendKind kind = StateBackendKind::heap;
    bool incremental = false;  // rocksdb only: incremental checkpoints
};

}  // namespace eosim::engine
