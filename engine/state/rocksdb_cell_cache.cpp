#include "engine/state/rocksdb_cell_cache.h"

#include <algorithm>

#include "sim/invariant.h"

namespace eosim::engine::rocksdb_state {

CellCache::Entry* CellCache::find(const std::string& key) {
    auto found = cells_.find(key);
    return found == cells_.end() ? nullptr : &*found;
}

CellCache::Entry& CellCache::insert(std::string key, std::optional<int64_t> value) {
    EOSIM_INVARIANT(!full(), "a cell is inserted only into a cache with room");
    return *cells_.insert_or_assign(std::move(key), Cell{value, false}).first;
}

void CellCache::remember(std::string key, int64_t value) {
    if (full()) {
        complete_ = false;
        return;
    }
    insert(std::move(key), value);
}

void CellCache::write(Entry& entry, std::optional<int64_t> value) {
    entry.second.value = value;
    if (!entry.second.dirty) {
        entry.second.dirty = true;
        dirty_.push_back(&entry);
    }
}

std::vector<CellCache::Entry*> CellCache::take_dirty() {
    std::vector<Entry*> taken = std::move(dirty_);
    dirty_.clear();
    std::sort(taken.begin(), taken.end(),
              [](const Entry* a, const Entry* b) { return a->first < b->first; });
    for (Entry* entry : taken) entry->second.dirty = false;
    return taken;
}

void CellCache::overflowed() {
    EOSIM_INVARIANT(dirty_.empty(), "a cache overflows only with no unwritten cell");
    cells_.clear();
    complete_ = false;
}

void CellCache::reset() {
    cells_.clear();
    dirty_.clear();
    complete_ = true;
}

}  // namespace eosim::engine::rocksdb_state
