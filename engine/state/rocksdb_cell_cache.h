// The RocksDB state backend's cell cache (engine/state/README.md, "Cell cache"): cells by RocksDB
// key with their values (nullopt: no such cell), as RocksDB holds them or as written since, and
// which of them are dirty (written since they were last handed to RocksDB). It knows nothing of
// RocksDB: the backend loads a cell the cache lacks, and writes the dirty cells it takes.
//
// Complete: while the cache holds every cell of the instance (from an empty or freshly restored
// instance until it first overflows), a cell it lacks does not exist, and costs no lookup.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace eosim::engine::rocksdb_state {

// The backend's capacity, a subtask's whole state in the catalogue's scenarios
// (bench_state_backends' million keys overflow it).
constexpr size_t kCellCacheCapacity = size_t{1} << 16;

class CellCache {
public:
    struct Cell {
        std::optional<int64_t> value;
        bool dirty = false;
    };
    using Entry = std::pair<const std::string, Cell>;

    explicit CellCache(size_t capacity) : capacity_(capacity) {}

    // The cell under `key`, or nullptr when the cache does not hold it.
    Entry* find(const std::string& key);
    bool full() const { return cells_.size() >= capacity_; }
    bool complete() const { return complete_; }
    size_t size() const { return cells_.size(); }

    // A clean cell, as RocksDB holds it (`value` nullopt: RocksDB has no such cell). Not when full.
    Entry& insert(std::string key, std::optional<int64_t> value);
    // A cell a restore found in RocksDB or wrote there: cached if there is room, else the cache is
    // no longer complete.
    void remember(std::string key, int64_t value);
    // Sets the cell's value and marks it dirty.
    void write(Entry& entry, std::optional<int64_t> value);

    // Visits every cell the cache knows to exist, with its value, in no particular order (callers
    // collect into an ordered container).
    template <typename Visit>
    void for_each(Visit&& visit) const {
        for (const Entry& entry : cells_) {
            if (entry.second.value) visit(entry.first, *entry.second.value);
        }
    }

    // The dirty cells in key order, marked clean: the caller hands them to RocksDB before the cache
    // changes again (the pointers stay valid until then).
    std::vector<Entry*> take_dirty();
    // Full, with no dirty cell left (taken first): empties, and is no longer complete.
    void overflowed();
    // The instance was replaced by an empty or a restored one: empty and complete.
    void reset();

private:
    size_t capacity_;
    std::unordered_map<std::string, Cell>
        cells_;                  // iterated only by for_each: the dirty cells are listed apart
    std::vector<Entry*> dirty_;  // each dirty cell once (an element stays put until erased)
    bool complete_ = true;
};

}  // namespace eosim::engine::rocksdb_state
