// Tests of the Kafka model's transactions (sim/external/kafka_transactions.cpp): init_transactions
// and epoch fencing, idempotent commit and abort, handles the broker never issued, the broker-side
// transaction timeout (through the scheduler, kept busy, across a broker crash), and the fencing
// negative control.
#include <catch2/catch.hpp>

#include <string>
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

TEST_CASE(
    "init_transactions: new ids start at epoch 0, re-init bumps the epoch, keeps the producer id",
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

TEST_CASE(
    "fencing: init_transactions bumps the epoch, aborts the old open transaction, fences the old "
    "handle",
    "[kafka]") {
    KafkaFixture f;
    ProducerHandle old_handle = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, old_handle)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, old_handle, kKafkaTopic, 0, {1, 10})) == "none");

    ProducerHandle fresh = f.init("t", f.other);
    CHECK(fresh.epoch == old_handle.epoch + 1);
    CHECK(f.kafka.stats().transactions_aborted == 1);
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) ==
          1);  // no longer blocks the LSO

    CHECK(kafka_err(f.kafka.send(f.producer, old_handle, kKafkaTopic, 0, {1, 11})) == "fenced");
    CHECK(kafka_err(f.kafka.begin(f.producer, old_handle)) == "fenced");
    CHECK(kafka_err(f.kafka.commit(f.producer, old_handle)) == "fenced");
    CHECK(kafka_err(f.kafka.abort(f.producer, old_handle)) == "fenced");
    CHECK(f.kafka.stats().fenced_calls == 4);

    REQUIRE(kafka_err(f.kafka.begin(f.other, fresh)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.other, fresh, kKafkaTopic, 0, {2, 20})) == "none");
    REQUIRE(kafka_err(f.kafka.commit(f.other, fresh)) == "none");
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{20});
    CHECK(f.values(0, Isolation::read_uncommitted) == KafkaValues{10, 20});
}

// Mirrors Kafka's TransactionCoordinatorTest
// shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit and
// shouldReturnInvalidEpochOnEndTxnWhenEpochIsSmaller (state CompleteCommit, an older epoch:
// PRODUCER_FENCED).
TEST_CASE("commit is idempotent for the epoch that owns it, after a newer init it answers fenced",
          "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");  // begin is idempotent too
    CHECK(f.kafka.stats().transactions_begun == 1);
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 10})) == "none");
    REQUIRE(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) ==
          "none");  // a retried commit of a committed transaction
    CHECK(kafka_err(f.kafka.abort(f.producer, h)) == "invalid_txn_state");
    CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 11})) ==
          "invalid_txn_state");  // no open txn

    f.init("t");  // a newer producer of the same id
    // Kafka's coordinator checks the epoch before the state: the retried commit is fenced even
    // though its transaction was committed -- what Flink's committer logs as likely data loss.
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "fenced");
    CHECK(f.kafka.stats().fenced_calls == 1);
    CHECK(f.kafka.stats().transactions_committed == 1);
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{10});
}

TEST_CASE("abort is idempotent, commit of an aborted transaction is invalid", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "invalid_txn_state");  // nothing begun
    CHECK(kafka_err(f.kafka.abort(f.producer, h)) == "invalid_txn_state");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(kafka_err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "invalid_txn_state");
    CHECK(f.kafka.stats().transactions_aborted == 1);
}

// A larger epoch mirrors TransactionCoordinatorTest
// shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger (PRODUCER_FENCED); another producer id, the
// coordinator's INVALID_PRODUCER_ID_MAPPING.
TEST_CASE("handles the broker never issued are rejected", "[kafka]") {
    KafkaFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    ProducerHandle unknown{"nobody", 1, 0};
    CHECK(kafka_err(f.kafka.begin(f.producer, unknown)) == "invalid_txn_state");
    ProducerHandle future = h;
    future.epoch = 5;
    CHECK(kafka_err(f.kafka.begin(f.producer, future)) == "fenced");
    CHECK(kafka_err(f.kafka.commit(f.producer, future)) == "fenced");
    ProducerHandle other_pid = h;
    other_pid.producer_id += 1;
    CHECK(kafka_err(f.kafka.commit(f.producer, other_pid)) == "invalid_producer_id_mapping");
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "none");  // the real handle is unaffected
}

TEST_CASE("the broker aborts a transaction that outlives the timeout, through the scheduler",
          "[kafka]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::seconds(10);
    KafkaFixture f(options);
    ProducerHandle h = f.init("t");
    f.advance_to(Time::zero() + Duration::seconds(1));
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 10})) == "none");

    f.advance_to(Time::zero() + Duration::millis(10'999));
    CHECK(f.kafka.stats().aborted_by_timeout == 0);
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 0);
    f.advance_to(Time::zero() + Duration::seconds(11));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(f.kafka.stats().transactions_aborted == 1);
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 1);
    CHECK(f.values(0, Isolation::read_committed).empty());

    // The abort bumped the epoch: the producer that let it time out is fenced.
    CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 11})) == "fenced");
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "fenced");
    h = f.init("t");
    CHECK(h.epoch == 2);  // init after a timeout gives epoch + 2

    // A transaction finished in time is left alone.
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 12})) == "none");
    REQUIRE(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    f.advance_to(Time::zero() + Duration::seconds(100));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{12});
}

// Kafka times a transaction from its first AddPartitionsToTxn, however busy it stays (a checkpoint
// interval longer than transaction.timeout.ms while records flow: Flink's documented pitfall).
TEST_CASE(
    "a transaction kept busy past the timeout is aborted, with the planted slip restarting the timer per write it is not",
    "[kafka]") {
    const bool per_write = GENERATE(false, true);
    KafkaOptions options;
    options.transaction_timeout = Duration::seconds(2);
    options.timer_restarts_on_write = per_write;
    KafkaFixture f(options);
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    for (int64_t ms = 0; ms <= 3'000; ms += 500) {  // a write every 500 ms for 3 s
        f.advance_to(Time::zero() + Duration::millis(ms));
        const std::string answer = kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, ms}));
        CHECK(answer == (per_write || ms < 2'000 ? "none" : "fenced"));
    }
    CHECK(f.kafka.stats().aborted_by_timeout == (per_write ? 0u : 1u));
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == (per_write ? "none" : "fenced"));
    // Idle past the timeout after its last write, a transaction expires either way.
    ProducerHandle next = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, next)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, next, kKafkaTopic, 1, {1, 1})) == "none");
    f.advance_to(f.world.now() + Duration::seconds(3));
    CHECK(f.kafka.stats().aborted_by_timeout == (per_write ? 1u : 2u));
}

TEST_CASE("the transaction timeout survives a crash of the broker node", "[kafka]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::seconds(10);
    KafkaFixture f(options);
    ProducerHandle h = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 10})) == "none");
    f.world.scheduler().crash(f.broker);
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "unavailable");
    f.advance_to(Time::zero() + Duration::seconds(20));
    f.world.scheduler().restart(f.broker);
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "fenced");
}

TEST_CASE("abort_open_transactions aborts every open transaction as on timeout", "[kafka]") {
    KafkaFixture f;
    ProducerHandle a = f.init("a");
    ProducerHandle b = f.init("b");
    ProducerHandle c = f.init("c");
    for (const ProducerHandle* h : {&a, &b, &c}) {
        REQUIRE(kafka_err(f.kafka.begin(f.producer, *h)) == "none");
        REQUIRE(kafka_err(f.kafka.send(f.producer, *h, kKafkaTopic, 0, {h->producer_id, 1})) ==
                "none");
    }
    REQUIRE(kafka_err(f.kafka.commit(f.producer, c)) == "none");
    f.kafka.abort_open_transactions();
    CHECK(f.kafka.stats().aborted_by_timeout == 2);
    CHECK(kafka_err(f.kafka.commit(f.producer, a)) ==
          "fenced");  // aborted as on timeout: the epoch was bumped
    CHECK(kafka_err(f.kafka.commit(f.producer, c)) == "none");  // c's epoch was left alone
    CHECK(f.kafka.committed_records(kKafkaTopic) == std::vector<KafkaRecord>{{c.producer_id, 1}});
    CHECK(f.kafka.end_offset(kKafkaTopic, 0, Isolation::read_committed) == 3);
}

TEST_CASE("negative control: with fencing off a zombie producer writes and commits", "[kafka]") {
    KafkaOptions options;
    options.fencing = false;
    KafkaFixture f(options);
    ProducerHandle zombie = f.init("t");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, zombie)) == "none");
    REQUIRE(kafka_err(f.kafka.send(f.producer, zombie, kKafkaTopic, 0, {1, 10})) == "none");

    ProducerHandle fresh = f.init("t", f.other);
    CHECK(fresh.epoch == 1);
    CHECK(f.kafka.stats().transactions_aborted == 0);  // the zombie's transaction stays open
    REQUIRE(kafka_err(f.kafka.begin(f.other, fresh)) ==
            "none");  // continues the zombie's open transaction
    REQUIRE(kafka_err(f.kafka.send(f.other, fresh, kKafkaTopic, 0, {2, 20})) == "none");
    // The zombie's later write lands in its successor's transaction...
    CHECK(kafka_err(f.kafka.send(f.producer, zombie, kKafkaTopic, 0, {1, 11})) == "none");
    REQUIRE(kafka_err(f.kafka.commit(f.other, fresh)) == "none");
    CHECK(f.kafka.stats().fenced_calls == 0);
    // ...and the successor commits the zombie's records with its own.
    CHECK(f.values(0, Isolation::read_committed) == KafkaValues{10, 20, 11});
    CHECK(f.kafka.stats().transactions_committed == 1);

    SECTION("turned back on, the same zombie is fenced") {
        f.kafka.set_fencing(true);
        CHECK(kafka_err(f.kafka.begin(f.producer, zombie)) == "fenced");
    }
}
