// The CDC source reader (engine/connectors/cdc_source.h) against the database model, without the
// engine: chunks cover every key once; a chunk's rows are the table at its high watermark even when
// the table changes between pages; rows wait for a completed checkpoint; a restored "read at H"
// chunk is rebuilt at H; the binlog phase emits changes after each chunk's watermark as a changelog
// with versions; a purged position fails with a message naming it. Also the keyed aggregate over a
// changelog (engine/runtime/operators.h) and the upsert sink (engine/connectors/upsert_sink.h).
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/connectors/cdc_source.h"
#include "engine/connectors/upsert_sink.h"
#include "engine/runtime/operators.h"
#include "engine/state/state_backend.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/external/database.h"
#include "sim/world.h"
#include "tests/engine/fake_sink_context.h"

namespace eosim::engine {
namespace {

using sim::external::BinlogPosition;
using sim::external::Database;
using sim::external::DatabaseError;
using sim::external::Row;

struct Fixture {
    sim::World world{sim::WorldOptions{}};
    sim::NodeId db_node = world.nodes().add("mysql");
    sim::NodeId task_node = world.nodes().add("tm0");
    Database db{world.scheduler(), world.network(), db_node,
                sim::external::DatabaseOptions{Database::kEventBytes * 4, 0}};
    VertexSpec vertex;

    Fixture() {
        db.create_table("t");
        vertex.kind = OperatorKind::cdc_source;
        vertex.table = "t";
        vertex.chunk_size = 10;
        vertex.chunk_key_end = 30;
        vertex.fetch_size = 3;
        vertex.parallelism = 1;
    }
    void write(const Row& row) {
        Database::TransactionId id = 0;
        REQUIRE(db.begin(db_node, &id) == DatabaseError::none);
        REQUIRE(db.upsert(db_node, id, "t", row, false) == DatabaseError::none);
        REQUIRE(db.commit(db_node, id) == DatabaseError::none);
    }
    void remove(int64_t key) {
        Database::TransactionId id = 0;
        REQUIRE(db.begin(db_node, &id) == DatabaseError::none);
        REQUIRE(db.remove(db_node, id, "t", key) == DatabaseError::none);
        REQUIRE(db.commit(db_node, id) == DatabaseError::none);
    }
    // Polls until `done` or `max_polls`; returns every record emitted.
    RecordBatch poll(CdcSourceReader& reader, int max_polls,
                     const std::function<void()>& between = {}) {
        RecordBatch all;
        for (int i = 0; i < max_polls; ++i) {
            RecordBatch batch;
            const auto error = reader.poll(1000, &batch);
            REQUIRE_FALSE(error);
            all.insert(all.end(), batch.begin(), batch.end());
            if (between) between();
        }
        return all;
    }
};

std::map<int64_t, int64_t> as_table(const RecordBatch& records) {
    std::map<int64_t, int64_t> table;
    for (const Record& r : records) {
        REQUIRE(r.kind == RowKind::insert);
        REQUIRE(table.count(r.key) == 0);  // each key once
        table[r.key] = r.value;
    }
    return table;
}

std::map<int64_t, int64_t> live(const Database& db) {
    std::map<int64_t, int64_t> table;
    for (const auto& [key, row] : db.table_contents("t")) table[key] = row.value;
    return table;
}

TEST_CASE(
    "cdc source: chunks cover every key once, across subtasks, and wait for a completed checkpoint",
    "[cdc]") {
    Fixture f;
    for (int64_t k : {-5, 0, 3, 9, 10, 15, 29, 30, 47})
        f.write(Row{k, k * 10, 1});  // outside [0, 30) too
    f.vertex.parallelism = 2;
    FakeSinkContext c0(f.world, f.task_node, 0);
    FakeSinkContext c1(f.world, f.task_node, 1);
    CdcSourceReader r0(f.vertex, c0, f.db, 0);
    CdcSourceReader r1(f.vertex, c1, f.db, 1);
    CHECK(r0.chunk_count() == 3);
    const RecordBatch before0 = f.poll(r0, 20);
    const RecordBatch before1 = f.poll(r1, 20);
    CHECK(before0.empty());  // read, but no checkpoint holds their high watermarks yet
    CHECK(before1.empty());  // read, but no checkpoint holds their high watermarks yet
    r0.snapshot(1);
    r1.snapshot(1);
    r0.checkpoint_complete(1);
    r1.checkpoint_complete(1);
    RecordBatch all = f.poll(r0, 5);
    const RecordBatch more = f.poll(r1, 5);
    all.insert(all.end(), more.begin(), more.end());
    CHECK(as_table(all) == live(f.db));
    f.db.set_read_only(true);
    CHECK(r0.reached_end());
    CHECK(r1.reached_end());
}

TEST_CASE(
    "cdc source: a chunk's rows are the table at its high watermark though it changes between pages",
    "[cdc]") {
    Fixture f;
    for (int64_t k = 0; k < 10; ++k) f.write(Row{k, k, 1});
    f.vertex.chunk_key_end = 10;  // one chunk
    FakeSinkContext c(f.world, f.task_node, 0);
    CdcSourceReader reader(f.vertex, c, f.db, 0);
    int step = 0;
    // Between pages: change a row already read, delete one not yet read, insert a new one.
    f.poll(reader, 6, [&] {
        ++step;
        if (step == 1) f.write(Row{1, 100, 2});
        if (step == 2) f.remove(8);
        if (step == 3) f.write(Row{5, 500, 2});
    });
    const auto at_high = live(f.db);
    f.write(Row{2, 222, 2});  // after H: not in the chunk's rows, comes from the binlog
    reader.snapshot(1);
    reader.checkpoint_complete(1);
    const RecordBatch rows = f.poll(reader, 1);
    CHECK(as_table(rows) == at_high);
    const RecordBatch changes = f.poll(reader, 1);
    REQUIRE(changes.size() == 2);
    CHECK(changes[0] == Record{2, 2, 1, RowKind::update_before});
    CHECK(changes[1] == Record{2, 222, 2, RowKind::update_after});
}

TEST_CASE("cdc source: a restored chunk read at H is rebuilt at H, then the binlog resumes exactly",
          "[cdc]") {
    Fixture f;
    for (int64_t k = 0; k < 10; ++k) f.write(Row{k, k, 1});
    f.vertex.chunk_key_end = 10;
    FakeSinkContext c(f.world, f.task_node, 0);
    CdcSourceReader first(f.vertex, c, f.db, 0);
    f.poll(first, 6);
    const auto at_high = live(f.db);
    const std::string state =
        first.snapshot(1);  // holds "read at H"; the attempt dies before emitting
    // The table moves on: an update, a delete, an insert.
    f.write(Row{3, 33, 2});
    f.remove(4);
    f.write(Row{7, 77, 2});

    CdcSourceReader second(f.vertex, c, f.db, 0);
    second.restore({state});
    const RecordBatch out = f.poll(second, 8);
    std::map<int64_t, int64_t> rows;
    RecordBatch changes;
    for (const Record& r : out) {
        if (r.kind == RowKind::insert && rows.count(r.key) == 0 && changes.empty()) {
            rows[r.key] = r.value;
        } else {
            changes.push_back(r);
        }
    }
    CHECK(rows == at_high);
    // Then exactly the changes after H: 3 updated, 4 deleted (version 1 + 1), 7 updated.
    const RecordBatch expected{
        Record{3, 3, 1, RowKind::update_before}, Record{3, 33, 2, RowKind::update_after},
        Record{4, 4, 2, RowKind::delete_row}, Record{7, 7, 1, RowKind::update_before},
        Record{7, 77, 2, RowKind::update_after}};
    CHECK(changes == expected);
}

TEST_CASE("cdc source: restoring a purged binlog position fails with a message naming it",
          "[cdc]") {
    Fixture f;
    for (int64_t k = 0; k < 10; ++k) f.write(Row{k, k, 1});
    f.vertex.chunk_key_end = 10;
    FakeSinkContext c(f.world, f.task_node, 0);
    CdcSourceReader first(f.vertex, c, f.db, 0);
    f.poll(first, 6);
    first.snapshot(1);
    first.checkpoint_complete(1);
    f.poll(first, 2);
    const std::string state = first.snapshot(2);  // binlog phase, position at the end
    for (int64_t k = 0; k < 20; ++k) f.write(Row{k, k + 1, 2});
    f.db.purge_binlogs_before(f.db.end_position().file);
    CdcSourceReader second(f.vertex, c, f.db, 0);
    second.restore({state});
    RecordBatch out;
    const auto error = second.poll(100, &out);
    REQUIRE(error);
    CHECK_THAT(*error, Catch::Contains("was purged"));
    CHECK_THAT(*error, Catch::Contains("mysql-bin.0000"));
    CHECK(out.empty());
}

TEST_CASE("keyed aggregate over a changelog retracts, and deletes a key with no rows left",
          "[cdc]") {
    VertexSpec v;
    v.kind = OperatorKind::keyed_count;
    v.changelog_input = true;
    auto op = make_operator(v, make_heap_state_backend(KeyGroupRange{0, 127}, 128));
    RecordBatch out;
    const Emit emit = [&out](const Record& r) { out.push_back(r); };
    op->process(0, Record{1, 10, 1, RowKind::insert}, emit);
    op->process(0, Record{1, 20, 1, RowKind::insert}, emit);
    op->process(0, Record{1, 10, 1, RowKind::update_before}, emit);
    op->process(0, Record{1, 11, 2, RowKind::update_after}, emit);
    op->process(0, Record{1, 11, 3, RowKind::delete_row}, emit);
    op->process(0, Record{1, 20, 2, RowKind::delete_row}, emit);
    const RecordBatch expected{
        Record{1, 1, 0, RowKind::insert},       Record{1, 2, 0, RowKind::update_after},
        Record{1, 1, 0, RowKind::update_after}, Record{1, 2, 0, RowKind::update_after},
        Record{1, 1, 0, RowKind::update_after}, Record{1, 1, 0, RowKind::delete_row}};
    CHECK(out == expected);
    CHECK(op->keyed_state()->contents().empty());
    // Over an append stream the operator is what it always was: every output an insert.
    VertexSpec plain;
    plain.kind = OperatorKind::keyed_sum;
    auto sum = make_operator(plain, make_heap_state_backend(KeyGroupRange{0, 127}, 128));
    out.clear();
    sum->process(0, Record{4, 5}, emit);
    sum->process(0, Record{4, 7}, emit);
    CHECK(out == RecordBatch{Record{4, 5}, Record{4, 12}});
}

TEST_CASE(
    "upsert sink: batches per key, the guard turns older versions away, a failed flush fails the checkpoint",
    "[cdc]") {
    sim::World world{sim::WorldOptions{}};
    const sim::NodeId db_node = world.nodes().add("mysql-target");
    const sim::NodeId task_node = world.nodes().add("tm0");
    Database db(world.scheduler(), world.network(), db_node);
    db.create_table("out");
    FakeSinkContext context(world, task_node, 0);
    for (bool guarded : {true, false}) {
        UpsertSink sink(UpsertSinkOptions{"out", guarded, 100}, context, db);
        sink.write({Record{1, 10, 5, RowKind::insert}, Record{2, 20, 1, RowKind::insert},
                    Record{2, 20, 1, RowKind::update_before},
                    Record{2, 21, 2, RowKind::update_after}});
        CHECK(db.table_contents("out").empty());  // buffered until the checkpoint
        std::string state;
        std::string error;
        REQUIRE(sink.pre_commit(1, &state, &error));
        CHECK(db.table_contents("out").at(2).value == 21);
        // A replay of an older version of key 1, and a delete of key 2.
        sink.write({Record{1, 9, 4, RowKind::update_after}, Record{2, 21, 3, RowKind::delete_row}});
        REQUIRE(sink.pre_commit(2, &state, &error));
        if (guarded) {
            CHECK(db.table_contents("out").at(1).value == 10);  // the older write changed nothing
            CHECK(db.table_contents("out").at(2).deleted);      // a tombstone keeps the version
            CHECK(db.table_contents("out").at(2).version == 3);
        } else {
            CHECK(db.table_contents("out").at(1).value == 9);  // went backwards
            CHECK(db.table_contents("out").count(2) == 0);
        }
        db.set_write_errors_until(world.now() + sim::Duration::seconds(1));
        sink.write({Record{3, 30, 1, RowKind::insert}});
        CHECK_FALSE(sink.pre_commit(3, &state, &error));
        CHECK_THAT(error, Catch::Contains("write_error"));
        db.set_write_errors_until(world.now());
        Database::TransactionId id = 0;
        REQUIRE(db.begin(db_node, &id) == DatabaseError::none);
        REQUIRE(db.remove(db_node, id, "out", 1) == DatabaseError::none);
        REQUIRE(db.remove(db_node, id, "out", 2) == DatabaseError::none);
        REQUIRE(db.remove(db_node, id, "out", 3) == DatabaseError::none);
        REQUIRE(db.commit(db_node, id) == DatabaseError::none);
    }
    CHECK(db.stats().unchanged_writes >= 1);
}

}  // namespace
}  // namespace eosim::engine
