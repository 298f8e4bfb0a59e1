// The Kafka model against the cases of Kafka's own tests and under commit
// faults: each TEST_CASE names the Kafka test it mirrors (TransactionsTest,
// TransactionCoordinatorTest, UnifiedLogTest, TransactionStateManagerTest, TransactionMetadataTest,
// ProducerStateManagerTest). Written from those tests' behaviour, not their code.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/external/kafka.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Time;
using namespace eosim::sim::external;

const std::string kFidelityTopic = "out";

std::string fidelity_err(KafkaError e) { return to_string(e); }

struct FidelityFixture : eosim::test::ExternalTestWorld {
    NodeId broker = add_node("broker");
    NodeId producer = add_node("producer");
    NodeId other = add_node("other");
    KafkaCluster kafka;

    explicit FidelityFixture(KafkaOptions options = KafkaOptions{})
        : kafka(world.scheduler(), world.network(), broker, options) {
        kafka.create_topic(kFidelityTopic, 2);
    }
    ProducerHandle init(const std::string& id) {
        ProducerHandle h;
        REQUIRE(fidelity_err(kafka.init_transactions(producer, id, &h)) == "none");
        return h;
    }
    std::vector<int64_t> committed_values() const {
        std::vector<int64_t> out;
        for (const KafkaRecord& r : kafka.committed_records(kFidelityTopic)) out.push_back(r.value);
        return out;
    }
};

Time at_millis(int64_t ms) { return Time::zero() + Duration::millis(ms); }

}  // namespace

// TransactionsTest.testFencingOnTransactionExpiration and TransactionCoordinatorTest
// shouldAbortExpiredTransactionsInOngoingStateAndBumpEpoch: the broker aborts an expired
// transaction with the epoch bumped; the expired producer's next send fails; nothing of it is
// committed; the next init of the id gives epoch + 2 (one bump by the expiry, one by the init).
TEST_CASE("kafka fidelity: a transaction timeout aborts it and fences its producer",
          "[kafka][kafka_fidelity]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::millis(300);
    FidelityFixture f(options);
    ProducerHandle expiring = f.init("expiringProducer");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, expiring)) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, expiring, kFidelityTopic, 0, {1, 1})) == "none");
    f.advance_to(at_millis(600));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(fidelity_err(f.kafka.send(f.producer, expiring, kFidelityTopic, 0, {1, 2})) == "fenced");
    CHECK(fidelity_err(f.kafka.commit(f.producer, expiring)) == "fenced");
    CHECK(fidelity_err(f.kafka.abort(f.producer, expiring)) == "fenced");
    CHECK(f.kafka.end_offset(kFidelityTopic, 0, Isolation::read_uncommitted) ==
          1);  // the second send never landed
    CHECK(f.committed_values().empty());

    ProducerHandle next = f.init("expiringProducer");
    CHECK(next.epoch == expiring.epoch + 2);
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, next)) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, next, kFidelityTopic, 0, {1, 3})) == "none");
    REQUIRE(fidelity_err(f.kafka.commit(f.producer, next)) == "none");
    CHECK(f.committed_values() == std::vector<int64_t>{3});
}

// TransactionsTest.testFencingOnCommit / TransactionCoordinatorTest
// shouldReturnInvalidEpochOnEndTxnWhenEpochIsSmaller: a commit retried with the old epoch after a
// newer producer initialised the id answers PRODUCER_FENCED -- whether the old transaction was
// still open (the init aborted it) or already committed (the coordinator checks the epoch first).
TEST_CASE("kafka fidelity: a commit with a stale epoch after a newer init is fenced",
          "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle first = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, first)) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, first, kFidelityTopic, 0, {1, 1})) == "none");

    SECTION("the old transaction still open: the init aborted it") {
        ProducerHandle second = f.init("t");
        CHECK(fidelity_err(f.kafka.commit(f.producer, first)) == "fenced");
        CHECK(f.committed_values().empty());
        REQUIRE(fidelity_err(f.kafka.begin(f.producer, second)) == "none");
        REQUIRE(fidelity_err(f.kafka.send(f.producer, second, kFidelityTopic, 0, {1, 2})) ==
                "none");
        REQUIRE(fidelity_err(f.kafka.commit(f.producer, second)) == "none");
        CHECK(f.committed_values() == std::vector<int64_t>{2});
    }
    SECTION("the old transaction committed: a retried commit is still fenced") {
        REQUIRE(fidelity_err(f.kafka.commit(f.producer, first)) == "none");
        f.init("t");
        CHECK(fidelity_err(f.kafka.commit(f.producer, first)) == "fenced");
        CHECK(f.committed_values() == std::vector<int64_t>{1});  // it stays committed
    }
    CHECK(f.kafka.stats().fenced_calls == 1);
}

// TransactionCoordinatorTest.shouldReturnInvalidEpochOnEndTxnWhenEpochIsLarger: PRODUCER_FENCED,
// not an invalid state.
TEST_CASE("kafka fidelity: a commit with a larger epoch than the broker's is fenced",
          "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    ProducerHandle larger = h;
    ++larger.epoch;
    CHECK(fidelity_err(f.kafka.commit(f.producer, larger)) == "fenced");
    CHECK(fidelity_err(f.kafka.abort(f.producer, larger)) == "fenced");
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
}

// TransactionCoordinatorTest.shouldReturnOkOnEndTxnWhenStatusIsCompleteCommitAndResultIsCommit and
// ...CompleteAbortAndResultIsAbort;
// shouldReturnInvalidTxnRequestOnEndTxnRequestWhenStatusIsCompleteCommit AndResultIsNotCommit
// (INVALID_TXN_STATE).
TEST_CASE(
    "kafka fidelity: EndTxn repeated for the same result succeeds, for the other result is invalid",
    "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(fidelity_err(f.kafka.abort(f.producer, h)) == "invalid_txn_state");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(fidelity_err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(fidelity_err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "invalid_txn_state");
}

// TransactionsTest.testBumpTransactionalEpochWithTV2Disabled (KIP-360): a produce that fails (a
// batch that expired) leaves the transaction abortable: later sends and the commit fail; the abort
// bumps the epoch, the same client carries on with the new one, the old epoch is fenced; the
// next transaction commits.
TEST_CASE("kafka fidelity: an abort after an abortable error bumps the epoch",
          "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("transactionalProducer");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 1, {1, 2})) == "none");

    const bool after_failed_send = GENERATE(true, false);
    if (after_failed_send) {
        f.kafka.set_write_failures_until(at_millis(1000));
        CHECK(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 0, {1, 3})) ==
              "write_failed");
        f.advance_to(at_millis(1000));
    } else {  // a sequence gap
        CHECK(f.kafka.next_sequence(h, kFidelityTopic, 0) == 0);
        CHECK(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 1, {{1, 3}})) ==
              "out_of_order_sequence");
        CHECK(f.kafka.stats().out_of_order_batches == 1);
    }
    CHECK(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 0, {1, 3})) ==
          "transaction_abortable");
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "transaction_abortable");
    ProducerHandle bumped;
    REQUIRE(fidelity_err(f.kafka.abort(f.producer, h, &bumped)) == "none");
    CHECK(bumped.producer_id == h.producer_id);
    CHECK(bumped.epoch == h.epoch + 1);
    CHECK(fidelity_err(f.kafka.begin(f.producer, h)) == "fenced");

    REQUIRE(fidelity_err(f.kafka.begin(f.producer, bumped)) == "none");
    CHECK(f.kafka.next_sequence(bumped, kFidelityTopic, 0) ==
          0);  // a new epoch starts its sequences over
    REQUIRE(fidelity_err(f.kafka.send(f.producer, bumped, kFidelityTopic, 0, {1, 4})) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, bumped, kFidelityTopic, 1, {1, 5})) == "none");
    REQUIRE(fidelity_err(f.kafka.commit(f.producer, bumped)) == "none");
    CHECK(f.committed_values() == std::vector<int64_t>{4, 5});

    // An abort without an abortable error leaves the epoch alone.
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, bumped)) == "none");
    ProducerHandle same;
    REQUIRE(fidelity_err(f.kafka.abort(f.producer, bumped, &same)) == "none");
    CHECK(same == bumped);
    CHECK(fidelity_err(f.kafka.begin(f.producer, bumped)) == "none");
}

// UnifiedLogTest.testDuplicateAppends and testNonSequentialAppend: a retried batch (same producer,
// epoch, sequence) is acknowledged with its first offset and not appended again; a gap answers
// OUT_OF_ORDER_SEQUENCE_NUMBER; only the last five batches are remembered.
TEST_CASE("kafka fidelity: idempotent produce deduplicates a retried batch and refuses a gap",
          "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    int64_t offset = -1;
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 0, {{1, 10}, {1, 11}},
                                         &offset)) == "none");
    CHECK(offset == 0);
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 2, {{1, 12}},
                                         &offset)) == "none");
    CHECK(offset == 2);
    CHECK(f.kafka.next_sequence(h, kFidelityTopic, 0) == 3);

    // The first batch again (its acknowledgement was lost): the same offset, nothing appended.
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 0, {{1, 10}, {1, 11}},
                                         &offset)) == "none");
    CHECK(offset == 0);
    CHECK(f.kafka.stats().duplicate_batches == 1);
    CHECK(f.kafka.end_offset(kFidelityTopic, 0, Isolation::read_uncommitted) == 3);
    // The other partition has its own sequence.
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 1, 0, {{2, 20}},
                                         &offset)) == "none");
    CHECK(offset == 0);

    SECTION("a batch beyond the five remembered is out of order, not a duplicate") {
        for (int32_t seq = 3; seq < 8; ++seq)
            REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, seq,
                                                 {{1, seq}})) == "none");
        // The oldest of the five remembered (seq 3, offset 3) is still a duplicate.
        REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 3, {{1, 3}},
                                             &offset)) == "none");
        CHECK(offset == 3);
        CHECK(f.kafka.stats().duplicate_batches == 2);
        CHECK(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 2, {{1, 12}})) ==
              "out_of_order_sequence");
        CHECK(f.kafka.end_offset(kFidelityTopic, 0, Isolation::read_uncommitted) == 8);
    }
    SECTION("a gap is refused and nothing is appended") {
        CHECK(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 5, {{1, 15}})) ==
              "out_of_order_sequence");
        CHECK(f.kafka.end_offset(kFidelityTopic, 0, Isolation::read_uncommitted) == 3);
        CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "transaction_abortable");
    }
    SECTION("the transaction commits every batch once") {
        REQUIRE(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
        CHECK(f.committed_values() == std::vector<int64_t>{10, 11, 12, 20});
    }
}

// Commit faults. TransactionCoordinatorTest
// shouldRespondWithNotCoordinatorOnEndTxnWhenCoordinatorNotFound and the client's retry of
// CONCURRENT_TRANSACTIONS: EndTxn fails alone, produce still works, nothing changes.
TEST_CASE("kafka fidelity: injected commit errors fail EndTxn only, retriably, and change nothing",
          "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    f.kafka.set_commit_errors_until(at_millis(1000));
    REQUIRE(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 0, {1, 1})) ==
            "none");  // produce works
    std::vector<std::string> answers;
    for (int i = 0; i < 4; ++i) answers.push_back(fidelity_err(f.kafka.commit(f.producer, h)));
    CHECK(answers == std::vector<std::string>{"not_coordinator", "concurrent_transactions",
                                              "request_timeout", "not_coordinator"});
    CHECK(fidelity_err(f.kafka.abort(f.producer, h)) == "concurrent_transactions");
    for (KafkaError e : {KafkaError::not_coordinator, KafkaError::concurrent_transactions,
                         KafkaError::request_timeout}) {
        CHECK(is_retriable(e));
    }
    CHECK_FALSE(is_retriable(KafkaError::fenced));
    CHECK_FALSE(is_retriable(KafkaError::invalid_txn_state));
    CHECK(f.kafka.stats().commit_errors == 5);
    CHECK(f.kafka.stats().transactions_committed == 0);
    CHECK(f.kafka.end_offset(kFidelityTopic, 0, Isolation::read_committed) == 0);  // still open
    f.advance_to(at_millis(1000));
    REQUIRE(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.committed_values() == std::vector<int64_t>{1});
}

// A commit applied but answered with a timeout: the caller cannot tell; its retry of the commit
// succeeds as a repeated EndTxn does in Kafka (CompleteCommit + COMMIT = NONE).
TEST_CASE(
    "kafka fidelity: a commit whose answer is lost was applied and the retried commit succeeds",
    "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 0, {1, 1})) == "none");
    f.kafka.set_commit_outcome_unknown_until(at_millis(500));
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "request_timeout");
    CHECK(f.kafka.stats().commit_outcomes_unknown == 1);
    CHECK(f.committed_values() == std::vector<int64_t>{1});  // applied nonetheless
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) ==
          "request_timeout");  // still no answer, still applied once
    f.advance_to(at_millis(500));
    CHECK(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.kafka.stats().transactions_committed == 1);

    SECTION("a lost answer to an abort after an abortable error hides the bump from the client") {
        REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
        CHECK(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 7, {{1, 2}})) ==
              "out_of_order_sequence");
        f.kafka.set_commit_outcome_unknown_until(at_millis(1000));
        ProducerHandle bumped;
        CHECK(fidelity_err(f.kafka.abort(f.producer, h, &bumped)) == "request_timeout");
        CHECK(bumped == h);  // the client did not learn the new epoch
        CHECK(fidelity_err(f.kafka.begin(f.producer, h)) == "fenced");
    }
}

// TransactionStateManagerTest.shouldOnlyConsiderTransactionsInTheOngoingStateToAbort: the broker's
// timeout looks at Ongoing transactions only. begin is client-side: a transaction that never added
// a partition is Empty at the coordinator and never expires (an idle sink's transaction stays
// usable).
TEST_CASE("TransactionStateManagerTest.shouldOnlyConsiderTransactionsInTheOngoingStateToAbort",
          "[kafka][kafka_fidelity]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::millis(300);
    FidelityFixture f(options);
    ProducerHandle idle = f.init("idle");
    ProducerHandle ongoing = f.init("ongoing");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, idle)) == "none");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, ongoing)) == "none");
    REQUIRE(fidelity_err(f.kafka.send(f.producer, ongoing, kFidelityTopic, 0, {1, 1})) == "none");
    f.advance_to(at_millis(2000));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
    CHECK(fidelity_err(f.kafka.commit(f.producer, ongoing)) == "fenced");
    // The empty one: still open, writable and committable long after the timeout.
    REQUIRE(fidelity_err(f.kafka.send(f.producer, idle, kFidelityTopic, 1, {2, 2})) == "none");
    CHECK(fidelity_err(f.kafka.commit(f.producer, idle)) == "none");
    CHECK(f.committed_values() == std::vector<int64_t>{2});
}

// TransactionMetadataTest.testTolerateTimeShiftDuringAddPartitions: the transaction's start time is
// set when it leaves Empty (its first partition added), not when the client began it, and adding
// another partition while Ongoing does not move it. The timeout counts from there.
TEST_CASE("TransactionMetadataTest.testTolerateTimeShiftDuringAddPartitions",
          "[kafka][kafka_fidelity]") {
    KafkaOptions options;
    options.transaction_timeout = Duration::millis(1000);
    FidelityFixture f(options);
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");  // t = 0, client-side
    f.advance_to(at_millis(700));
    REQUIRE(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 0, {1, 1})) ==
            "none");  // first partition: the timer starts
    f.advance_to(at_millis(1500));
    REQUIRE(fidelity_err(f.kafka.send(f.producer, h, kFidelityTopic, 1, {1, 2})) ==
            "none");  // a second partition: no restart
    CHECK(f.kafka.stats().aborted_by_timeout == 0);
    CHECK(f.kafka.transaction_view(f.kafka.open_transaction_of("t")).first_record ==
          at_millis(700));
    f.advance_to(at_millis(1699));
    CHECK(f.kafka.stats().aborted_by_timeout == 0);
    f.advance_to(at_millis(1701));
    CHECK(f.kafka.stats().aborted_by_timeout == 1);
}

// ProducerStateManagerTest.testOutOfSequenceAfterControlRecordEpochBump: a batch of an epoch the
// partition has not seen must start at sequence 0; a never-issued higher epoch with a later
// sequence answers OUT_OF_ORDER_SEQUENCE_NUMBER (the leader checks it before anything knows the
// epoch). The same epoch from sequence 0 is the coordinator's to refuse: PRODUCER_FENCED.
TEST_CASE("ProducerStateManagerTest.testOutOfSequenceAfterControlRecordEpochBump",
          "[kafka][kafka_fidelity]") {
    FidelityFixture f;
    ProducerHandle h = f.init("t");
    REQUIRE(fidelity_err(f.kafka.begin(f.producer, h)) == "none");
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 0, {{1, 1}})) == "none");
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 1, {{1, 2}})) == "none");
    ProducerHandle higher = h;
    higher.epoch += 2;  // never issued
    CHECK(fidelity_err(f.kafka.produce(f.producer, higher, kFidelityTopic, 0, 2, {{1, 3}})) ==
          "out_of_order_sequence");
    CHECK(f.kafka.stats().out_of_order_batches == 1);
    CHECK(fidelity_err(f.kafka.produce(f.producer, higher, kFidelityTopic, 0, 0, {{1, 3}})) ==
          "fenced");
    CHECK(f.kafka.end_offset(kFidelityTopic, 0, Isolation::read_uncommitted) == 2);
    // The real producer goes on untouched.
    REQUIRE(fidelity_err(f.kafka.produce(f.producer, h, kFidelityTopic, 0, 2, {{1, 4}})) == "none");
    REQUIRE(fidelity_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.committed_values() == std::vector<int64_t>{1, 2, 4});
}
