// CheckpointRetention (engine/checkpointing/checkpoint_retention.h): the last `retained` completed
// checkpoints are kept and the older ones handed back in order; a restore trims what it found the
// same way and hands the older ones' shared files to the newest older one that stays; the negative
// control's savepoints come back once older than every retained checkpoint; a checkpoint completing
// out of id order is an invariant failure.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/checkpointing/checkpoint_retention.h"
#include "sim/invariant.h"

namespace eosim::engine {
namespace {

CompletedCheckpoint retained_checkpoint(int64_t id, std::string handle = "") {
    CompletedCheckpoint checkpoint;
    checkpoint.id = id;
    if (!handle.empty()) checkpoint.handles[{0, 0}] = std::move(handle);
    return checkpoint;
}

std::vector<int64_t> retained_ids(const std::vector<CompletedCheckpoint>& checkpoints) {
    std::vector<int64_t> ids;
    for (const CompletedCheckpoint& c : checkpoints) ids.push_back(c.id);
    return ids;
}

}  // namespace

TEST_CASE("retention: the last `retained` are kept, the older handed back oldest first",
          "[retention]") {
    sim::ScopedInvariantHandler scope(sim::throw_invariant_broken);
    CheckpointRetention retention(2);
    CHECK(retention.latest() == nullptr);
    CHECK(retention.add(retained_checkpoint(1, "a")).empty());
    CHECK(retention.add(retained_checkpoint(2, "b")).empty());
    CHECK(retained_ids(retention.add(retained_checkpoint(4, "c"))) == std::vector<int64_t>{1});
    CHECK(retention.latest()->id == 4);
    CHECK(retention.refers_to("b"));
    CHECK_FALSE(retention.refers_to("a"));
    // Negative control: a checkpoint completing below the newest is refused.
    CHECK_THROWS_WITH(retention.add(retained_checkpoint(3)),
                      Catch::Contains("checkpoints complete in increasing id order"));
    CHECK_THROWS_WITH(retention.add(retained_checkpoint(4)),
                      Catch::Contains("checkpoints complete in increasing id order"));
}

TEST_CASE("retention: a restore trims what it found and hands the older shared files on",
          "[retention]") {
    CheckpointRetention retention(2);
    const std::vector<std::string> older_shared{"shared/x", "shared/y"};
    const auto gone = retention.restore(
        {retained_checkpoint(3), retained_checkpoint(5), retained_checkpoint(6)}, older_shared);
    CHECK(retained_ids(gone) == std::vector<int64_t>{3});
    REQUIRE(retention.completed().size() == 2);
    CHECK(retention.completed().front().older_shared == older_shared);
    CHECK(retention.completed().back().older_shared.empty());
    CheckpointRetention one(1);
    CHECK(retained_ids(one.restore({retained_checkpoint(3), retained_checkpoint(5)},
                                   older_shared)) == std::vector<int64_t>{3});
    CHECK(one.completed().back().older_shared.empty());  // no older one stays to hold them
}

TEST_CASE(
    "retention: the negative control's savepoints come back once older than every retained checkpoint",
    "[retention]") {
    CheckpointRetention retention(1);
    CHECK(retention.subsumed_savepoints().empty());  // nothing retained yet
    retention.add(retained_checkpoint(1));
    retention.hold_savepoint(retained_checkpoint(2));
    CHECK(retention.subsumed_savepoints().empty());  // newer than checkpoint 1
    retention.add(retained_checkpoint(3));
    CHECK(retained_ids(retention.subsumed_savepoints()) == std::vector<int64_t>{2});
    CHECK(retention.subsumed_savepoints().empty());
}

}  // namespace eosim::engine
