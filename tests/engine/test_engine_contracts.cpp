// Contracts of the engine's smaller pieces (sim/invariant.h, checked in every build) that were
// debug-only asserts: the checkpoint request decider's and failure manager's bounds, the RocksDB
// cell cache's room and write-back order. Each fires on its slip; its positive twin does not.
#include <catch2/catch.hpp>

#include "engine/checkpointing/checkpoint_failure_manager.h"
#include "engine/checkpointing/checkpoint_request_decider.h"
#include "engine/state/rocksdb_cell_cache.h"
#include "sim/invariant.h"

namespace eosim::engine {

TEST_CASE("engine contracts: a request queue and a failure count have sane bounds",
          "[engine][invariants]") {
    const sim::ScopedInvariantHandler throws(sim::throw_invariant_broken);
    CHECK_THROWS_WITH(CheckpointRequestDecider(1, sim::Duration::zero(), 0),
                      Catch::Contains("a request queue holds at least one request"));
    CHECK_THROWS_WITH(CheckpointFailureManager(-1),
                      Catch::Contains("a tolerable failure count is never negative"));
    // Positive twins: the smallest sane bounds, in use.
    CheckpointRequestDecider decider(1, sim::Duration::zero(), 1);
    const CheckpointRequestDecider::Situation busy{false, 1, sim::Time::zero(), sim::Time::zero()};
    CHECK_NOTHROW(decider.submit(CheckpointRequest{}, busy));
    CHECK(decider.submit(CheckpointRequest{}, busy).dropped.size() == 1);
    CHECK(decider.queued() == 1);
    CheckpointFailureManager manager(0);
    CHECK(manager.failure(1, CheckpointFailureReason::checkpoint_expired));
}

TEST_CASE(
    "engine contracts: the RocksDB cell cache inserts only with room and overflows only when written back",
    "[engine][invariants]") {
    const sim::ScopedInvariantHandler throws(sim::throw_invariant_broken);
    rocksdb_state::CellCache cache(1);
    rocksdb_state::CellCache::Entry& cell = cache.insert("a", 1);
    CHECK_THROWS_WITH(cache.insert("b", 2),
                      Catch::Contains("a cell is inserted only into a cache with room"));
    cache.write(cell, 5);
    CHECK_THROWS_WITH(cache.overflowed(),
                      Catch::Contains("a cache overflows only with no unwritten cell"));
    // Positive twin: the dirty cell taken first, the overflow empties the cache, which has room
    // again.
    CHECK(cache.take_dirty().size() == 1);
    CHECK_NOTHROW(cache.overflowed());
    CHECK_FALSE(cache.complete());
    CHECK_NOTHROW(cache.insert("b", 2));
}

}  // namespace eosim::engine
