#pragma once
// Key groups, as in Flink: a key hashes into one of `max_parallelism` key groups; a subtask of a
// keyed operator with parallelism P owns a contiguous range of key groups. Keyed state is
// snapshotted and restored by key group, which is what lets a job rescale.
#include <cstdint>

#include "sim/trace.h"

namespace eosim::engine {

inline int32_t key_group_of(int64_t key, int32_t max_parallelism) {
    return static_cast<int32_t>(sim::digest_mix(0x6b65792d67726f75ULL, static_cast<uint64_t>(key)) %
                                static_cast<uint64_t>(max_parallelism));
}

inline int32_t subtask_for_key_group(int32_t key_group, int32_t max_parallelism,
                                     int32_t parallelism) {
    return static_cast<int32_t>(static_cast<int64_t>(key_group) * parallelism / max_parallelism);
}

inline int32_t subtask_for_key(int64_t key, int32_t max_parallelism, int32_t parallelism) {
    return subtask_for_key_group(key_group_of(key, max_parallelism), max_parallelism, parallelism);
}

}  // namespace eosim::engine
