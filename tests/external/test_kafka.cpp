// Tests of the Kafka-like log (sim/external/kafka.h): visibility per isolation level, read_each
// against read, send_batch's per-partition batches, the last stable offset, epoch fencing,
// idempotent commit, the broker-side transaction timeout, faults, the two negative controls, and a
// property over random interleavings of several producers.
#include <catch2/catch.hpp>
#include <rapidcheck/catch.h>

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
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::kNoNode;
using eosim::sim::NodeId;
using eosim::sim::Time;
using namespace eosim::sim::external;

const std::string kTopic = "out";

// Catch prints these; a raw uint8_t enum would print as a character.
std::string err(KafkaError e) { return to_string(e); }

KafkaOptions default_options() { return KafkaOptions{}; }

struct KafkaFixture : eosim::test::ExternalTestWorld {
    NodeId broker = add_node("broker");
    NodeId producer = add_node("producer");
    NodeId other = add_node("other");
    NodeId reader = add_node("reader");
    KafkaCluster kafka;

    explicit KafkaFixture(KafkaOptions options = default_options())
        : kafka(world.scheduler(), world.network(), broker, options) {
        kafka.create_topic(kTopic, 2);
    }

    std::vector<int64_t> values(int32_t partition, Isolation isolation) const {
        ReadResult r = kafka.read(reader, kTopic, partition, 0, 1'000'000, isolation);
        REQUIRE(err(r.error) == "none");
        std::vector<int64_t> out;
        for (const auto& e : r.entries) out.push_back(e.record.value);
        return out;
    }

    ProducerHandle init(const std::string& id, NodeId caller = kNoNode) {
        ProducerHandle h;
        REQUIRE(err(kafka.init_transactions(caller == kNoNode ? producer : caller, id, &h)) == "none");
        return h;
    }
};

using Values = std::vector<int64_t>;

}  // namespace

TEST_CASE("plain appends are visible at once to both isolation levels", "[kafka]") {
    KafkaFixture f;
    int64_t offset = -1;
    CHECK(err(f.kafka.append(f.producer, kTopic, 0, {1, 10}, &offset)) == "none");
    CHECK(offset == 0);
    CHECK(err(f.kafka.append(f.producer, kTopic, 0, {2, 20}, &offset)) == "none");
    CHECK(offset == 1);
    CHECK(err(f.kafka.append(f.producer, kTopic, 1, {3, 30}, &offset)) == "none");
    CHECK(offset == 0);

    CHECK(f.values(0, Isolation::read_committed) == Values{10, 20});
    CHECK(f.values(0, Isolation::read_uncommitted) == Values{10, 20});
    CHECK(f.values(1, Isolation::read_committed) == Values{30});
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 2);
    CHECK(f.kafka.committed_records(kTopic) == std::vector<KafkaRecord>{{1, 10}, {2, 20}, {3, 30}});

    ReadResult r = f.kafka.read(f.reader, kTopic, 0, 0, 10, Isolation::read_committed);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].transaction == -1);
    CHECK(r.entries[1].offset == 1);
    CHECK(r.next_offset == 2);
}

TEST_CASE("unknown topics and partitions", "[kafka]") {
    KafkaFixture f;
    CHECK(f.kafka.partitions(kTopic) == 2);
    CHECK(f.kafka.partitions("nope") == 0);
    CHECK(err(f.kafka.append(f.producer, "nope", 0, {1, 1})) == "unknown_topic");
    CHECK(err(f.kafka.append(f.producer, kTopic, 2, {1, 1})) == "unknown_topic");
    CHECK(err(f.kafka.append(f.producer, kTopic, -1, {1, 1})) == "unknown_topic");
    CHECK(err(f.kafka.read(f.reader, "nope", 0, 0, 10, Isolation::read_committed).error) == "unknown_topic");
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    CHECK(err(f.kafka.send(f.producer, h, "nope", 0, {1, 1})) == "unknown_topic");
    CHECK(f.kafka.end_offset("nope", 0, Isolation::read_uncommitted) == 0);
}

TEST_CASE("init_transactions: new ids start at epoch 0, re-init bumps the epoch, keeps the producer id",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle a0 = f.init("a");
    ProducerHandle b0 = f.init("b");
    CHECK(a0.transactional_id == "a");
    CHECK(a0.epoch == 0);
    CHECK(b0.epoch == 0);
    CHECK(a0.producer_id != b0.producer_id);
    ProducerHandle a1 = f.init("a");
    CHECK(a1.epoch == 1);
    CHECK(a1.producer_id == a0.producer_id);
    CHECK(f.init("a").epoch == 2);
}

TEST_CASE("a committed transaction becomes visible to read_committed, before, only to read_uncommitted",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 10})) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 1, {1, 11})) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 12})) == "none");

    CHECK(f.values(0, Isolation::read_committed).empty());
    CHECK(f.values(0, Isolation::read_uncommitted) == Values{10, 12});
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 0);
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_uncommitted) == 2);
    CHECK(f.kafka.committed_records(kTopic).empty());

    REQUIRE(err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == Values{10, 12});
    CHECK(f.values(1, Isolation::read_committed) == Values{11});
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 2);
    CHECK(f.kafka.committed_records(kTopic) == std::vector<KafkaRecord>{{1, 10}, {1, 12}, {1, 11}});

    ReadResult r = f.kafka.read(f.reader, kTopic, 0, 0, 10, Isolation::read_committed);
    REQUIRE(r.entries.size() == 2);
    CHECK(f.kafka.transaction_state(r.entries[0].transaction) == TxnState::committed);
    CHECK(f.kafka.stats().transactions_begun == 1);
    CHECK(f.kafka.stats().transactions_committed == 1);
    CHECK(f.kafka.stats().transactions_aborted == 0);
}

TEST_CASE("an aborted transaction is never visible to read_committed", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 10})) == "none");
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {2, 20})) == "none");
    REQUIRE(err(f.kafka.abort(f.producer, h)) == "none");

    CHECK(f.values(0, Isolation::read_committed) == Values{20});
    CHECK(f.values(0, Isolation::read_uncommitted) == Values{10, 20});
    CHECK(f.kafka.committed_records(kTopic) == std::vector<KafkaRecord>{{2, 20}});
    CHECK(f.kafka.stats().transactions_aborted == 1);

    // The same producer can start over with a new transaction.
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 30})) == "none");
    REQUIRE(err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == Values{20, 30});
}

TEST_CASE("the last stable offset holds read_committed readers behind an open transaction", "[kafka]") {
    KafkaFixture f;
    ProducerHandle a = f.init("a");
    ProducerHandle b = f.init("b");
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, 1})) == "none");  // offset 0
    REQUIRE(err(f.kafka.begin(f.producer, a)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, a, kTopic, 0, {1, 2})) == "none");  // offset 1, open
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, 3})) == "none");      // offset 2, plain
    REQUIRE(err(f.kafka.begin(f.other, b)) == "none");
    REQUIRE(err(f.kafka.send(f.other, b, kTopic, 0, {2, 4})) == "none");  // offset 3
    REQUIRE(err(f.kafka.commit(f.other, b)) == "none");

    // Committed and plain records after the open transaction stay hidden.
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 1);
    CHECK(f.values(0, Isolation::read_committed) == Values{1});
    ReadResult r = f.kafka.read(f.reader, kTopic, 0, 1, 10, Isolation::read_committed);
    CHECK(r.entries.empty());
    CHECK(r.next_offset == 1);
    // Partition 1 is not blocked.
    REQUIRE(err(f.kafka.append(f.other, kTopic, 1, {0, 5})) == "none");
    CHECK(f.values(1, Isolation::read_committed) == Values{5});

    SECTION("commit releases everything") {
        REQUIRE(err(f.kafka.commit(f.producer, a)) == "none");
        CHECK(f.values(0, Isolation::read_committed) == Values{1, 2, 3, 4});
    }
    SECTION("abort releases everything but the aborted records") {
        REQUIRE(err(f.kafka.abort(f.producer, a)) == "none");
        CHECK(f.values(0, Isolation::read_committed) == Values{1, 3, 4});
    }
}

TEST_CASE("read: max_records counts returned entries only, next_offset follows the last examined entry",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, 0})) == "none");  // 0
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 1})) == "none");  // 1
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 2})) == "none");  // 2
    REQUIRE(err(f.kafka.abort(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, 3})) == "none");  // 3
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, 4})) == "none");  // 4

    ReadResult r = f.kafka.read(f.reader, kTopic, 0, 0, 2, Isolation::read_committed);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].offset == 0);
    CHECK(r.entries[1].offset == 3);
    CHECK(r.next_offset == 4);
    r = f.kafka.read(f.reader, kTopic, 0, r.next_offset, 2, Isolation::read_committed);
    REQUIRE(r.entries.size() == 1);
    CHECK(r.entries[0].record.value == 4);
    CHECK(r.next_offset == 5);
    r = f.kafka.read(f.reader, kTopic, 0, 5, 2, Isolation::read_committed);
    CHECK(r.entries.empty());
    CHECK(r.next_offset == 5);

    r = f.kafka.read(f.reader, kTopic, 0, 1, 2, Isolation::read_uncommitted);
    REQUIRE(r.entries.size() == 2);
    CHECK(r.entries[0].record.value == 1);
    CHECK(r.next_offset == 3);
    r = f.kafka.read(f.reader, kTopic, 0, 0, 0, Isolation::read_uncommitted);
    CHECK(r.entries.empty());
    CHECK(r.next_offset == 0);
}

// read_each is the read without the vector: what it visits and where it ends are read's answer.
TEST_CASE("read_each visits exactly the entries read returns and ends where read ends", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, 0})) == "none");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 1})) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 2})) == "none");
    REQUIRE(err(f.kafka.abort(f.producer, h)) == "none");
    for (int64_t v = 3; v < 8; ++v) REQUIRE(err(f.kafka.append(f.other, kTopic, 0, {0, v})) == "none");
    for (const Isolation isolation : {Isolation::read_committed, Isolation::read_uncommitted}) {
        for (int64_t from = -1; from <= 9; ++from) {
            for (size_t max : {size_t{0}, size_t{1}, size_t{3}, SIZE_MAX}) {
                const ReadResult expected = f.kafka.read(f.reader, kTopic, 0, from, max, isolation);
                std::vector<std::pair<int64_t, int64_t>> visited;  // (offset, value)
                int64_t next_offset = -42;
                const KafkaError error = f.kafka.read_each(f.reader, kTopic, 0, from, max, isolation, &next_offset,
                                                           [&visited](const ReadResult::Entry& e) {
                                                               visited.emplace_back(e.offset, e.record.value);
                                                           });
                std::vector<std::pair<int64_t, int64_t>> returned;
                for (const auto& e : expected.entries) returned.emplace_back(e.offset, e.record.value);
                CHECK(err(error) == err(expected.error));
                CHECK(visited == returned);
                CHECK(next_offset == expected.next_offset);
            }
        }
    }
    int64_t next_offset = -42;
    bool visited = false;
    CHECK(err(f.kafka.read_each(f.reader, "nope", 0, 3, 10, Isolation::read_committed, &next_offset,
                                [&visited](const ReadResult::Entry&) { visited = true; })) == "unknown_topic");
    CHECK(next_offset == 3);
    CHECK_FALSE(visited);
}

// send_batch writes one batch per partition: each partition's records in their order, the
// transaction's first offset per partition taken at its first batch there, sequence numbers per
// partition, and nothing at all when a record names a partition the topic lacks.
TEST_CASE("send_batch: per-partition batches in order, first offsets and sequences per partition, all or none",
          "[kafka]") {
    KafkaFixture f;
    REQUIRE(err(f.kafka.append(f.other, kTopic, 1, {0, 100})) == "none");  // partition 1 starts at offset 1
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send_batch(f.producer, h, kTopic, {{1, {1, 1}}, {0, {2, 2}}, {1, {3, 3}}, {0, {4, 4}}, {1, {5, 5}}})) ==
            "none");
    CHECK(f.kafka.next_sequence(h, kTopic, 0) == 2);
    CHECK(f.kafka.next_sequence(h, kTopic, 1) == 3);
    REQUIRE(err(f.kafka.send_batch(f.producer, h, kTopic, {{0, {6, 6}}})) == "none");
    CHECK(f.kafka.next_sequence(h, kTopic, 0) == 3);
    // Open: read_committed stops at the transaction's first offset on each partition.
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 0);
    CHECK(f.kafka.end_offset(kTopic, 1, Isolation::read_committed) == 1);
    const int64_t txn = f.kafka.open_transaction_of("t");
    REQUIRE(txn >= 0);
    CHECK(f.kafka.open_transactions(kTopic, 0) == std::vector<int64_t>{txn});
    CHECK(f.kafka.transaction_view(txn).partitions == std::vector<std::pair<std::string, int32_t>>{{kTopic, 0}, {kTopic, 1}});
    // A record for a partition the topic lacks: nothing of the batch is written.
    CHECK(err(f.kafka.send_batch(f.producer, h, kTopic, {{0, {7, 7}}, {2, {8, 8}}})) == "unknown_topic");
    CHECK(f.kafka.next_sequence(h, kTopic, 0) == 3);
    REQUIRE(err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == Values{2, 4, 6});
    CHECK(f.values(1, Isolation::read_committed) == Values{100, 1, 3, 5});
    CHECK(f.kafka.open_transactions(kTopic, 1).empty());
}

TEST_CASE("fencing: init_transactions bumps the epoch, aborts the old open transaction, fences the old "
          "handle",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle old_handle = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, old_handle)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, old_handle, kTopic, 0, {1, 10})) == "none");

    ProducerHandle fresh = f.init("t", f.other);
    CHECK(fresh.epoch == old_handle.epoch + 1);
    CHECK(f.kafka.stats().transactions_aborted == 1);
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 1);  // no longer blocks the LSO

    CHECK(err(f.kafka.send(f.producer, old_handle, kTopic, 0, {1, 11})) == "fenced");
    CHECK(err(f.kafka.begin(f.producer, old_handle)) == "fenced");
    CHECK(err(f.kafka.commit(f.producer, old_handle)) == "fenced");
    CHECK(err(f.kafka.abort(f.producer, old_handle)) == "fenced");
    CHECK(f.kafka.stats().fenced_calls == 4);

    REQUIRE(err(f.kafka.begin(f.other, fresh)) == "none");
    REQUIRE(err(f.kafka.send(f.other, fresh, kTopic, 0, {2, 20})) == "none");
    REQUIRE(err(f.kafka.commit(f.other, fresh)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == Values{20});
    CHECK(f.values(0, Isolation::read_uncommitted) == Values{10, 20});
}

// Mirrors Kafka's TransactionCoordinatorTest shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit
// and shouldReturnInvalidEpochOnEndTxnWhenEpochIsSmaller (state CompleteCommit, an older epoch: PRODUCER_FENCED).
TEST_CASE("commit is idempotent for the epoch that owns it, after a newer init it answers fenced", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");  // begin is idempotent too
    CHECK(f.kafka.stats().transactions_begun == 1);
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 10})) == "none");
    REQUIRE(err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(err(f.kafka.commit(f.producer, h)) == "none");  // a retried commit of a committed transaction
    CHECK(err(f.kafka.abort(f.producer, h)) == "invalid_txn_state");
    CHECK(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 11})) == "invalid_txn_state");  // no open txn

    f.init("t");  // a newer producer of the same id
    // Kafka's coordinator checks the epoch before the state: the retried commit is fenced even
    // though its transaction was committed -- what Flink's committer logs as likely data loss.
    CHECK(err(f.kafka.commit(f.producer, h)) == "fenced");
    CHECK(f.kafka.stats().fenced_calls == 1);
    CHECK(f.kafka.stats().transactions_committed == 1);
    CHECK(f.values(0, Isolation::read_committed) == Values{10});
}

TEST_CASE("abort is idempotent, commit of an aborted transaction is invalid", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    CHECK(err(f.kafka.commit(f.producer, h)) == "invalid_txn_state");  // nothing begun
    CHECK(err(f.kafka.abort(f.producer, h)) == "invalid_txn_state");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(err(f.kafka.commit(f.producer, h)) == "invalid_txn_state");
    CHECK(f.kafka.stats().transactions_aborted == 1);
}

// A larger epoch mirrors TransactionCoordinatorTest shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger
// (PRODUCER_FENCED); another producer id, the coordinator's INVALID_PRODUCER_ID_MAPPING.
TEST_CASE("handles the broker never issued are rejected", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    ProducerHandle unknown{"nobody", 1, 0};
    CHECK(err(f.kafka.begin(f.producer, unknown)) == "invalid_txn_state");
    ProducerHandle future = h;
    future.epoch = 5;
    CHECK(err(f.kafka.begin(f.producer, future)) == "fenced");
    CHECK(err(f.kafka.commit(f.producer, future)) == "fenced");
    ProducerHandle other_pid = h;
    other_pid.producer_id += 1;
    CHECK(err(f.kafka.commit(f.producer, other_pid)) == "invalid_producer_id_mapping");
    CHECK(err(f.kafka.commit(f.producer, h)) == "none");  // the real handle is unaffected
}

TEST_CASE("the broker aborts a transaction that outlives the timeout, through the scheduler", "[kafka]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::seconds(10);
    KafkaFixture f(options);
    ProducerHandle h = f.init("t");
    f.advance_to(Time::zero() + Duration::seconds(1));
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 10})) == "none");

    f.advance_to(Time::zero() + Duration::millis(10'999));
    CHECK(f.kafka.stats().aborted_by_timeout == 0);
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 0);
    f.advance_to(Time::zero() + Duration::seconds(11));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(f.kafka.stats().transactions_aborted == 1);
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 1);
    CHECK(f.values(0, Isolation::read_committed).empty());

    // The abort bumped the epoch: the producer that let it time out is fenced.
    CHECK(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 11})) == "fenced");
    CHECK(err(f.kafka.commit(f.producer, h)) == "fenced");
    h = f.init("t");
    CHECK(h.epoch == 2);  // init after a timeout gives epoch + 2

    // A transaction finished in time is left alone.
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 12})) == "none");
    REQUIRE(err(f.kafka.commit(f.producer, h)) == "none");
    f.advance_to(Time::zero() + Duration::seconds(100));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(f.values(0, Isolation::read_committed) == Values{12});
}

// Kafka times a transaction from its first AddPartitionsToTxn, however busy it stays (a checkpoint
// interval longer than transaction.timeout.ms while records flow: Flink's documented pitfall).
TEST_CASE("a transaction kept busy past the timeout is aborted, with the planted slip restarting the timer per write it is not",
          "[kafka]") {
    const bool per_write = GENERATE(false, true);
    KafkaOptions options;
    options.transaction_timeout = Duration::seconds(2);
    options.timer_restarts_on_write = per_write;
    KafkaFixture f(options);
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    for (int64_t ms = 0; ms <= 3'000; ms += 500) {  // a write every 500 ms for 3 s
        f.advance_to(Time::zero() + Duration::millis(ms));
        const std::string answer = err(f.kafka.send(f.producer, h, kTopic, 0, {1, ms}));
        CHECK(answer == (per_write || ms < 2'000 ? "none" : "fenced"));
    }
    CHECK(f.kafka.stats().aborted_by_timeout == (per_write ? 0u : 1u));
    CHECK(err(f.kafka.commit(f.producer, h)) == (per_write ? "none" : "fenced"));
    // Idle past the timeout after its last write, a transaction expires either way.
    ProducerHandle next = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, next)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, next, kTopic, 1, {1, 1})) == "none");
    f.advance_to(f.world.now() + Duration::seconds(3));
    CHECK(f.kafka.stats().aborted_by_timeout == (per_write ? 1u : 2u));
}

TEST_CASE("the transaction timeout survives a crash of the broker node", "[kafka]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::seconds(10);
    KafkaFixture f(options);
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 10})) == "none");
    f.world.scheduler().crash(f.broker);
    CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
    f.advance_to(Time::zero() + Duration::seconds(20));
    f.world.scheduler().restart(f.broker);
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(err(f.kafka.commit(f.producer, h)) == "fenced");
}

TEST_CASE("abort_open_transactions aborts every open transaction as on timeout", "[kafka]") {
    KafkaFixture f;
    ProducerHandle a = f.init("a");
    ProducerHandle b = f.init("b");
    ProducerHandle c = f.init("c");
    for (const ProducerHandle* h : {&a, &b, &c}) {
        REQUIRE(err(f.kafka.begin(f.producer, *h)) == "none");
        REQUIRE(err(f.kafka.send(f.producer, *h, kTopic, 0, {h->producer_id, 1})) == "none");
    }
    REQUIRE(err(f.kafka.commit(f.producer, c)) == "none");
    f.kafka.abort_open_transactions();
    CHECK(f.kafka.stats().aborted_by_timeout == 2);
    CHECK(err(f.kafka.commit(f.producer, a)) == "fenced");  // aborted as on timeout: the epoch was bumped
    CHECK(err(f.kafka.commit(f.producer, c)) == "none");    // c's epoch was left alone
    CHECK(f.kafka.committed_records(kTopic) == std::vector<KafkaRecord>{{c.producer_id, 1}});
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 3);
}

TEST_CASE("calls fail with unavailable across a partition, from a down node, or while the broker is "
          "unavailable",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");

    SECTION("symmetric partition") {
        auto p = f.world.network().partition({f.producer}, {f.broker}, false);
        CHECK(err(f.kafka.append(f.producer, kTopic, 0, {1, 1})) == "unavailable");
        CHECK(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 1})) == "unavailable");
        CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
        CHECK(err(f.kafka.abort(f.producer, h)) == "unavailable");
        CHECK(err(f.kafka.begin(f.producer, h)) == "unavailable");
        ProducerHandle ignored;
        CHECK(err(f.kafka.init_transactions(f.producer, "t", &ignored)) == "unavailable");
        CHECK(err(f.kafka.read(f.producer, kTopic, 0, 0, 10, Isolation::read_uncommitted).error) ==
              "unavailable");
        // Other nodes are not affected.
        CHECK(err(f.kafka.append(f.other, kTopic, 0, {2, 2})) == "none");
        f.world.network().heal(p);
        CHECK(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 1})) == "none");
        CHECK(err(f.kafka.commit(f.producer, h)) == "none");
    }
    SECTION("one-way partitions, either direction") {
        auto p = f.world.network().partition({f.producer}, {f.broker}, true);
        CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.world.network().heal(p);
        p = f.world.network().partition({f.broker}, {f.producer}, true);
        CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.world.network().heal(p);
        CHECK(err(f.kafka.commit(f.producer, h)) == "none");
    }
    SECTION("caller down") {
        f.world.scheduler().crash(f.producer);
        CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.world.scheduler().restart(f.producer);
        CHECK(err(f.kafka.commit(f.producer, h)) == "none");
    }
    SECTION("broker down") {
        f.world.scheduler().crash(f.broker);
        CHECK(err(f.kafka.append(f.other, kTopic, 0, {2, 2})) == "unavailable");
        f.world.scheduler().restart(f.broker);
        CHECK(err(f.kafka.append(f.other, kTopic, 0, {2, 2})) == "none");
    }
    SECTION("broker unavailable for a period") {
        f.kafka.set_unavailable_until(Time::zero() + Duration::seconds(5));
        CHECK(err(f.kafka.append(f.other, kTopic, 0, {2, 2})) == "unavailable");
        CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
        CHECK(err(f.kafka.read(f.reader, kTopic, 0, 0, 10, Isolation::read_committed).error) == "unavailable");
        f.advance_to(Time::zero() + Duration::millis(4'999));
        CHECK(err(f.kafka.commit(f.producer, h)) == "unavailable");
        f.advance_to(Time::zero() + Duration::seconds(5));
        CHECK(err(f.kafka.commit(f.producer, h)) == "none");
    }
}

TEST_CASE("injected write failures fail appends and sends for a period", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, h)) == "none");
    f.kafka.set_write_failures_until(Time::zero() + Duration::seconds(2));
    CHECK(err(f.kafka.append(f.other, kTopic, 0, {2, 2})) == "write_failed");
    CHECK(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 1})) == "write_failed");
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_uncommitted) == 0);  // nothing written
    f.advance_to(Time::zero() + Duration::seconds(2));
    CHECK(err(f.kafka.append(f.other, kTopic, 0, {2, 2})) == "none");
    // The failed send left the transaction abortable (as Kafka's client does): abort, then go on
    // with the epoch the abort bumped.
    CHECK(err(f.kafka.send(f.producer, h, kTopic, 0, {1, 1})) == "transaction_abortable");
    ProducerHandle bumped;
    REQUIRE(err(f.kafka.abort(f.producer, h, &bumped)) == "none");
    REQUIRE(err(f.kafka.begin(f.producer, bumped)) == "none");
    CHECK(err(f.kafka.send(f.producer, bumped, kTopic, 0, {1, 1})) == "none");
    CHECK(err(f.kafka.commit(f.producer, bumped)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == Values{2, 1});
}

TEST_CASE("negative control: with fencing off a zombie producer writes and commits", "[kafka]") {
    KafkaOptions options;
    options.fencing = false;
    KafkaFixture f(options);
    ProducerHandle zombie = f.init("t");
    REQUIRE(err(f.kafka.begin(f.producer, zombie)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, zombie, kTopic, 0, {1, 10})) == "none");

    ProducerHandle fresh = f.init("t", f.other);
    CHECK(fresh.epoch == 1);
    CHECK(f.kafka.stats().transactions_aborted == 0);  // the zombie's transaction stays open
    REQUIRE(err(f.kafka.begin(f.other, fresh)) == "none");  // continues the zombie's open transaction
    REQUIRE(err(f.kafka.send(f.other, fresh, kTopic, 0, {2, 20})) == "none");
    // The zombie's later write lands in its successor's transaction...
    CHECK(err(f.kafka.send(f.producer, zombie, kTopic, 0, {1, 11})) == "none");
    REQUIRE(err(f.kafka.commit(f.other, fresh)) == "none");
    CHECK(f.kafka.stats().fenced_calls == 0);
    // ...and the successor commits the zombie's records with its own.
    CHECK(f.values(0, Isolation::read_committed) == Values{10, 20, 11});
    CHECK(f.kafka.stats().transactions_committed == 1);

    SECTION("turned back on, the same zombie is fenced") {
        f.kafka.set_fencing(true);
        CHECK(err(f.kafka.begin(f.producer, zombie)) == "fenced");
    }
}

// read_committed_summary from every offset hands what a full read_committed read from there hands:
// the same error and next offset, as many entries, the first entry not committed.
// (Every `step`-th offset, and the end and past it.)
bool summary_agrees_with_read(const KafkaCluster& kafka, NodeId reader, int32_t partition, int64_t step = 1) {
    const int64_t end = kafka.end_offset(kTopic, partition, Isolation::read_uncommitted);
    for (int64_t from = 0; from <= end + 1; from = from + step > end && from < end ? end : from + step) {
        const ReadResult r = kafka.read(reader, kTopic, partition, from, SIZE_MAX, Isolation::read_committed);
        const auto s = kafka.read_committed_summary(reader, kTopic, partition, from);
        if (s.error != r.error || s.next_offset != r.next_offset) return false;
        if (s.entries != static_cast<int64_t>(r.entries.size())) return false;
        std::optional<ReadResult::Entry> first;
        for (const auto& e : r.entries) {
            if (e.transaction >= 0 && kafka.transaction_state(e.transaction) != TxnState::committed) {
                first = e;
                break;
            }
        }
        if (first.has_value() != s.first_uncommitted.has_value()) return false;
        if (first && (first->offset != s.first_uncommitted->offset || first->transaction != s.first_uncommitted->transaction ||
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
    kafka.for_each_committed(kTopic, [&](const KafkaRecord& r) { one_by_one.emplace_back(r.key, r.value); });
    kafka.for_each_committed_batch(kTopic, [&](std::span<const int64_t> keys, std::span<const int64_t> values) {
        if (keys.empty() || keys.size() != values.size()) batched.emplace_back(INT64_MIN, INT64_MIN);  // a malformed batch
        for (size_t i = 0; i < keys.size(); ++i) batched.emplace_back(keys[i], values[i]);
    });
    return one_by_one == batched;
}

TEST_CASE("committed batches and read summaries agree with the record-by-record views over many chunks", "[kafka]") {
    KafkaFixture f;
    ProducerHandle a = f.init("a");
    int64_t value = 0;
    // Thousands of entries a partition (several of the log's 4,096-entry chunks): plain appends and
    // transactions committed, aborted and, at the end, one left open.
    for (int round = 0; round < 30; ++round) {
        REQUIRE(err(f.kafka.begin(f.producer, a)) == "none");
        for (int i = 0; i < 300; ++i) REQUIRE(err(f.kafka.send(f.producer, a, kTopic, i % 2, {i % 7, ++value})) == "none");
        REQUIRE(err(round % 3 == 1 ? f.kafka.abort(f.producer, a) : f.kafka.commit(f.producer, a)) == "none");
        for (int i = 0; i < 50; ++i) REQUIRE(err(f.kafka.append(f.other, kTopic, i % 2, {-1, ++value})) == "none");
    }
    REQUIRE(err(f.kafka.begin(f.producer, a)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, a, kTopic, 0, {1, ++value})) == "none");
    CHECK(batches_agree_with_committed(f.kafka));
    for (int32_t partition = 0; partition < 2; ++partition) CHECK(summary_agrees_with_read(f.kafka, f.reader, partition, 97));
    f.world.scheduler().crash(f.broker);  // unreachable: the same error, nothing read
    CHECK(summary_agrees_with_read(f.kafka, f.reader, 0, 97));
}

TEST_CASE("negative control: read_committed ignoring the LSO leaks open records, still skips aborted",
          "[kafka]") {
    KafkaOptions options;
    options.read_committed_ignores_lso = true;
    KafkaFixture f(options);
    ProducerHandle a = f.init("a");
    ProducerHandle b = f.init("b");
    REQUIRE(err(f.kafka.begin(f.producer, a)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, a, kTopic, 0, {1, 10})) == "none");
    REQUIRE(err(f.kafka.begin(f.producer, b)) == "none");
    REQUIRE(err(f.kafka.send(f.producer, b, kTopic, 0, {2, 20})) == "none");
    REQUIRE(err(f.kafka.abort(f.producer, b)) == "none");

    CHECK(f.values(0, Isolation::read_committed) == Values{10});  // the open record leaks
    CHECK(f.kafka.end_offset(kTopic, 0, Isolation::read_committed) == 2);
    ReadResult r = f.kafka.read(f.reader, kTopic, 0, 0, 10, Isolation::read_committed);
    REQUIRE(r.entries.size() == 1);
    CHECK(f.kafka.transaction_state(r.entries[0].transaction) == TxnState::open);
    CHECK(f.kafka.committed_records(kTopic).empty());  // the oracle's view is not fooled
    const auto summary = f.kafka.read_committed_summary(f.reader, kTopic, 0, 0);  // nor the visibility oracle's
    REQUIRE(summary.first_uncommitted.has_value());
    CHECK(summary.first_uncommitted->record.value == 10);
    CHECK(summary_agrees_with_read(f.kafka, f.reader, 0));
}

// --- property: random interleavings of several producers -----------------------------------------

namespace {

enum class OpKind : int { begin, send, commit, abort, reinit, zombie_send, zombie_commit, plain_append, count };

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

}  // namespace

TEST_CASE("property: read_committed shows exactly the committed transactions, in partition order",
          "[kafka]") {
    rc::prop("random interleavings of begin/send/commit/abort/re-init of several producers", [] {
        const auto ops = *rc::gen::container<std::vector<std::tuple<int, int, int>>>(rc::gen::tuple(
            rc::gen::inRange(0, kProducers), rc::gen::inRange(0, static_cast<int>(OpKind::count)),
            rc::gen::inRange(0, 2)));

        KafkaFixture f;
        Model model;
        std::vector<std::vector<ProducerHandle>> handles(kProducers);  // every epoch's handle
        for (int p = 0; p < kProducers; ++p) handles[p].push_back(f.init(kProducerIds[p]));

        int64_t next_value = 1;
        for (const auto& [p, kind_index, partition] : ops) {
            const ProducerHandle h = handles[p].back();  // a copy: reinit grows the vector
            const auto kind = static_cast<OpKind>(kind_index);
            const Model::Txn state = model.state_of(p, h.epoch);
            const int64_t value = next_value++;
            switch (kind) {
                case OpKind::begin: {
                    RC_ASSERT(err(f.kafka.begin(f.producer, h)) == "none");
                    if (state != Model::Txn::open) {
                        model.txns.push_back(Model::Txn::open);
                        model.latest[{p, h.epoch}] = static_cast<int>(model.txns.size() - 1);
                    }
                    break;
                }
                case OpKind::send: {
                    const std::string e = err(f.kafka.send(f.producer, h, kTopic, partition, {p, value}));
                    if (state == Model::Txn::open) {
                        RC_ASSERT(e == "none");
                        model.log[partition].push_back({value, model.txn_of(p, h.epoch)});
                    } else {
                        RC_ASSERT(e == "invalid_txn_state");
                    }
                    break;
                }
                case OpKind::commit:
                case OpKind::abort: {
                    const bool commit = kind == OpKind::commit;
                    const std::string e = err(commit ? f.kafka.commit(f.producer, h) : f.kafka.abort(f.producer, h));
                    const Model::Txn done = commit ? Model::Txn::committed : Model::Txn::aborted;
                    if (state == Model::Txn::open) {
                        RC_ASSERT(e == "none");
                        model.txns[static_cast<size_t>(model.txn_of(p, h.epoch))] = done;
                    } else if (state == done) {
                        RC_ASSERT(e == "none");
                    } else {
                        RC_ASSERT(e == "invalid_txn_state");
                    }
                    break;
                }
                case OpKind::reinit: {
                    handles[p].push_back(f.init(kProducerIds[p]));
                    RC_ASSERT(handles[p].back().epoch == h.epoch + 1);
                    if (state == Model::Txn::open) {
                        model.txns[static_cast<size_t>(model.txn_of(p, h.epoch))] = Model::Txn::aborted;
                    }
                    break;
                }
                case OpKind::zombie_send:
                case OpKind::zombie_commit: {
                    if (handles[p].size() < 2) break;
                    const ProducerHandle& zombie = handles[p][handles[p].size() - 2];
                    if (kind == OpKind::zombie_send) {
                        RC_ASSERT(err(f.kafka.send(f.producer, zombie, kTopic, partition, {p, value})) == "fenced");
                    } else {
                        // Fenced whatever became of its transaction (committed ones included).
                        RC_ASSERT(err(f.kafka.commit(f.producer, zombie)) == "fenced");
                    }
                    break;
                }
                case OpKind::plain_append: {
                    RC_ASSERT(err(f.kafka.append(f.other, kTopic, partition, {-1, value})) == "none");
                    model.log[partition].push_back({value, -1});
                    break;
                }
                case OpKind::count: break;
            }
        }

        auto visible = [&](const Model::Appended& a) {
            return a.txn < 0 || model.txns[static_cast<size_t>(a.txn)] == Model::Txn::committed;
        };
        std::set<int64_t> aborted_values;
        for (const auto& partition_log : model.log) {
            for (const auto& a : partition_log) {
                if (a.txn >= 0 && model.txns[static_cast<size_t>(a.txn)] == Model::Txn::aborted) {
                    aborted_values.insert(a.value);
                }
            }
        }

        // Now, with some transactions still open: the committed prefix below the first open record.
        for (int32_t partition = 0; partition < 2; ++partition) {
            Values expected;
            Values everything;
            bool behind_open = false;  // the last stable offset was passed
            for (const auto& a : model.log[partition]) {
                everything.push_back(a.value);
                if (a.txn >= 0 && model.txns[static_cast<size_t>(a.txn)] == Model::Txn::open) behind_open = true;
                if (!behind_open && visible(a)) expected.push_back(a.value);
            }
            // Read in small pages, as a consumer would.
            Values seen;
            int64_t offset = 0;
            for (;;) {
                ReadResult r = f.kafka.read(f.reader, kTopic, partition, offset, 3, Isolation::read_committed);
                RC_ASSERT(err(r.error) == "none");
                if (r.entries.empty()) break;
                for (const auto& e : r.entries) {
                    RC_ASSERT(aborted_values.count(e.record.value) == 0u);
                    // Parenthesised: RC_ASSERT's decomposition would evaluate both sides of a bare `||`.
                    RC_ASSERT((e.transaction < 0 || f.kafka.transaction_state(e.transaction) == TxnState::committed));
                    seen.push_back(e.record.value);
                }
                offset = r.next_offset;
            }
            RC_ASSERT(seen == expected);
            RC_ASSERT(f.values(partition, Isolation::read_uncommitted) == everything);
            RC_ASSERT(summary_agrees_with_read(f.kafka, f.reader, partition));
        }

        // Once the broker aborts the rest, everything committed is visible, nothing else.
        f.kafka.abort_open_transactions();
        for (auto& t : model.txns) {
            if (t == Model::Txn::open) t = Model::Txn::aborted;
        }
        std::vector<KafkaRecord> committed;
        for (int32_t partition = 0; partition < 2; ++partition) {
            Values expected;
            for (const auto& a : model.log[partition]) {
                if (!visible(a)) continue;
                expected.push_back(a.value);
            }
            RC_ASSERT(f.values(partition, Isolation::read_committed) == expected);
            for (int64_t v : expected) committed.push_back(KafkaRecord{0, v});
        }
        std::vector<KafkaRecord> actual = f.kafka.committed_records(kTopic);
        RC_ASSERT(actual.size() == committed.size());
        for (size_t i = 0; i < actual.size(); ++i) RC_ASSERT(actual[i].value == committed[i].value);
        RC_ASSERT(batches_agree_with_committed(f.kafka));
    });
}
