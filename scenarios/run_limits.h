#pragma once
// What one run can hold: the loader checks every size a scenario sets against these before anything
// is built or allocated, and names the limit in its error (exit 2) instead of letting a run
// exhaust memory or simulate for hours. Each limit is what a run keeps in memory or simulates at a
// few hundred bytes per record, subtask or fault; to raise one, change it here and rebuild (a run
// then needs memory in proportion), or split the work over several scenarios.
#include <cstdint>

#include "sim/time.h"

namespace eosim::scenarios {

inline constexpr int64_t kMaxInputRecords =
    20'000'000;  // records of all inputs together (held packed: ~35 bytes a record in all)
inline constexpr int64_t kMaxKeysPerInput = 1'000'000;  // distinct keys of one input
inline constexpr int64_t kMaxTopicPartitions = 10'000;  // partitions of all topics together
inline constexpr int64_t kMaxTaskManagers = 1'024;      // task managers plus spares (each a node)
inline constexpr int64_t kMaxSlots =
    4'096;  // task managers x slots: the bound on every parallelism
inline constexpr int64_t kMaxScheduledFaults = 1'000;    // faults.schedule entries
inline constexpr int64_t kMaxRandomFaults = 1'000;       // faults.random count (max)
inline constexpr int64_t kMaxTimeLimitSeconds = 86'400;  // time_limit: one day of virtual time

}  // namespace eosim::scenarios
