// Records' source identity (engine/vocabulary/record.h): the Kafka source names
// each record by its partition and offset, a re-read after a restore names it the same, map and
// filter pass the name on; the document sink's
// `source_offset` ids and the key-value sink's `source_offset` event ids built from it, against
// their stores with a replay (a new sink instance writing again what an earlier one wrote); the
// key-value sink's non-atomic dedup losing a count when an answer is lost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/checkpointing/channel_state_writer.h"
#include "engine/connectors/document_sink.h"
#include "engine/connectors/kafka_source.h"
#include "engine/connectors/key_value_sink.h"
#include "engine/runtime/operators.h"
#include "sim/world.h"
#include "tests/engine/fake_sink_context.h"

namespace eosim::engine {
namespace {

namespace external = sim::external;

struct SourceIdentityWorld {
    sim::World world{sim::WorldOptions{}};
    sim::NodeId broker = world.nodes().add("kafka");
    sim::NodeId store_node = world.nodes().add("store");
    sim::NodeId task_node = world.nodes().add("tm0");
    external::KafkaCluster kafka{world.scheduler(), world.network(), broker,
                                 external::KafkaOptions{}};
    FakeSinkContext context{world, task_node};
};

// `per_partition` records in each of two partitions of "input", every one (key 1, value 7): raw
// events that a "<key>:<value>" id cannot tell apart.
SourceOffsets fill_equal_events(SourceIdentityWorld& w, int64_t per_partition) {
    w.kafka.create_topic("input", 2);
    std::vector<std::pair<int32_t, external::KafkaRecord>> records;
    for (int32_t partition = 0; partition < 2; ++partition) {
        for (int64_t i = 0; i < per_partition; ++i)
            records.emplace_back(partition, external::KafkaRecord{1, 7});
    }
    REQUIRE(w.kafka.append_all(w.task_node, "input", records) == external::KafkaError::none);
    return SourceOffsets{{{"input", 0}, per_partition}, {{"input", 1}, per_partition}};
}

RecordBatch poll_source_records(KafkaSourceReader& reader, size_t max_records) {
    RecordBatch out;
    REQUIRE_FALSE(reader.poll(max_records, &out).has_value());
    return out;
}

// The equal events of fill_equal_events (per_partition in each of 2 partitions), read from the
// start by one source reader: what the sink tests below write.
RecordBatch read_equal_source_events(SourceIdentityWorld& w, int64_t per_partition) {
    const SourceOffsets end = fill_equal_events(w, per_partition);
    KafkaSourceReader reader(w.kafka, w.task_node, "input", 0, 1, end, std::nullopt, nullptr);
    reader.restore({});
    RecordBatch events = poll_source_records(reader, 100);
    REQUIRE(events.size() == static_cast<size_t>(2 * per_partition));
    return events;
}

// The records' names, sorted (a restored reader may visit its splits in another order).
std::vector<std::string> sorted_source_names(const RecordBatch& records) {
    std::vector<std::string> out;
    for (const Record& r : records) out.push_back(source_id_text("input", r.source_id));
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("source identity: packed partition and offset, named topic-partition-offset",
          "[source_identity]") {
    const uint64_t id = make_source_id(3, 1234567);
    CHECK(id != kSourceIdNone);
    CHECK(source_partition(id) == 3);
    CHECK(source_offset(id) == 1234567);
    CHECK(source_id_text("events", id) == "events-3-1234567");
    CHECK(source_id_text("events", make_source_id(0, 0)) == "events-0-0");
    CHECK(sizeof(Record) == 40);
}

TEST_CASE(
    "source identity: the Kafka source names each record, a re-read after a restore names it the same",
    "[source_identity]") {
    SourceIdentityWorld w;
    const SourceOffsets end = fill_equal_events(w, 5);
    KafkaSourceReader first(w.kafka, w.task_node, "input", 0, 1, end, std::nullopt, nullptr);
    first.restore({});
    const RecordBatch before = poll_source_records(first, 4);
    const std::string snapshot = first.snapshot(1);  // the checkpoint's offsets
    const RecordBatch replayed_later = poll_source_records(first, 100);
    CHECK(sorted_source_names(before) ==
          std::vector<std::string>{"input-0-0", "input-0-1", "input-0-2", "input-0-3"});
    REQUIRE(replayed_later.size() == 6);

    // A failover: a new reader restored from the snapshot reads the records after it again.
    KafkaSourceReader second(w.kafka, w.task_node, "input", 0, 1, end, std::nullopt, nullptr);
    second.restore({snapshot});
    const RecordBatch replay = poll_source_records(second, 100);
    CHECK(sorted_source_names(replay) == sorted_source_names(replayed_later));
    CHECK(sorted_source_names(replay).front() == "input-0-4");
}

TEST_CASE("source identity: map and filter keep it", "[source_identity]") {
    Record in{5, 20, 0, RowKind::insert, 99, make_source_id(2, 41)};
    const Record mapped = apply_map(MapSpec{3, 1, 0, 10, 1}, in);
    CHECK(mapped.key == 16);
    CHECK(mapped.value == 201);
    CHECK(mapped.timestamp == 99);
    CHECK(mapped.source_id == in.source_id);

    VertexSpec filter;
    filter.kind = OperatorKind::filter;
    filter.filter = FilterSpec{2, 1};
    std::vector<Record> passed;
    make_operator(filter, nullptr)->process(0, in, [&passed](const Record& r) {
        passed.push_back(r);
    });
    REQUIRE(passed.size() == 1);
    CHECK(passed.front().source_id == in.source_id);

    VertexSpec map;
    map.kind = OperatorKind::map;
    map.map = MapSpec{3, 1, 0, 10, 1};
    std::vector<Record> through_map;
    make_operator(map, nullptr)->process(0, in, [&through_map](const Record& r) {
        through_map.push_back(r);
    });
    CHECK(through_map == std::vector<Record>{mapped});
}

TEST_CASE("source identity: unaligned channel state keeps it only in the form that names it",
          "[source_identity]") {
    ChannelState channels;
    channels.inputs = {{RecordBatch{Record{1, 2, 0, RowKind::insert, 30, make_source_id(1, 9)}}}};
    const TaskStateBlob kept = decode_task_state(
        encode_task_state("op", channels, ChannelRecordFields::with_timestamp_and_source_id));
    CHECK(kept.operator_state == "op");
    CHECK(kept.channels.inputs == channels.inputs);
    const Record without =
        decode_task_state(encode_task_state("op", channels, ChannelRecordFields::with_timestamp))
            .channels.inputs.at(0)
            .at(0)
            .at(0);
    CHECK(without.timestamp == 30);
    CHECK(without.source_id == kSourceIdNone);
}

TEST_CASE(
    "document sink: source_offset ids keep equal events apart and a replay rewrites the same documents",
    "[source_identity][idempotent_sinks]") {
    SourceIdentityWorld w;
    const RecordBatch events = read_equal_source_events(w, 6);
    for (DocumentIdMode mode : {DocumentIdMode::source_offset, DocumentIdMode::record}) {
        INFO(to_string(mode));
        external::DocumentStore store(w.world.scheduler(), w.world.network(), w.store_node,
                                      w.world.prng("documents"));
        DocumentSinkOptions options;
        options.id = mode;
        options.source_topic = "input";
        options.batch_records = 5;
        {
            DocumentSink first(options, w.context, store);
            first.open(0, {});
            first.write(
                RecordBatch(events.begin(), events.begin() + 8));  // one bulk of 8, then a crash
        }
        DocumentSink second(options, w.context, store);
        second.open(0, {});
        second.write(events);  // the replay, from the start
        std::string state;
        std::string error;
        REQUIRE(second.pre_commit(1, &state, &error));
        const std::vector<external::Document> documents = store.documents("output");
        if (mode == DocumentIdMode::source_offset) {
            REQUIRE(documents.size() == 12);  // one per event
            CHECK(documents.front().id == "input-0-0");
            CHECK(store.stats().absorbed_duplicates == 8);
        } else {
            CHECK(documents.size() == 1);  // every event is "1:7": they collide without any fault
        }
    }
}

TEST_CASE("key-value sink: source_offset event ids count equal events once each, across a replay",
          "[source_identity][idempotent_sinks]") {
    SourceIdentityWorld w;
    const RecordBatch events = read_equal_source_events(w, 4);
    external::KeyValueStore store(w.world.scheduler(), w.world.network(), w.store_node);
    KeyValueSinkOptions options;
    options.event_id = KeyValueEventId::source_offset;
    options.source_topic = "input";
    {
        KeyValueSink first(options, w.context, store);
        first.open(0, {});
        first.write(RecordBatch(events.begin(), events.begin() + 5));
    }
    KeyValueSink second(options, w.context, store);
    second.open(0, {});
    second.write(events);
    std::string state;
    std::string error;
    REQUIRE(second.pre_commit(1, &state, &error));
    CHECK(KeyValueSink::counters(store, "") == std::vector<Record>{{1, 8}});
    CHECK(store.peek("seen:input-1-3") == 1);
    CHECK(store.stats().absorbed_duplicates == 5);
}

TEST_CASE(
    "key-value sink: a dedup not atomic with its effect loses a count when the INCRBY's answer is lost "
    "after the SETNX applied, the atomic script does not",
    "[source_identity][idempotent_sinks]") {
    SourceIdentityWorld w;
    const RecordBatch events = read_equal_source_events(w, 2);
    for (KeyValueSinkMode mode : {KeyValueSinkMode::dedup, KeyValueSinkMode::dedup_non_atomic}) {
        INFO(to_string(mode));
        external::KeyValueStore store(w.world.scheduler(), w.world.network(), w.store_node);
        KeyValueSinkOptions options;
        options.mode = mode;
        options.event_id = KeyValueEventId::source_offset;
        options.source_topic = "input";
        KeyValueSink sink(options, w.context, store);
        sink.open(0, {});
        // The first write's request is lost (dedup: the script; non-atomic: the SETNX applies, then
        // its INCRBY is the second write, whose request is lost).
        const external::CallDelivery lost = external::CallDelivery::request_lost;
        if (mode == KeyValueSinkMode::dedup) {
            store.races().script({{lost, 1}});
        } else {
            store.races().script({{external::CallDelivery::now, 1}, {lost, 1}});
        }
        sink.write(RecordBatch(events.begin(), events.begin() + 1));  // times out: stays pending
        sink.write(RecordBatch(events.begin() + 1, events.end()));    // the retry, then the rest
        std::string state;
        std::string error;
        REQUIRE(sink.pre_commit(1, &state, &error));
        const int64_t expected =
            mode == KeyValueSinkMode::dedup ? 4 : 3;  // non-atomic: the first event never counts
        CHECK(KeyValueSink::counters(store, "") == std::vector<Record>{{1, expected}});
    }
}

}  // namespace eosim::engine
