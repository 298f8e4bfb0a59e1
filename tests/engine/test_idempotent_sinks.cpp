// The idempotent sinks against their stores, driven by hand (no engine): the document sink
// (engine/connectors/document_sink.h) and the key-value sink (key_value_sink.h). A "replay" is a
// new sink instance writing again records an earlier instance wrote, as after a failover: with a
// stable _id / an event id the store ends as if each record had been written once; the negative
// controls (generated ids, plain INCRBY) duplicate / over-count. Failed writes fail pre_commit.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/connectors/document_sink.h"
#include "engine/connectors/key_value_sink.h"
#include "sim/world.h"
#include "tests/engine/fake_sink_context.h"

namespace eosim::engine {
namespace {

namespace external = sim::external;

// A keyed running count's output: (key, 1), (key, 2), ... per key.
RecordBatch running_counts(int64_t keys, int64_t per_key) {
    RecordBatch out;
    for (int64_t n = 1; n <= per_key; ++n) {
        for (int64_t k = 0; k < keys; ++k) out.push_back(Record{k, n});
    }
    return out;
}

struct World {
    sim::World world{sim::WorldOptions{}};
    sim::NodeId store_node = world.nodes().add("store");
    sim::NodeId task_node = world.nodes().add("tm0");
    FakeSinkContext context{world, task_node};
};

std::vector<Record> records_in(const external::DocumentStore& store) {
    std::vector<Record> out;
    for (const external::Document& doc : store.documents("output"))
        out.push_back(DocumentSink::record_of(doc));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("document sink: with a stable _id a replay rewrites the same documents",
          "[idempotent_sinks]") {
    World w;
    const RecordBatch input = running_counts(4, 5);
    std::vector<Record> expected(input.begin(), input.end());
    std::sort(expected.begin(), expected.end());
    for (DocumentIdMode mode : {DocumentIdMode::record, DocumentIdMode::generated}) {
        INFO(to_string(mode));
        DocumentSinkOptions options;
        options.id = mode;
        options.batch_records = 7;
        external::DocumentStore store(w.world.scheduler(), w.world.network(), w.store_node,
                                      w.world.prng("documents"));
        {
            DocumentSink first(options, w.context, store);
            first.open(0, {});
            first.write(RecordBatch(
                input.begin(), input.begin() + 12));  // >= 7 buffered: one bulk of 12, then a crash
        }
        DocumentSink second(options, w.context, store);
        second.open(0, {});
        second.write(input);
        std::string state;
        std::string error;
        REQUIRE(second.pre_commit(1, &state, &error));
        if (mode == DocumentIdMode::record) {
            CHECK(records_in(store) == expected);
            CHECK(store.stats().absorbed_duplicates == 12);
        } else {
            CHECK(records_in(store).size() ==
                  expected.size() + 12);  // the negative control duplicates
            CHECK(store.stats().absorbed_duplicates == 0);
        }
    }
}

TEST_CASE(
    "document sink: key-versioned ids keep each key's highest value, a stale replay is absorbed",
    "[idempotent_sinks]") {
    World w;
    external::DocumentStore store(w.world.scheduler(), w.world.network(), w.store_node,
                                  w.world.prng("documents"));
    DocumentSinkOptions options;
    options.id = DocumentIdMode::key_versioned;
    DocumentSink sink(options, w.context, store);
    sink.open(0, {});
    sink.write(running_counts(3, 4));
    sink.write(running_counts(3, 2));  // an older replay
    std::string state;
    std::string error;
    REQUIRE(sink.pre_commit(1, &state, &error));
    CHECK(records_in(store) == std::vector<Record>{{0, 4}, {1, 4}, {2, 4}});
    CHECK(store.stats().absorbed_duplicates == 6);
}

TEST_CASE(
    "document sink: pre_commit retries failed bulk items and fails the checkpoint if some stay unwritten",
    "[idempotent_sinks]") {
    World w;
    external::DocumentStore store(w.world.scheduler(), w.world.network(), w.store_node,
                                  w.world.prng("documents"));
    DocumentSinkOptions options;
    options.batch_records = 1000;
    DocumentSink sink(options, w.context, store);
    sink.open(0, {});
    sink.write(running_counts(4, 10));
    std::string state;
    std::string error;
    SECTION("a partial failure: the retries get every item in") {
        store.set_partial_batch_failure(sim::Ratio{1, 4}, sim::Time::never());
        options.item_retries = 20;
        DocumentSink patient(options, w.context, store);
        patient.open(0, {});
        patient.write(running_counts(4, 10));
        CHECK(patient.pre_commit(1, &state, &error));
        CHECK(store.rejected_items() > 0);
        CHECK(store.documents("output").size() == 40);
    }
    SECTION("every item rejected: the checkpoint fails, nothing is lost for the next flush") {
        store.set_partial_batch_failure(sim::Ratio::always(),
                                        sim::Time::zero() + sim::Duration::seconds(1));
        CHECK_FALSE(sink.pre_commit(1, &state, &error));
        CHECK_THAT(error, Catch::Contains("40 record(s) not written"));
        store.set_partial_batch_failure(sim::Ratio::never(), sim::Time::zero());
        CHECK(sink.pre_commit(2, &state, &error));
        CHECK(store.documents("output").size() == 40);
    }
    SECTION("the store unavailable: the checkpoint fails") {
        store.set_unavailable_until(sim::Time::never());
        CHECK_FALSE(sink.pre_commit(1, &state, &error));
        CHECK_THAT(error, Catch::Contains("unavailable"));
        CHECK(store.documents("output").empty());
    }
}

TEST_CASE(
    "key-value sink: the dedup script counts each record once across a replay, plain INCRBY over-counts",
    "[idempotent_sinks]") {
    World w;
    const RecordBatch input = running_counts(3, 5);
    for (KeyValueSinkMode mode : {KeyValueSinkMode::dedup, KeyValueSinkMode::incr}) {
        INFO(to_string(mode));
        external::KeyValueStore store(w.world.scheduler(), w.world.network(), w.store_node);
        KeyValueSinkOptions options;
        options.mode = mode;
        {
            KeyValueSink first(options, w.context, store);
            first.open(0, {});
            first.write(RecordBatch(input.begin(), input.begin() + 9));
        }
        KeyValueSink second(options, w.context, store);
        second.open(0, {});
        second.write(input);
        std::string state;
        std::string error;
        REQUIRE(second.pre_commit(1, &state, &error));
        const std::vector<Record> counters = KeyValueSink::counters(store, "");
        if (mode == KeyValueSinkMode::dedup) {
            CHECK(counters == std::vector<Record>{{0, 5}, {1, 5}, {2, 5}});
            CHECK(store.stats().absorbed_duplicates == 9);
        } else {
            CHECK(counters == std::vector<Record>{{0, 8}, {1, 8}, {2, 8}});
        }
    }
}

TEST_CASE("key-value sink: failed calls stay pending and fail the checkpoint until they land",
          "[idempotent_sinks]") {
    World w;
    external::KeyValueStore store(w.world.scheduler(), w.world.network(), w.store_node);
    KeyValueSink sink(KeyValueSinkOptions{}, w.context, store);
    sink.open(0, {});
    store.set_write_errors_until(sim::Time::never());
    sink.write(running_counts(2, 3));
    std::string state;
    std::string error;
    CHECK_FALSE(sink.pre_commit(1, &state, &error));
    CHECK_THAT(error, Catch::Contains("6 record(s) not written"));
    CHECK(KeyValueSink::counters(store, "").empty());
    store.set_write_errors_until(sim::Time::zero());
    CHECK(sink.pre_commit(2, &state, &error));
    CHECK(KeyValueSink::counters(store, "") == std::vector<Record>{{0, 3}, {1, 3}});
    CHECK(w.context.failures.empty());
}

}  // namespace eosim::engine
