// Tests of the Kafka-like log (sim/external/kafka.h), its produce path and reads: plain appends,
// visibility per isolation level, read_each against read, send_batch's per-partition batches, the
// last stable offset, the committed views and read summaries, faults, the read_committed negative
// control, and a property over random interleavings of several producers. The transactions'
// lifecycle is in test_kafka_transactions.cpp.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/external/kafka.h"
#include "tests/external/kafka_fixture.h"

using eosim::sim::Duration;
using eosim::sim::kNoNode;
using eosim::sim::NodeId;
using eosim::sim::Time;
using eosim::test::kafka_err;
using eosim::test::KafkaFixture;
using eosim::test::KafkaValues;
using eosim::test::kKafkaTopic;
using namespace eosim::sim::external;

TEST_CASE("plain appends are visible at once to both isolation levels", "[kafka]") {
    KafkaFixture f;
    int64_t offset = -1;
    CHECK(kafka_err(f.kafka.append(f.producer, kKafkaTopic, 0, {1, 10}, &offset)) == "none");
    CHECK(offset == 0);
    CHECK(kafka_err(f.kafka.append(f.producer, kKafkaTopic, 0, {2, 20}, &offset)) == "none");
    CHECK(offset == 1);
    CHECK(kafka_err(f.kafka.append(f.producer, kKafkaTopic, 1, {3, 30}, &offset)) == "none");
    CHECK(offset == 0);

    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{10, 20});
    CHECK(f.values(0, Isolation::read_uncommitted) == KafkaValues{10, 20});
    CHECK(f.values(1, Isolation::read_committed) == KafkaValues{30});
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 2);
    CHECK(f.kafka.committed_records(kKafkaTopic) ==
          std::vector<KafkaRecord>{{1, 10}, {2, 20}, {3, 30}});

    ReadResult r = f.kafka.read(f.reader, kKafkaTopic, 0, 0, 10, Isolation::read_committed);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].transaction == -1);
    CHECK(r.entries[1].offset == 1);
    CHECK(r.next_offset == 2);
}

TEST_CASE("unknown topics and partitions", "[kafka]") {
    KafkaFixture f;
    CHECK(f.kafka.partitions(kKafkaTopic) == 2);
    CHECK(f.kafka.partitions("nope") == 0);
    CHECK(kafka_err(f.kafka.append(f.producer, "nope", 0, {1, 1})) == "unknown_topic");
    CHECK(kafka_err(f.kafka.append(f.producer, kKafkaTopic, 2, {1, 1})) == "unknown_topic");
    CHECK(kafka_err(f.kafka.append(f.producer, kKafkaTopic, -1, {1, 1})) == "unknown_topic");
    CHECK(kafka_err(f.kafka.read(f.reader, "nope", 0, 0, 10, Isolation::read_committed).error) ==
          "unknown_topic");
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    CHECK(kafka_err(f.kafka.send(f.producer, h, "nope", 0, {1, 1})) == "unknown_topic");
    CHECK(f.kafka.end_offset("nope", 0, Isolation::read_uncommitted) == 0);
}

TEST_CASE(
    "a committed transaction becomes visible to read_committed, before, only to read_uncommitted",
    "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 10})) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 1, {1, 11})) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 12})) == "none");

    CHECK(f.values(0, Isolation::read_committed).empty());
    CHECK(f.values(0, Isolation::read_uncommitted) == KafkaValues{10, 12});
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 0);
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_uncommitted) == 2);
    CHECK(f.kafka.committed_records(kKafkaTopic).empty());

    REQUIRE(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{10, 12});
    CHECK(f.values(1, Isolation::read_committed) == KafkaValues{11});
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 2);
    CHECK(f.kafka.committed_records(kKafkaTopic) ==
          std::vector<KafkaRecord>{{1, 10}, {1, 12}, {1, 11}});

    ReadResult r = f.kafka.read(f.reader, kKafkaTopic, 0, 0, 10, Isolation::read_committed);
    REQUIRE(r.entries.size() == 2);
    CHECK(f.kafka.transaction_state(r.entries[0].transaction) == TxnState::committed);
    CHECK(f.kafka.stats().transactions_begun == 1);
    CHECK(f.kafka.stats().transactions_committed == 1);
    CHECK(f.kafka.stats().transactions_aborted == 0);
}

TEST_CASE("an aborted transaction is never visible to read_committed", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 10})) == "none");
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 20})) == "none");
    REQUIRE(kafka_err(f.kafka.abort(f.producer, h)) == "none");

    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{20});
    CHECK(f.values(0, Isolation::read_uncommitted) == KafkaValues{10, 20});
    CHECK(f.kafka.committed_records(kKafkaTopic) == std::vector<KafkaRecord>{{2, 20}});
    CHECK(f.kafka.stats().transactions_aborted == 1);

    // The same producer can start over with a new transaction.
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 30})) == "none");
    REQUIRE(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{20, 30});
}

TEST_CASE("the last stable offset holds read_committed readers behind an open transaction",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle a = f.init("a");
    ProducerHandle b = f.init("b");
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, 1})) == "none");  // offset 0
    REQUIRE(kafka_err(f.kafka.begin(f.producer, a)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, a, kKafkaTopic, 0, {1, 2})) ==
            "none");  // offset 1, open
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, 3})) ==
            "none");  // offset 2, plain
    REQUIRE(kafka_err(f.kafka.begin(f.other, b)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.other, b, kKafkaTopic, 0, {2, 4})) == "none");  // offset 3
    REQUIRE(kafka_err(f.kafka.commit(f.other, b)) == "none");

    // Committed and plain records after the open transaction stay hidden.
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 1);
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{1});
    ReadResult r = f.kafka.read(f.reader, kKafkaTopic, 0, 1, 10, Isolation::read_committed);
    CHECK(r.entries.empty());
    CHECK(r.next_offset == 1);
    // Partition 1 is not blocked.
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 1, {0, 5})) == "none");
    CHECK(f.values(1, Isolation::read_committed) == KafkaValues{5});

    SECTION("commit releases everything") {
        REQUIRE(kafka_err(f.kafka.commit(f.producer, a)) == "none");
        CHECK(f.values(0, Isolation::read_committed) == KafkaValues{1, 2, 3, 4});
    }
    SECTION("abort releases everything but the aborted records") {
        REQUIRE(kafka_err(f.kafka.abort(f.producer, a)) == "none");
        CHECK(f.values(0, Isolation::read_committed) == KafkaValues{1, 3, 4});
    }
}

TEST_CASE(
    "read: max_records counts returned entries only, next_offset follows the last examined entry",
    "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, 0})) == "none");  // 0
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) == "none");  // 1
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 2})) == "none");  // 2
    REQUIRE(kafka_err(f.kafka.abort(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, 3})) == "none");  // 3
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, 4})) == "none");  // 4

    ReadResult r = f.kafka.read(f.reader, kKafkaTopic, 0, 0, 2, Isolation::read_committed);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].offset == 0);
    CHECK(r.entries[1].offset == 3);
    CHECK(r.next_offset == 4);
    r = f.kafka.read(f.reader, kKafkaTopic, 0, r.next_offset, 2, Isolation::read_committed);
    REQUIRE(r.entries.size() == 1);
    CHECK(r.entries[0].record.value == 4);
    CHECK(r.next_offset == 5);
    r = f.kafka.read(f.reader, kKafkaTopic, 0, 5, 2, Isolation::read_committed);
    CHECK(r.entries.empty());
    CHECK(r.next_offset == 5);

    r = f.kafka.read(f.reader, kKafkaTopic, 0, 1, 2, Isolation::read_uncommitted);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].record.value == 1);
    CHECK(r.next_offset == 3);
    r = f.kafka.read(f.reader, kKafkaTopic, 0, 0, 0, Isolation::read_uncommitted);
    CHECK(r.entries.empty());
    CHECK(r.next_offset == 0);
}

// read_each is the read without the vector: what it visits and where it ends are read's answer.
TEST_CASE("read_each visits exactly the entries read returns and ends where read ends", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, 0})) == "none");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 2})) == "none");
    REQUIRE(kafka_err(f.kafka.abort(f.producer, h)) == "none");
    for (int64_t v = 3; v < 8; ++v)
        REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {0, v})) == "none");
    for (const Isolation isolation : {Isolation::read_committed, Isolation::read_uncommitted}) {
        for (int64_t from = -1; from <= 9; ++from) {
            for (size_t max : {size_t{0}, size_t{1}, size_t{3}, SIZE_MAX}) {
                const ReadResult expected =
                    f.kafka.read(f.reader, kKafkaTopic, 0, from, max, isolation);
                std::vector<std::pair<int64_t, int64_t>> visited;  // (offset, value)
                int64_t next_offset = -42;
                const KafkaError error =
                    f.kafka.read_each(f.reader, kKafkaTopic, 0, from, max, isolation, &next_offset,
                                      [&visited](const ReadResult::Entry& e) {
                                          visited.emplace_back(e.offset, e.record.value);
                                      });
                std::vector<std::pair<int64_t, int64_t>> returned;
                for (const auto& e : expected.entries)
                    returned.emplace_back(e.offset, e.record.value);
                CHECK(kafka_err(error) == kafka_err(expected.error));
                CHECK(visited == returned);
                CHECK(next_offset == expected.next_offset);
            }
        }
    }
    int64_t next_offset = -42;
    bool visited = false;
    CHECK(kafka_err(f.kafka.read_each(
              f.reader, "nope", 0, 3, 10, Isolation::read_committed, &next_offset,
              [&visited](const ReadResult::Entry&) { visited = true; })) == "unknown_topic");
    CHECK(next_offset == 3);
    CHECK_FALSE(visited);
}

// send_batch writes one batch per partition: each partition's records in their order, the
// transaction's first offset per partition taken at its first batch there, sequence numbers per
// partition, and nothing at all when a record names a partition the topic lacks.
TEST_CASE(
    "send_batch: per-partition batches in order, first offsets and sequences per partition, all or none",
    "[kafka]") {
    KafkaFixture f;
    REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, 1, {0, 100})) ==
            "none");  // partition 1 starts at offset 1
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send_batch(
                f.producer, h, kKafkaTopic,
                {{1, {1, 1}}, {0, {2, 2}}, {1, {3, 3}}, {0, {4, 4}}, {1, {5, 5}}})) == "none");
    CHECK(f.kafka.next_sequence(h, kKafkaTopic, 0) == 2);
    CHECK(f.kafka.next_sequence(h, kKafkaTopic, 1) == 3);
    REQUIRE(kafka_err(f.kafka.send_batch(f.producer, h, kKafkaTopic, {{0, {6, 6}}})) == "none");
    CHECK(f.kafka.next_sequence(h, kKafkaTopic, 0) == 3);
    // Open: read_committed stops at the transaction's first offset on each partition.
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 0);
    CHECK(f.kafka.end_offset(kKafkaTopic, 1, Isolation::read_committed) == 1);
    const int64_t txn = f.kafka.open_transaction_of("t");
    REQUIRE(txn >= 0);
    CHECK(f.kafka.open_transactions(kKafkaTopic, 0) == std::vector<int64_t>{txn});
    CHECK(f.kafka.transaction_view(txn).partitions ==
          std::vector<std::pair<std::string, int32_t>>{{kKafkaTopic, 0}, {kKafkaTopic, 1}});
    // A record for a partition the topic lacks: nothing of the batch is written.
    CHECK(kafka_err(f.kafka.send_batch(f.producer, h, kKafkaTopic, {{0, {7, 7}}, {2, {8, 8}}})) ==
          "unknown_topic");
    CHECK(f.kafka.next_sequence(h, kKafkaTopic, 0) == 3);
    REQUIRE(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{2, 4, 6});
    CHECK(f.values(1, Isolation::read_committed) == KafkaValues{100, 1, 3, 5});
    CHECK(f.kafka.open_transactions(kKafkaTopic, 1).empty());
}

TEST_CASE(
    "calls fail with unavailable across a partition, from a down node, or while the broker is "
    "unavailable",
    "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");

    SECTION("symmetric partition") {
        auto p = f.world.network().partition({f.producer}, {f.broker}, false);
        CHECK(kafka_err(f.kafka.append(f.producer, kKafkaTopic, 0, {1, 1})) == "unavailable");
        CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) == "unavailable");
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
        CHECK(kafka_err(f.kafka.abort(f.producer, h)) == "unavailable");
        CHECK(kafka_err(f.kafka.begin(f.producer, h)) == "unavailable");
        ProducerHandle ignored;
        CHECK(kafka_err(f.kafka.init_transactions(f.producer, "t", &ignored)) == "unavailable");
        CHECK(kafka_err(f.kafka.read(f.producer, kKafkaTopic, 0, 0, 10, Isolation::read_uncommitted)
                            .error) == "unavailable");
        // Other nodes are not affected.
        CHECK(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 2})) == "none");
        f.world.network().heal(p);
        CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) == "none");
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    }
    SECTION("one-way partitions, either direction") {
        auto p = f.world.network().partition({f.producer}, {f.broker}, true);
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.world.network().heal(p);
        p = f.world.network().partition({f.broker}, {f.producer}, true);
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.world.network().heal(p);
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    }
    SECTION("caller down") {
        f.world.scheduler().crash(f.producer);
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.world.scheduler().restart(f.producer);
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    }
    SECTION("broker down") {
        f.world.scheduler().crash(f.broker);
        CHECK(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 2})) == "unavailable");
        f.world.scheduler().restart(f.broker);
        CHECK(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 2})) == "none");
    }
    SECTION("broker unavailable for a period") {
        f.kafka.set_unavailable_until(Time::zero() + Duration::seconds(5));
        CHECK(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 2})) == "unavailable");
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
        CHECK(kafka_err(
                  f.kafka.read(f.reader, kKafkaTopic, 0, 0, 10, Isolation::read_committed).error) ==
              "unavailable");
        f.advance_to(Time::zero() + Duration::millis(4'999));
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.advance_to(Time::zero() + Duration::seconds(5));
        CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    }
}

TEST_CASE("injected write failures fail appends and sends for a period", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    f.kafka.set_write_failures_until(Time::zero() + Duration::seconds(2));
    CHECK(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 2})) == "write_failed");
    CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) == "write_failed");
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_uncommitted) == 0);  // nothing written
    f.advance_to(Time::zero() + Duration::seconds(2));
    CHECK(kafka_err(f.kafka.append(f.other, kKafkaTopic, 0, {2, 2})) == "none");
    // The failed send left the transaction abortable (as Kafka's client does): abort, then go on
    // with the epoch the abort bumped.
    CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) ==
          "transaction_abortable");
    ProducerHandle bumped;
    REQUIRE(kafka_err(f.kafka.abort(f.producer, h, &bumped)) == "none");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, bumped)) == "none");
    CHECK(kafka_err(f.kafka.send(f.producer, bumped, kKafkaTopic, 0, {1, 1})) == "none");
    CHECK(kafka_err(f.kafka.commit(f.producer, bumped)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{2, 1});
}

// read_committed_summary from every offset hands what a full read_committed read from there hands:
// the same error and next offset, as many entries, the first entry not committed.
// (Every `step`-th offset, and the end and past it.)
bool summary_agrees_with_read(const KafkaCluster& kafka, NodeId reader, int32_t partition,
                              int64_t step = 1) {
    const int64_t end = kafka.end_offset(kKafkaTopic, partition, Isolation::read_uncommitted);
    for (int64_t from = 0; from <= end + 1;
         from = from + step > end && from < end ? end : from + step) {
        const ReadResult r =
            kafka.read(reader, kKafkaTopic, partition, from, SIZE_MAX, Isolation::read_committed);
        const auto s = kafka.read_committed_summary(reader, kKafkaTopic, partition, from);
        if (s.error != r.error || s.next_offset != r.next_offset) return false;
        if (s.entries != static_cast<int64_t>(r.entries.size())) return false;
        std::optional<ReadResult::Entry> first;
        for (const auto& e : r.entries) {
            if (e.transaction >= 0 &&
                kafka.transaction_state(e.transaction) != TxnState::committed) {
                first = e;
                break;
            }
        }
        if (first.has_value() != s.first_uncommitted.has_value()) return false;
        if (first && (first->offset != s.first_uncommitted->offset ||
                      first->transaction != s.first_uncommitted->transaction ||
                      first->record.key != s.first_uncommitted->record.key ||
                      first->record.value != s.first_uncommitted->record.value)) {
            return false;
        }
    }
    return true;
}

// for_each_committed_batch hands the keys and values of for_each_committed's records, in order.
bool batches_agree_with_committed(const KafkaCluster& kafka) {
    std::vector<std::pair<int64_t, int64_t>> one_by_one, batched;
    kafka.for_each_committed(
        kKafkaTopic, [&](const KafkaRecord& r) { one_by_one.emplace_back(r.key, r.value); });
    kafka.for_each_committed_batch(
        kKafkaTopic, [&](std::span<const int64_t> keys, std::span<const int64_t> values) {
            if (keys.empty() || keys.size() != values.size())
                batched.emplace_back(INT64_MIN, INT64_MIN);  // a malformed batch
            for (size_t i = 0; i < keys.size(); ++i) batched.emplace_back(keys[i], values[i]);
        });
    return one_by_one == batched;
}

TEST_CASE(
    "committed batches and read summaries agree with the record-by-record views over many chunks",
    "[kafka]") {
    KafkaFixture f;
    ProducerHandle a = f.init("a");
    int64_t value = 0;
    // Thousands of entries a partition (several of the log's 4,096-entry chunks): plain appends and
    // transactions committed, aborted and, at the end, one left open.
    for (int round = 0; round < 30; ++round) {
        REQUIRE(kafka_err(f.kafka.begin(f.producer, a)) == "none");
        for (int i = 0; i < 300; ++i)
            REQUIRE(kafka_err(f.kafka.send(f.producer, a, kKafkaTopic, i % 2, {i % 7, ++value})) ==
                    "none");
        REQUIRE(kafka_err(round % 3 == 1 ? f.kafka.abort(f.producer, a)
                                         : f.kafka.commit(f.producer, a)) == "none");
        for (int i = 0; i < 50; ++i)
            REQUIRE(kafka_err(f.kafka.append(f.other, kKafkaTopic, i % 2, {-1, ++value})) ==
                    "none");
    }
    REQUIRE(kafka_err(f.kafka.begin(f.producer, a)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, a, kKafkaTopic, 0, {1, ++value})) == "none");
    CHECK(batches_agree_with_committed(f.kafka));
    for (int32_t partition = 0; partition < 2; ++partition)
        CHECK(summary_agrees_with_read(f.kafka, f.reader, partition, 97));
    f.world.scheduler().crash(f.broker);  // unreachable: the same error, nothing read
    CHECK(summary_agrees_with_read(f.kafka, f.reader, 0, 97));
}

TEST_CASE(
    "negative control: read_committed ignoring the LSO leaks open records, still skips aborted",
    "[kafka]") {
    KafkaOptions options;
    options.read_committed_ignores_lso = true;
    KafkaFixture f(options);
    ProducerHandle a = f.init("a");
    ProducerHandle b = f.init("b");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, a)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, a, kKafkaTopic, 0, {1, 10})) == "none");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, b)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, b, kKafkaTopic, 0, {2, 20})) == "none");
    REQUIRE(kafka_err(f.kafka.abort(f.producer, b)) == "none");

    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{10});  // the open record leaks
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 2);
    ReadResult r = f.kafka.read(f.reader, kKafkaTopic, 0, 0, 10, Isolation::read_committed);
    REQUIRE(r.entries.size() == 1);
    CHECK(f.kafka.transaction_state(r.entries[0].transaction) == TxnState::ongoing);
    CHECK(f.kafka.committed_records(kKafkaTopic).empty());  // the oracle's view is not fooled
    const auto summary =
        f.kafka.read_committed_summary(f.reader, kKafkaTopic, 0, 0);  // nor the visibility oracle's
    REQUIRE(summary.first_uncommitted.has_value());
    CHECK(summary.first_uncommitted->record.value == 10);
    CHECK(summary_agrees_with_read(f.kafka, f.reader, 0));
}

// --- property: random interleavings of several producers -----------------------------------------

namespace {

enum class OpKind : int {
    begin,
    send,
    commit,
    abort,
    reinit,
    zombie_send,
    zombie_commit,
    plain_append,
    count
};

// An independent model of what the broker must answer and what a read_committed reader must see.
struct Model {
    enum class Txn { none, open, committed, aborted };
    struct Appended {
        int64_t value;
        int txn;  // index into txns, or -1 for a plain append
    };
    std::vector<Txn> txns;
    std::map<std::pair<int, int32_t>, int> latest;  // (producer, epoch) -> txn
    std::vector<std::vector<Appended>> log{2};

    Txn state_of(int producer, int32_t epoch) const {
        auto it = latest.find({producer, epoch});
        return it == latest.end() ? Txn::none : txns[static_cast<size_t>(it->second)];
    }
    int& txn_of(int producer, int32_t epoch) { return latest.at({producer, epoch}); }
};

constexpr int kProducers = 3;
// Named ids, not "p" + std::to_string(p): that trips GCC 12's false -Wrestrict (bug 105329).
const std::string kProducerIds[kProducers] = {"p0", "p1", "p2"};

// One run of the property: the broker and the model side by side, each operation applied to both.
struct KafkaPropertyRun {
    KafkaFixture f;
    Model model;
    std::vector<std::vector<ProducerHandle>> handles;  // every epoch's handle, by producer
    int64_t next_value = 1;

    KafkaPropertyRun() : handles(kProducers) {
        for (int p = 0; p < kProducers; ++p) handles[p].push_back(f.init(kProducerIds[p]));
    }

    void apply(int p, OpKind kind, int32_t partition) {
        const ProducerHandle h = handles[p].back();  // a copy: reinit grows the vector
        const Model::Txn state = model.state_of(p, h.epoch);
        const int64_t value = next_value++;
        switch (kind) {
            case OpKind::begin:
                RC_ASSERT(kafka_err(f.kafka.begin(f.producer, h)) == "none");
                if (state != Model::Txn::open) {
                    model.txns.push_back(Model::Txn::open);
                    model.latest[{p, h.epoch}] = static_cast<int>(model.txns.size() - 1);
                }
                return;
            case OpKind::send: {
                const std::string e =
                    kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, partition, {p, value}));
                if (state == Model::Txn::open) {
                    RC_ASSERT(e == "none");
                    model.log[partition].push_back({value, model.txn_of(p, h.epoch)});
                } else {
                    RC_ASSERT(e == "invalid_txn_state");
                }
                return;
            }
            case OpKind::commit:
            case OpKind::abort: end(p, h, state, kind == OpKind::commit); return;
            case OpKind::reinit:
                handles[p].push_back(f.init(kProducerIds[p]));
                RC_ASSERT(handles[p].back().epoch == h.epoch + 1);
                if (state == Model::Txn::open)
                    model.txns[static_cast<size_t>(model.txn_of(p, h.epoch))] = Model::Txn::aborted;
                return;
            case OpKind::zombie_send:
            case OpKind::zombie_commit: zombie(p, kind, partition, value); return;
            case OpKind::plain_append:
                RC_ASSERT(kafka_err(f.kafka.append(f.other, kKafkaTopic, partition, {-1, value})) ==
                          "none");
                model.log[partition].push_back({value, -1});
                return;
            case OpKind::count: return;
        }
    }

    void end(int p, const ProducerHandle& h, Model::Txn state, bool commit) {
        const std::string e =
            kafka_err(commit ? f.kafka.commit(f.producer, h) : f.kafka.abort(f.producer, h));
        const Model::Txn done = commit ? Model::Txn::committed : Model::Txn::aborted;
        if (state == Model::Txn::open) {
            RC_ASSERT(e == "none");
            model.txns[static_cast<size_t>(model.txn_of(p, h.epoch))] = done;
        } else if (state == done) {
            RC_ASSERT(e == "none");
        } else {
            RC_ASSERT(e == "invalid_txn_state");
        }
    }

    void zombie(int p, OpKind kind, int32_t partition, int64_t value) {
        if (handles[p].size() < 2) return;
        const ProducerHandle& zombie = handles[p][handles[p].size() - 2];
        if (kind == OpKind::zombie_send) {
            RC_ASSERT(kafka_err(f.kafka.send(f.producer, zombie, kKafkaTopic, partition,
                                             {p, value})) == "fenced");
        } else {
            // Fenced whatever became of its transaction (committed ones included).
            RC_ASSERT(kafka_err(f.kafka.commit(f.producer, zombie)) == "fenced");
        }
    }

    bool visible(const Model::Appended& a) const {
        return a.txn < 0 || model.txns[static_cast<size_t>(a.txn)] == Model::Txn::committed;
    }

    // Now, with some transactions still open: the committed prefix below the first open record.
    void check_reads_now() {
        std::set<int64_t> aborted_values;
        for (const auto& partition_log : model.log) {
            for (const auto& a : partition_log) {
                if (a.txn >= 0 && model.txns[static_cast<size_t>(a.txn)] == Model::Txn::aborted) {
                    aborted_values.insert(a.value);
                }
            }
        }
        for (int32_t partition = 0; partition < 2; ++partition) {
            KafkaValues expected;
            KafkaValues everything;
            bool behind_open = false;  // the last stable offset was passed
            for (const auto& a : model.log[partition]) {
                everything.push_back(a.value);
                if (a.txn >= 0 && model.txns[static_cast<size_t>(a.txn)] == Model::Txn::open)
                    behind_open = true;
                if (!behind_open && visible(a)) expected.push_back(a.value);
            }
            RC_ASSERT(read_in_pages(partition, aborted_values) == expected);
            RC_ASSERT(f.values(partition, Isolation::read_uncommitted) == everything);
            RC_ASSERT(summary_agrees_with_read(f.kafka, f.reader, partition));
        }
    }

    // Reads a partition read_committed in small pages, as a consumer would.
    KafkaValues read_in_pages(int32_t partition, const std::set<int64_t>& aborted_values) const {
        KafkaValues seen;
        int64_t offset = 0;
        for (;;) {
            ReadResult r = f.kafka.read(f.reader, kKafkaTopic, partition, offset, 3,
                                        Isolation::read_committed);
            RC_ASSERT(kafka_err(r.error) == "none");
            if (r.entries.empty()) break;
            for (const auto& e : r.entries) {
                RC_ASSERT(aborted_values.count(e.record.value) == 0u);
                // Parenthesised: RC_ASSERT's decomposition would evaluate both sides of a bare
                // `||`.
                RC_ASSERT((e.transaction < 0 ||
                           f.kafka.transaction_state(e.transaction) == TxnState::committed));
                seen.push_back(e.record.value);
            }
            offset = r.next_offset;
        }
        return seen;
    }

    // Once the broker aborts the rest, everything committed is visible, nothing else.
    void check_after_aborting_the_rest() {
        f.kafka.abort_open_transactions();
        for (auto& t : model.txns) {
            if (t == Model::Txn::open) t = Model::Txn::aborted;
        }
        std::vector<KafkaRecord> committed;
        for (int32_t partition = 0; partition < 2; ++partition) {
            KafkaValues expected;
            for (const auto& a : model.log[partition]) {
                if (!visible(a)) continue;
                expected.push_back(a.value);
            }
            RC_ASSERT(f.values(partition, Isolation::read_committed) == expected);
            for (int64_t v : expected) committed.push_back(KafkaRecord{0, v});
        }
        std::vector<KafkaRecord> actual = f.kafka.committed_records(kKafkaTopic);
        RC_ASSERT(actual.size() == committed.size());
        for (size_t i = 0; i < actual.size(); ++i) RC_ASSERT(actual[i].value == committed[i].value);
        RC_ASSERT(batches_agree_with_committed(f.kafka));
    }
};

}  // namespace

TEST_CASE("property: read_committed shows exactly the committed transactions, in partition order",
          "[kafka]") {
    rc::prop("random interleavings of begin/send/commit/abort/re-init of several producers", [] {
        const auto ops = *rc::gen::container<std::vector<std::tuple<int, int, int>>>(rc::gen::tuple(
            rc::gen::inRange(0, kProducers), rc::gen::inRange(0, static_cast<int>(OpKind::count)),
            rc::gen::inRange(0, 2)));
        KafkaPropertyRun run;
        for (const auto& [p, kind, partition] : ops)
            run.apply(p, static_cast<OpKind>(kind), partition);
        run.check_reads_now();
        run.check_after_aborting_the_rest();
    });
}
