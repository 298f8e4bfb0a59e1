// Tests of the database model (sim/external/database.h) and its workload
// (sim/external/database_workload.h): transactions, guarded upserts, reads and range scans, the
// binlog (images, positions, rotation, GTIDs, retention, purge), reachability and fault switches.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/external/database.h"
#include "sim/external/database_workload.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Time;
using eosim::sim::World;
using eosim::sim::WorldOptions;
using namespace eosim::sim::external;

struct DatabaseFixture : eosim::test::ExternalTestWorld {
    NodeId db_node = add_node("mysql");
    NodeId client = add_node("client");
    Database db;

    explicit DatabaseFixture(DatabaseOptions options = {})
        : db(world.scheduler(), world.network(), db_node, options) {
        db.create_table("t");
    }
    DatabaseError write(const std::vector<Row>& rows, bool guarded = false,
                        std::vector<StatementResult>* results = nullptr) {
        Database::TransactionId id = 0;
        if (DatabaseError e = db.begin(client, &id); e != DatabaseError::none) return e;
        for (const Row& row : rows)
            REQUIRE(db.upsert(client, id, "t", row, guarded) == DatabaseError::none);
        return db.commit(client, id, results);
    }
    std::vector<BinlogEvent> binlog(BinlogPosition from = {}) {
        std::vector<BinlogEvent> events;
        REQUIRE(db.read_binlog(client, from, 1000, &events) == DatabaseError::none);
        return events;
    }
};

}  // namespace

TEST_CASE(
    "database: a committed transaction changes rows and writes one binlog transaction with images",
    "[external][database]") {
    DatabaseFixture f;
    REQUIRE(f.write({{1, 10, 1}, {2, 20, 1}}) == DatabaseError::none);
    REQUIRE(f.write({{1, 11, 2}}) == DatabaseError::none);
    Database::TransactionId id = 0;
    REQUIRE(f.db.begin(f.client, &id) == DatabaseError::none);
    REQUIRE(f.db.remove(f.client, id, "t", 2) == DatabaseError::none);
    REQUIRE(f.db.commit(f.client, id) == DatabaseError::none);

    const auto events = f.binlog();
    REQUIRE(events.size() == 4);
    CHECK(events[0].kind == ChangeKind::insert);
    CHECK(events[0].gtid == 1);
    CHECK(events[1].gtid == 1);
    CHECK(events[2].kind == ChangeKind::update);
    CHECK(events[2].before == Row{1, 10, 1});
    CHECK(events[2].after == Row{1, 11, 2});
    CHECK(events[2].gtid == 2);
    CHECK(events[3].kind == ChangeKind::remove);
    CHECK(events[3].before == Row{2, 20, 1});
    CHECK(!events[3].after);
    CHECK(events[3].gtid == 3);
    CHECK(events[1].position < events[2].position);
    CHECK(events[1].next == events[2].position);
    std::optional<Row> row;
    REQUIRE(f.db.read(f.client, "t", 1, &row) == DatabaseError::none);
    CHECK(row == Row{1, 11, 2});
    REQUIRE(f.db.read(f.client, "t", 2, &row) == DatabaseError::none);
    CHECK(!row);
}

TEST_CASE("database: the binlog of a rolled-back transaction is empty and its rows never appear",
          "[external][database]") {
    DatabaseFixture f;
    const BinlogPosition before = f.db.end_position();
    Database::TransactionId id = 0;
    REQUIRE(f.db.begin(f.client, &id) == DatabaseError::none);
    REQUIRE(f.db.upsert(f.client, id, "t", Row{5, 50, 1}, false) == DatabaseError::none);
    REQUIRE(f.db.rollback(f.client, id) == DatabaseError::none);
    CHECK(f.binlog().empty());
    CHECK(f.db.end_position() == before);
    CHECK(f.db.table_contents("t").empty());
    CHECK(f.db.commit(f.client, id) == DatabaseError::no_transaction);
    // The next committed transaction takes GTID 1: a rollback uses none.
    REQUIRE(f.write({{6, 60, 1}}) == DatabaseError::none);
    CHECK(f.binlog().at(0).gtid == 1);
}

TEST_CASE("database: the version guard rejects an older or equal version and accepts a newer one",
          "[external][database]") {
    DatabaseFixture f;
    std::vector<StatementResult> results;
    REQUIRE(f.write({{1, 10, 5}}, true, &results) == DatabaseError::none);
    REQUIRE(f.write({{1, 99, 3}}, true, &results) ==
            DatabaseError::none);  // older: nothing changes
    REQUIRE(f.write({{1, 98, 5}}, true, &results) ==
            DatabaseError::none);  // equal: nothing changes
    REQUIRE(f.write({{1, 12, 6}}, true, &results) == DatabaseError::none);  // newer: applied
    CHECK(results ==
          std::vector<StatementResult>{StatementResult::inserted, StatementResult::unchanged,
                                       StatementResult::unchanged, StatementResult::updated});
    CHECK(f.db.table_contents("t").at(1) == Row{1, 12, 6});
    CHECK(f.db.stats().unchanged_writes == 2);
    CHECK(f.binlog().size() == 2);  // unchanged statements are not logged
    // Without the guard the older write wins (the negative control's behaviour).
    REQUIRE(f.write({{1, 7, 2}}, false) == DatabaseError::none);
    CHECK(f.db.table_contents("t").at(1) == Row{1, 7, 2});
}

TEST_CASE("database: range scans page through a primary-key range, full scans see every row",
          "[external][database]") {
    DatabaseFixture f;
    std::vector<Row> rows;
    for (int64_t k = 0; k < 10; ++k) rows.push_back(Row{k, k * 10, 1});
    REQUIRE(f.write(rows) == DatabaseError::none);
    std::vector<Row> page;
    REQUIRE(f.db.scan_range(f.client, "t", 3, 8, std::nullopt, 2, &page) == DatabaseError::none);
    REQUIRE(page.size() == 2);
    CHECK(page[0].key == 3);
    CHECK(page[1].key == 4);
    page.clear();
    REQUIRE(f.db.scan_range(f.client, "t", 3, 8, 4, 100, &page) == DatabaseError::none);
    REQUIRE(page.size() == 3);
    CHECK(page.front().key == 5);
    CHECK(page.back().key == 7);
    page.clear();
    REQUIRE(f.db.scan_range(f.client, "t", std::nullopt, 2, std::nullopt, 100, &page) ==
            DatabaseError::none);
    CHECK(page.size() == 2);
    page.clear();
    REQUIRE(f.db.scan(f.client, "t", &page) == DatabaseError::none);
    CHECK(page.size() == 10);
    CHECK(f.db.scan(f.client, "nope", &page) == DatabaseError::no_such_table);
}

TEST_CASE(
    "database: binlog files rotate at their size, purge then read fails, retention purges the oldest",
    "[external][database]") {
    DatabaseFixture f(DatabaseOptions{Database::kEventBytes * 2, 0});
    for (int64_t k = 0; k < 5; ++k) REQUIRE(f.write({{k, k, 1}}) == DatabaseError::none);
    const auto events = f.binlog();
    REQUIRE(events.size() == 5);
    CHECK(events[0].position == BinlogPosition{1, 0});
    CHECK(events[1].position == BinlogPosition{1, Database::kEventBytes});
    CHECK(events[2].position == BinlogPosition{2, 0});
    CHECK(events[4].position == BinlogPosition{3, 0});
    CHECK(events[1].next == BinlogPosition{2, 0});

    f.db.purge_binlogs_before(3);
    std::vector<BinlogEvent> out;
    CHECK(f.db.read_binlog(f.client, BinlogPosition{2, Database::kEventBytes}, 10, &out) ==
          DatabaseError::binlog_purged);
    CHECK(f.db.read_binlog(f.client, events[4].position, 10, &out) == DatabaseError::none);
    CHECK(out.size() == 1);
    CHECK(f.db.first_retained_file() == 3);

    DatabaseFixture g(DatabaseOptions{Database::kEventBytes, 2});
    for (int64_t k = 0; k < 6; ++k) REQUIRE(g.write({{k, k, 1}}) == DatabaseError::none);
    CHECK(g.db.first_retained_file() == 6);  // files 6 and 7 (the current, empty) are kept
    CHECK(g.db.read_binlog(g.client, BinlogPosition{5, 0}, 10, &out) ==
          DatabaseError::binlog_purged);
    CHECK(g.db.history().size() == 6);  // the harness's record keeps everything
}

// MySQL 8's binlog_expire_logs_seconds: at each rotation (when MySQL flushes the binary log) the
// closed files whose last event is older than the expiry are purged; nothing is purged between
// rotations; a count retention beside it purges too, whichever reaches further.
TEST_CASE("database: binlog files expire by age at a rotation", "[external][database]") {
    DatabaseFixture f(DatabaseOptions{Database::kEventBytes * 2, 0, Duration::seconds(10)});
    const auto write_at = [&f](int64_t seconds, int64_t key) {
        f.advance_to(Time::zero() + Duration::seconds(seconds));
        REQUIRE(f.write({{key, key, 1}}) == DatabaseError::none);
    };
    write_at(0, 1);
    write_at(0, 2);  // file 1 closed at 0 s
    write_at(5, 3);
    write_at(5, 4);  // file 2 closed at 5 s
    CHECK(f.db.first_retained_file() == 1);
    write_at(12, 5);
    write_at(12, 6);  // file 3 closed at 12 s: file 1 (0 s) is 12 s old, file 2 (5 s) only 7
    CHECK(f.db.first_retained_file() == 2);
    std::vector<BinlogEvent> out;
    CHECK(f.db.read_binlog(f.client, BinlogPosition{1, Database::kEventBytes}, 10, &out) ==
          DatabaseError::binlog_purged);
    CHECK(f.db.read_binlog(f.client, BinlogPosition{2, 0}, 10, &out) == DatabaseError::none);
    CHECK(out.size() == 4);
    write_at(30, 7);  // no rotation: nothing is purged, however old
    CHECK(f.db.first_retained_file() == 2);
    write_at(30, 8);  // file 4 closed at 30 s: files 2 and 3 expired, file 4 is new
    CHECK(f.db.first_retained_file() == 4);
    CHECK(f.db.history().size() == 8);

    DatabaseFixture g(DatabaseOptions{Database::kEventBytes, 3, Duration::seconds(60)});
    for (int64_t k = 0; k < 6; ++k) REQUIRE(g.write({{k, k, 1}}) == DatabaseError::none);
    CHECK(g.db.first_retained_file() == 5);  // the count purges where the age does not yet
}

TEST_CASE(
    "database: calls fail from a down or partitioned node, while unavailable, commits fail under write errors",
    "[external][database]") {
    DatabaseFixture f;
    std::vector<Row> rows;
    f.db.set_unavailable_until(Time{1'000'000});
    CHECK(f.write({{1, 1, 1}}) == DatabaseError::unavailable);
    f.advance_to(Time{1'000'000});
    f.db.set_write_errors_until(Time{2'000'000});
    CHECK(f.write({{1, 1, 1}}) == DatabaseError::write_error);
    CHECK(f.db.scan(f.client, "t", &rows) == DatabaseError::none);  // reads still work
    CHECK(rows.empty());
    f.advance_to(Time{2'000'000});
    CHECK(f.write({{1, 1, 1}}) == DatabaseError::none);
    const auto id = f.world.network().partition({f.client}, {f.db_node}, true);
    CHECK(f.db.scan(f.client, "t", &rows) == DatabaseError::unavailable);
    f.world.network().heal(id);
    f.world.nodes().crash(f.client);
    CHECK(f.db.scan(f.client, "t", &rows) == DatabaseError::unavailable);
    f.db.set_read_only(true);
    CHECK(f.db.table_contents("t").size() == 1);
}

TEST_CASE(
    "database workload: deterministic from the seed, rolls back some transactions, ends read-only",
    "[external][database]") {
    auto run = [](uint64_t seed) {
        WorldOptions options;
        options.seed = seed;
        World world{options};
        const NodeId db_node = world.nodes().add("mysql");
        Database db(world.scheduler(), world.network(), db_node);
        DatabaseWorkloadSpec spec;
        spec.table = "t";
        spec.transactions = 300;
        spec.keys = 20;
        spec.rate_per_second = 1000;
        spec.rollback_ratio = {1, 5};
        DatabaseWorkload workload(world.scheduler(), db, db_node, {{"t", 10}}, spec,
                                  world.prng("workload"));
        workload.start();
        world.scheduler().run_until(Time{10'000'000'000});
        CHECK(workload.done());
        CHECK(db.read_only());
        CHECK(workload.rolled_back() > 0);
        // Replaying the binlog from the start gives the final table.
        std::map<int64_t, Row> replayed;
        for (const BinlogEvent& e : db.history()) {
            if (e.after)
                replayed[e.key()] = *e.after;
            else
                replayed.erase(e.key());
        }
        CHECK(replayed == db.table_contents("t"));
        return db.history().size();
    };
    CHECK(run(7) == run(7));
}
