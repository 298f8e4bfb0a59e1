// The RocksDB backend's cell cache (engine/state/rocksdb_cell_cache.h) on its own, with a small
// capacity: dirty cells taken once and in key order, completeness lost on overflow (by a lookup or
// by a restore that does not fit) and regained on reset. The backend over it:
// test_rocksdb_state_backend.cpp.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/state/rocksdb_cell_cache.h"

namespace eosim::engine::rocksdb_state {
namespace {

std::vector<std::string> keys_of(const std::vector<CellCache::Entry*>& entries) {
    std::vector<std::string> keys;
    for (const CellCache::Entry* entry : entries) keys.push_back(entry->first);
    return keys;
}

TEST_CASE("rocksdb cell cache: dirty cells are taken once in key order with their last value",
          "[rocksdb][cell_cache]") {
    CellCache cache(8);
    CHECK(cache.complete());
    CellCache::Entry& c = cache.insert("c", std::nullopt);
    CellCache::Entry& a = cache.insert("a", 1);
    cache.insert("b", 2);
    cache.write(c, 30);
    cache.write(a, 10);
    cache.write(c, 31);  // twice: listed once
    cache.write(a, std::nullopt);
    const std::vector<CellCache::Entry*> dirty = cache.take_dirty();
    CHECK(keys_of(dirty) == std::vector<std::string>{"a", "c"});
    CHECK_FALSE(dirty[0]->second.value.has_value());
    CHECK(dirty[1]->second.value == 31);
    CHECK_FALSE(dirty[1]->second.dirty);
    CHECK(cache.take_dirty().empty());
    REQUIRE(cache.find("b") != nullptr);
    CHECK(cache.find("b")->second.value == 2);
    CHECK(cache.find("d") == nullptr);
}

TEST_CASE("rocksdb cell cache: an overflow empties it and ends completeness until a reset",
          "[rocksdb][cell_cache]") {
    CellCache cache(2);
    cache.write(cache.insert("a", std::nullopt), 1);
    cache.insert("b", 2);
    CHECK(cache.full());
    CHECK(cache.complete());
    CHECK(keys_of(cache.take_dirty()) == std::vector<std::string>{"a"});
    cache.overflowed();
    CHECK(cache.size() == 0);
    CHECK_FALSE(cache.complete());
    CHECK(cache.find("a") == nullptr);
    cache.reset();
    CHECK(cache.complete());
}

TEST_CASE("rocksdb cell cache: a restore that does not fit leaves it incomplete",
          "[rocksdb][cell_cache]") {
    CellCache cache(2);
    cache.remember("a", 1);
    cache.remember("b", 2);
    CHECK(cache.complete());
    cache.remember("c", 3);
    CHECK_FALSE(cache.complete());
    CHECK(cache.find("c") == nullptr);
    CHECK(cache.find("b")->second.value == 2);
    CHECK(cache.take_dirty().empty());  // remembered cells are clean: RocksDB holds them
}

}  // namespace
}  // namespace eosim::engine::rocksdb_state
