// The CDC oracles on hand-made tables (their negative controls): mirror passes on equal tables and
// fires on a missing, extra or different row (a tombstone counts as absent); no_key_backwards
// passes while versions only grow and fires when a poll sees a lower version than an earlier one.
#include <catch2/catch.hpp>

#include "oracles/mirror_oracle.h"
#include "oracles/no_key_backwards_oracle.h"
#include "sim/external/database.h"
#include "sim/world.h"

namespace eosim::oracles {
namespace {

using sim::external::Database;
using sim::external::DatabaseError;
using sim::external::Row;

constexpr sim::EventKind kCdcTick{"test.tick"};

struct CdcOraclesFixture {
    sim::World world{sim::WorldOptions{}};
    sim::NodeId source_node = world.nodes().add("mysql-source");
    sim::NodeId target_node = world.nodes().add("mysql-target");
    Database source{world.scheduler(), world.network(), source_node};
    Database target{world.scheduler(), world.network(), target_node};

    CdcOraclesFixture() {
        source.create_table("t");
        target.create_table("t");
    }
    static void write(Database& db, sim::NodeId node, const Row& row, bool guarded = false) {
        Database::TransactionId id = 0;
        REQUIRE(db.begin(node, &id) == DatabaseError::none);
        REQUIRE(db.upsert(node, id, "t", row, guarded) == DatabaseError::none);
        REQUIRE(db.commit(node, id) == DatabaseError::none);
    }
    void advance(sim::Duration by) {
        const sim::Time at = world.now() + by;
        world.scheduler().schedule_at(at, sim::kNoNode, kCdcTick, 0, [] {});
        world.scheduler().run_until(at);
    }
};

TEST_CASE("mirror oracle: equal tables pass, a missing, extra or different row fires",
          "[oracles][cdc]") {
    CdcOraclesFixture f;
    for (int64_t k = 0; k < 5; ++k) {
        CdcOraclesFixture::write(f.source, f.source_node, Row{k, k, 1});
        CdcOraclesFixture::write(f.target, f.target_node, Row{k, k, 1});
    }
    CdcOraclesFixture::write(f.target, f.target_node, Row{9, 0, 3, true});  // a tombstone: absent
    MirrorOracle mirror(f.source, "t", f.target, "t");
    CHECK(mirror.verdict().passed);
    CdcOraclesFixture::write(f.target, f.target_node, Row{2, 99, 2});
    CHECK_FALSE(mirror.verdict().passed);
    CHECK_THAT(mirror.verdict().message, Catch::Contains("key 2 has value 99"));
    CdcOraclesFixture::write(f.target, f.target_node, Row{2, 2, 3});
    CdcOraclesFixture::write(f.target, f.target_node, Row{7, 7, 1});
    CHECK_THAT(mirror.verdict().message, Catch::Contains("key 7 is in the target"));
    CdcOraclesFixture::write(f.source, f.source_node, Row{7, 7, 1});
    CdcOraclesFixture::write(f.source, f.source_node, Row{8, 8, 1});
    CHECK_THAT(mirror.verdict().message, Catch::Contains("key 8 is missing"));
}

TEST_CASE(
    "no_key_backwards oracle: growing versions pass, a lower version after a higher one fires",
    "[oracles][cdc]") {
    CdcOraclesFixture f;
    NoKeyBackwardsOracle oracle(f.world.scheduler(), f.target, "t", sim::Duration::millis(10));
    oracle.start();
    CdcOraclesFixture::write(f.target, f.target_node, Row{1, 10, 1});
    f.advance(sim::Duration::millis(15));
    CdcOraclesFixture::write(f.target, f.target_node, Row{1, 11, 2});
    f.advance(sim::Duration::millis(10));
    CdcOraclesFixture::write(f.target, f.target_node, Row{1, 9, 1},
                             true);  // the guard turns it away
    f.advance(sim::Duration::millis(10));
    CHECK(oracle.verdict().passed);
    CHECK_THAT(oracle.verdict().message,
               Catch::Contains("duplicates absorbed (writes that changed nothing): 1"));
    CdcOraclesFixture::write(f.target, f.target_node, Row{1, 9, 1}, false);  // unguarded: goes back
    f.advance(sim::Duration::millis(10));
    CHECK_FALSE(oracle.verdict().passed);
    CHECK_THAT(oracle.verdict().message, Catch::Contains("key 1 went back from version 2 to 1"));
}

}  // namespace
}  // namespace eosim::oracles

namespace eosim::oracles {
namespace {

// The offsets a CDC source checkpoints for one finished chunk at `position`
// (engine/connectors/cdc_source.cpp).
engine::SourceOffsets failed_cdc_offsets(const sim::external::BinlogPosition& position) {
    return {{{"cdc:t", 0}, (static_cast<int64_t>(position.file) << 40) + position.offset}};
}

TEST_CASE(
    "mirror oracle on a failed job: the source as of the binlog position its committed prefix reached",
    "[oracles][cdc][failed_job]") {
    CdcOraclesFixture f;
    for (int64_t k = 1; k <= 3; ++k)
        CdcOraclesFixture::write(f.source, f.source_node, Row{k, k, 1});
    const CommittedPrefix prefix{
        failed_cdc_offsets(f.source.end_position()), {}, "checkpoint 2", "checkpoint 3", "failed"};
    CdcOraclesFixture::write(f.source, f.source_node,
                             Row{1, 100, 2});  // changes the job may not have read
    CdcOraclesFixture::write(f.source, f.source_node, Row{4, 4, 1});
    for (int64_t k = 1; k <= 3; ++k)
        CdcOraclesFixture::write(f.target, f.target_node, Row{k, k, 1});
    MirrorOracle mirror(f.source, "t", f.target, "t");
    CHECK_FALSE(mirror.verdict().passed);  // against the source at the end
    mirror.set_job_failed(prefix);
    CHECK(mirror.verdict().passed);
    CdcOraclesFixture::write(f.target, f.target_node,
                             Row{1, 100, 2});  // a later change it did write
    CdcOraclesFixture::write(f.target, f.target_node, Row{4, 4, 1});
    CHECK(mirror.verdict().passed);
    // Negative controls: a row before the cut lost, a value the source never had from the cut on.
    CdcOraclesFixture::write(f.target, f.target_node, Row{3, 0, 2, true});
    CHECK_THAT(mirror.verdict().message,
               Catch::Contains("key 3 is missing from the target (source value 3 at the cut)"));
    CdcOraclesFixture::write(f.target, f.target_node, Row{3, 3, 3});
    CdcOraclesFixture::write(f.target, f.target_node, Row{2, 7, 2});
    CHECK_THAT(
        mirror.verdict().message,
        Catch::Contains("key 2 has value 7 in the target, a value the source row never had"));
}

}  // namespace
}  // namespace eosim::oracles
