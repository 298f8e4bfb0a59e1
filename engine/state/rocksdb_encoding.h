#pragma once
// The RocksDB state backend's byte formats: its keys (which sort as the cells they encode) and
// values, and the private blob of an incremental snapshot (the writer's key-group range and files).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocksdb/slice.h>

#include "engine/state/key_groups.h"
#include "engine/state/state_backend.h"

namespace eosim::engine::rocksdb_state::encoding {

inline constexpr std::string_view kIncrementalMagic = "eosim-rocksdb-incremental-v3";

// RocksDB keys, big-endian with the sign bits flipped so that bytes sort as the numbers do:
//   plain cell (state 0, ns 0, item 0): key group (4) | key (8), 12 bytes;
//   any other cell: key group (4) | key (8) | state (4) | ns (8) | item (8), 32 bytes.
// Keys sort by key group, then by key (a key group is a contiguous key range); a key's plain cell
// comes first, then its other cells in (state, ns, item) order. Plain cells keep the key bytes
// they had before cells existed.
inline constexpr size_t kPlainKeySize = 12;
inline constexpr size_t kCellKeySize = 32;
inline constexpr size_t kScanPrefixSize = 16;  // key group, key, state: the cells scan() visits

// The private blob of an incremental snapshot: the writer's key-group range and its files.
struct SnapshotFile {
    std::string name;  // the local SST file name ("000009.sst")
    std::string key;   // where checkpoint storage holds it
    int64_t bytes = 0;
    int64_t level = 0;  // its level in the writer's instance (0: flushed since the last compaction)
    int64_t entries = 0;  // its entries (cells and deletions)
    // The range of its entries' sequence numbers (a restore imports it with them).
    int64_t smallest_seqno = 0;
    int64_t largest_seqno = 0;
};
struct IncrementalManifest {
    KeyGroupRange range;
    std::vector<SnapshotFile> files;
};

std::string encode_key(int32_t key_group, int64_t key);
// The first bytes of every cell of (key, state) other than the plain one.
std::string encode_scan_prefix(int32_t key_group, int64_t key, int32_t state);
std::string encode_cell_key(int32_t key_group, const StateKey& at);
int32_t key_group_of_encoded(const rocksdb::Slice& in);
// The key group and the cell a RocksDB key encodes.
std::pair<int32_t, StateKey> decode_cell_key(const rocksdb::Slice& in);
std::string encode_value(int64_t value);
int64_t decode_value(const rocksdb::Slice& in);
std::string encode_manifest(const IncrementalManifest& manifest);
IncrementalManifest decode_manifest(const std::string& blob);

}  // namespace eosim::engine::rocksdb_state::encoding
