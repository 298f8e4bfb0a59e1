// The idempotent producer's epochs against each partition's producer state, after the cases of
// Kafka's ProducerStateManagerTest and UnifiedLogTest (written from their behaviour, not their
// code): an idempotent producer (init_producer_id, no transaction) sends produce requests whose
// batches carry (producer id, epoch, base sequence); each partition keeps the last epoch it saw per
// producer id and the last five batches of that epoch.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sim/external/kafka.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::NodeId;
using namespace eosim::sim::external;

const std::string kStateTopic = "out";

struct ProducerStateFixture : eosim::test::ExternalTestWorld {
    NodeId broker = add_node("broker");
    NodeId client = add_node("client");
    KafkaCluster kafka{world.scheduler(), world.network(), broker, KafkaOptions{}};
    ProducerHandle producer;

    ProducerStateFixture() {
        kafka.create_topic(kStateTopic, 2);
        REQUIRE(kafka.init_producer_id(client, &producer) == KafkaError::none);
    }
    ProducerHandle at_epoch(int32_t epoch) const {
        ProducerHandle h = producer;
        h.epoch = epoch;
        return h;
    }
    // One request: `count` records to `partition` starting at `sequence`, by `h`.
    std::string send(const ProducerHandle& h, int32_t partition, int32_t sequence,
                     int32_t count = 1) {
        std::vector<std::pair<int32_t, KafkaRecord>> records;
        for (int32_t i = 0; i < count; ++i)
            records.push_back({partition, KafkaRecord{sequence + i, h.epoch}});
        std::vector<int32_t> sequences(2, 0);
        sequences[static_cast<size_t>(partition)] = sequence;
        return to_string(kafka.produce_request(client, h, kStateTopic, records, sequences));
    }
    int64_t end(int32_t partition) const {
        return kafka.end_offset(kStateTopic, partition, Isolation::read_uncommitted);
    }
};

}  // namespace

// ProducerStateManagerTest.testBasicIdMapping: batches in sequence are appended, a gap is refused,
// and a bumped epoch starts its sequence at 0.
TEST_CASE("producer state: in-order batches, a gap refused, a new epoch from sequence 0",
          "[kafka][producer_state]") {
    ProducerStateFixture f;
    CHECK(f.send(f.producer, 0, 0) == "none");
    CHECK(f.send(f.producer, 0, 1) == "none");
    CHECK(f.send(f.producer, 0, 5) == "out_of_order_sequence");
    CHECK(f.end(0) == 2);
    CHECK(f.send(f.at_epoch(1), 0, 0) == "none");
    CHECK(f.send(f.at_epoch(1), 0, 1) == "none");
    CHECK(f.end(0) == 4);
    CHECK(f.kafka.next_sequence(f.at_epoch(1), kStateTopic, 0) == 2);
}

// UnifiedLogTest.testOldProducerEpoch (the case): epoch 1 sequence 0 is written, then
// epoch 0 sequence 1 -- in sequence for epoch 0 -- is refused with INVALID_PRODUCER_EPOCH (what a
// produce answers since Kafka 2.7, where it was PRODUCER_FENCED), and nothing is appended.
TEST_CASE("producer state: a batch of an older epoch is refused with invalid_producer_epoch",
          "[kafka][producer_state]") {
    ProducerStateFixture f;
    REQUIRE(f.send(f.producer, 0, 0) == "none");
    REQUIRE(f.send(f.at_epoch(1), 0, 0) == "none");
    CHECK(f.send(f.at_epoch(0), 0, 1) == "invalid_producer_epoch");
    CHECK(f.kafka.stats().invalid_epoch_batches == 1);
    CHECK(f.end(0) == 2);
    // A duplicate of the older epoch's batch is no duplicate any more: its epoch is refused first
    // (UnifiedLog looks for duplicates among the current epoch's batches only).
    CHECK(f.send(f.at_epoch(0), 0, 0) == "invalid_producer_epoch");
    CHECK(f.kafka.stats().duplicate_batches == 0);
    // Each partition keeps its own producer state: partition 1 never saw epoch 1.
    CHECK(f.send(f.at_epoch(0), 1, 0) == "none");
    // The current epoch goes on.
    CHECK(f.send(f.at_epoch(1), 0, 1) == "none");
    CHECK(f.end(0) == 3);
}

// ProducerAppendInfo's checkSequence for a new epoch ("Invalid sequence number for new epoch") and
// ProducerStateManagerTest.testPrepareUpdateDoesNotMutate: a refused batch leaves the state as it
// was.
TEST_CASE("producer state: a new epoch not starting at 0 is out of order and changes nothing",
          "[kafka][producer_state]") {
    ProducerStateFixture f;
    REQUIRE(f.send(f.producer, 0, 0, 3) == "none");
    CHECK(f.send(f.at_epoch(1), 0, 3) == "out_of_order_sequence");
    CHECK(f.kafka.stats().out_of_order_batches == 1);
    // The partition still holds epoch 0 with its next sequence: the old epoch is not fenced yet.
    CHECK(f.send(f.producer, 0, 3) == "none");
    CHECK(f.end(0) == 4);
}

// UnifiedLogTest.testDuplicateAppends: a batch equal to one of the last five of the current epoch
// is acknowledged and not appended; an older one is out of order; after a bump the earlier epoch's
// batches are no duplicates.
TEST_CASE("producer state: duplicates of the last five batches of the current epoch",
          "[kafka][producer_state]") {
    ProducerStateFixture f;
    for (int32_t seq = 0; seq < 12; seq += 2) REQUIRE(f.send(f.producer, 0, seq, 2) == "none");
    CHECK(f.end(0) == 12);
    CHECK(f.send(f.producer, 0, 2, 2) == "none");   // the oldest of the five remembered
    CHECK(f.send(f.producer, 0, 10, 2) == "none");  // the newest
    CHECK(f.kafka.stats().duplicate_batches == 2);
    CHECK(f.send(f.producer, 0, 0, 2) == "out_of_order_sequence");  // forgotten
    CHECK(f.send(f.producer, 0, 2, 1) == "out_of_order_sequence");  // not the same batch
    CHECK(f.end(0) == 12);
    REQUIRE(f.send(f.at_epoch(1), 0, 0, 2) == "none");
    CHECK(f.send(f.at_epoch(1), 0, 0, 2) == "none");  // a duplicate of the new epoch's batch
    CHECK(f.kafka.stats().duplicate_batches == 3);
    CHECK(f.end(0) == 14);
}

// A transactional producer's batches go through the same checks: a new epoch (init_transactions
// of the id again) starts its sequence at 0 on every partition.
TEST_CASE("producer state: a transactional producer's new epoch starts its sequences over",
          "[kafka][producer_state]") {
    ProducerStateFixture f;
    ProducerHandle first;
    REQUIRE(f.kafka.init_transactions(f.client, "t", &first) == KafkaError::none);
    REQUIRE(f.kafka.begin(f.client, first) == KafkaError::none);
    REQUIRE(f.send(first, 0, 0, 3) == "none");
    ProducerHandle second;
    REQUIRE(f.kafka.init_transactions(f.client, "t", &second) == KafkaError::none);
    REQUIRE(f.kafka.begin(f.client, second) == KafkaError::none);
    CHECK(f.send(second, 0, 3) == "out_of_order_sequence");
    ProducerHandle again;
    REQUIRE(f.kafka.abort(f.client, second, &again) ==
            KafkaError::none);  // abortable: the abort bumps
    REQUIRE(again.epoch == second.epoch + 1);
    REQUIRE(f.kafka.begin(f.client, again) == KafkaError::none);
    CHECK(f.send(again, 0, 0) == "none");
    CHECK(f.send(first, 0, 3) == "fenced");  // the coordinator refuses the old epoch first
}
