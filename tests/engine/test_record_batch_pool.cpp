// The engine's spare record buffers (engine/runtime/record_batch_pool.h): a buffer taken is always
// empty, a buffer given back keeps its capacity for the next take, and the pool keeps at most
// kMaxSpare of them.
#include <catch2/catch.hpp>

#include <cstddef>

#include "engine/runtime/record_batch_pool.h"

namespace eosim::engine {

TEST_CASE("record batch pool: takes are empty, capacity is reused, spares are bounded",
          "[record_batch_pool]") {
    RecordBatchPool pool;
    CHECK(pool.take().capacity() == 0);  // nothing given back yet: a fresh buffer

    RecordBatch used;
    used.reserve(40);
    used.push_back(Record{1, 2});
    used.push_back(Record{3, 4});
    pool.give_back(std::move(used));
    RecordBatch again = pool.take();
    CHECK(again.empty());                // its records were dropped
    CHECK(again.capacity() >= 40);       // its room was kept
    CHECK(pool.take().capacity() == 0);  // it was the only spare

    pool.give_back(RecordBatch());  // no capacity: not kept
    CHECK(pool.take().capacity() == 0);

    for (size_t i = 0; i < RecordBatchPool::kMaxSpare + 5; ++i) {
        RecordBatch b;
        b.reserve(8);
        b.push_back(Record{static_cast<int64_t>(i), 0});
        pool.give_back(std::move(b));
    }
    size_t kept = 0;
    for (RecordBatch b = pool.take(); b.capacity() != 0; b = pool.take()) {
        CHECK(b.empty());
        ++kept;
    }
    CHECK(kept == RecordBatchPool::kMaxSpare);
}

}  // namespace eosim::engine
