// KafkaSink's restore (engine/connectors/kafka_sink.h) against the Kafka model, driven by hand (no
// engine): a transaction left open after ids that skipped checkpoints never used is aborted on
// restore (the gap of a probe that stops at the first unused id: unaligned-swarm seed 110); the
// restored pre-committed transactions are committed, not aborted, also while their commit waits for
// a retry; other subtasks' and other sinks' transactions (a prefix that extends ours) are left
// alone. Restored at another parallelism: a scale-in's remaining subtask commits the removed
// subtasks' pre-committed transactions and aborts their lingering ones; a scale-out's new subtask
// leaves a transaction of its index that another subtask's restored state holds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/connectors/kafka_sink.h"
#include "sim/world.h"
#include "tests/engine/fake_sink_context.h"

namespace eosim::engine {
namespace {

namespace external = sim::external;

struct Setup {
    sim::World world{sim::WorldOptions{}};
    sim::NodeId broker = world.nodes().add("broker");
    sim::NodeId task_node = world.nodes().add("tm0");
    external::KafkaCluster kafka{world.scheduler(), world.network(), broker,
                                 external::KafkaOptions{}};
    FakeSinkContext context{world, task_node, 0,
                            2};  // subtask 0 of 2: subtask 1's ids are not its own
    RuntimeConfig runtime;
    KafkaSinkOptions options{"output", DeliveryGuarantee::exactly_once, "sink"};
    Setup() { kafka.create_topic("output", 2); }
};

bool open_now(const external::KafkaCluster& kafka, const std::string& id) {
    return kafka.open_transaction_of(id) >= 0;
}

}  // namespace

TEST_CASE(
    "kafka sink: a transaction left open after ids skipped checkpoints never used is aborted on restore",
    "[kafka_sink]") {
    Setup s;
    // Another subtask of the same sink and another sink whose prefix extends ours ("sink-0") hold
    // open transactions: not ours to abort.
    external::ProducerHandle other_subtask, other_sink;
    REQUIRE(s.kafka.init_transactions(s.task_node, "sink-1-5", &other_subtask) ==
            external::KafkaError::none);
    REQUIRE(s.kafka.begin(s.task_node, other_subtask) == external::KafkaError::none);
    REQUIRE(s.kafka.init_transactions(s.task_node, "sink-0-1-7", &other_sink) ==
            external::KafkaError::none);
    REQUIRE(s.kafka.begin(s.task_node, other_sink) == external::KafkaError::none);

    std::string state_at_1, state_at_4, error;
    {
        KafkaSink first(s.options, s.context, s.kafka, s.runtime);
        REQUIRE(first.open(0, {}));  // begins sink-0-1
        first.write(RecordBatch{Record{1, 1}});
        REQUIRE(first.pre_commit(1, &state_at_1, &error));  // begins sink-0-2
        first.checkpoint_complete(1);                       // commits sink-0-1
        first.write(RecordBatch{Record{2, 1}});
        // Checkpoints 2 and 3 never reach this subtask: ids 3 and 4 are never used.
        REQUIRE(
            first.pre_commit(4, &state_at_4, &error));  // sink-0-2 pre-committed; begins sink-0-5
        first.write(
            RecordBatch{Record{3, 1}, Record{4, 1}});  // sink-0-5 holds records on both partitions
        // The TaskManager is cut off and never aborts (no close): checkpoint 4 never completes.
    }
    const int64_t precommitted = s.kafka.open_transaction_of("sink-0-2");
    const int64_t left_behind = s.kafka.open_transaction_of("sink-0-5");
    REQUIRE(precommitted >= 0);
    REQUIRE(left_behind >= 0);

    KafkaSink restored(s.options, s.context, s.kafka, s.runtime);
    REQUIRE(restored.open(1, {{0, state_at_1}}));  // commits sink-0-1 again, begins sink-0-2 anew
    CHECK(s.context.failures.empty());
    // A probe aborts sink-0-2, finds sink-0-3 never used and stops: sink-0-5 lingers until the
    // broker's transaction timeout and holds both partitions' last stable offset.
    CHECK(s.kafka.transaction_state(precommitted) == external::TxnState::aborted);
    CHECK(s.kafka.transaction_state(left_behind) == external::TxnState::aborted);
    CHECK_FALSE(open_now(s.kafka, "sink-0-5"));
    for (int32_t partition : {0, 1}) CHECK(s.kafka.open_transactions("output", partition).empty());
    CHECK(s.kafka.committed_records("output") == std::vector<external::KafkaRecord>{{1, 1}});
    CHECK(open_now(s.kafka, "sink-1-5"));
    CHECK(open_now(s.kafka, "sink-0-1-7"));
    CHECK(restored.settled());
}

TEST_CASE(
    "kafka sink: a restore aborts the lingering transactions of every subtask index that maps to it, also one that "
    "left no state",
    "[kafka_sink]") {
    Setup s;
    // Checkpoint 1 was taken at parallelism 1; a restore at 2 ran subtask 1 (no state of its own),
    // which began sink-1-2 and crashed with the rest. The next restore, at 1 from checkpoint 1
    // again, gets no state of subtask 1, yet index 1 maps to subtask 0 now (1 % 1): its transaction
    // lingers unless subtask 0 aborts it (FLINK-23854); index 3 maps to subtask 1 at parallelism 2.
    external::ProducerHandle lingering, elsewhere;
    REQUIRE(s.kafka.init_transactions(s.task_node, "sink-1-2", &lingering) ==
            external::KafkaError::none);
    REQUIRE(s.kafka.begin(s.task_node, lingering) == external::KafkaError::none);
    REQUIRE(s.kafka.init_transactions(s.task_node, "sink-3-2", &elsewhere) ==
            external::KafkaError::none);
    REQUIRE(s.kafka.begin(s.task_node, elsewhere) == external::KafkaError::none);
    FakeSinkContext of_two{s.world, s.task_node, 0, 2};
    KafkaSink at_two(s.options, of_two, s.kafka, s.runtime);
    REQUIRE(at_two.open(1, {}));
    CHECK(
        open_now(s.kafka, "sink-1-2"));  // at parallelism 2, subtask 1's: not subtask 0's to abort
    CHECK(open_now(s.kafka, "sink-3-2"));
    FakeSinkContext alone{s.world, s.task_node, 0, 1};
    KafkaSink at_one(s.options, alone, s.kafka, s.runtime);
    REQUIRE(at_one.open(1, {}));
    CHECK(alone.failures.empty());
    CHECK_FALSE(open_now(s.kafka, "sink-1-2"));
    CHECK_FALSE(open_now(s.kafka, "sink-3-2"));
}

TEST_CASE(
    "kafka sink: the restore commits its restored transactions and never aborts them, also while the commit "
    "waits for a retry",
    "[kafka_sink]") {
    Setup s;
    std::string state_at_2, error;
    {
        KafkaSink first(s.options, s.context, s.kafka, s.runtime);
        REQUIRE(first.open(0, {}));
        first.write(RecordBatch{Record{1, 1}});
        REQUIRE(
            first.pre_commit(1, &state_at_2, &error));  // sink-0-1 pre-committed; begins sink-0-2
        first.write(RecordBatch{Record{2, 1}});
        REQUIRE(
            first.pre_commit(2, &state_at_2, &error));  // sink-0-2 pre-committed; begins sink-0-3
        first.write(RecordBatch{Record{3, 1}});
    }
    // Checkpoint 2 completed, but the notification never arrived. EndTxn answers retriable errors
    // for a while: the restore's commits wait for a retry, the transactions stay ongoing.
    s.kafka.set_commit_errors_until(s.world.now() + sim::Duration::seconds(10));
    KafkaSink restored(s.options, s.context, s.kafka, s.runtime);
    REQUIRE(restored.open(2, {{0, state_at_2}}));
    CHECK(s.context.failures.empty());
    CHECK_FALSE(restored.settled());
    CHECK(open_now(s.kafka, "sink-0-1"));  // restored: left for the commit retry
    CHECK(open_now(s.kafka, "sink-0-2"));
    CHECK(open_now(s.kafka,
                   "sink-0-3"));  // the restored attempt's own new transaction (same id, new epoch)
    CHECK(s.kafka.transaction_view(s.kafka.open_transaction_of("sink-0-3")).first_record ==
          sim::Time::never());
}

namespace {

// Subtasks 0..parallelism-1 each write {subtask, 1}, pre-commit checkpoint `checkpoint` (their
// states returned) and write {10 + subtask, 1} into the next transaction, left lingering.
std::vector<RestoredSinkState> precommit_on_subtasks(Setup& s, int32_t parallelism,
                                                     int64_t checkpoint) {
    std::vector<RestoredSinkState> states;
    for (int32_t i = 0; i < parallelism; ++i) {
        FakeSinkContext context{s.world, s.task_node, i};
        KafkaSink sink(s.options, context, s.kafka, s.runtime);
        REQUIRE(sink.open(0, {}));
        sink.write(RecordBatch{Record{i, 1}});
        std::string state, error;
        REQUIRE(sink.pre_commit(checkpoint, &state, &error));
        sink.write(RecordBatch{Record{10 + i, 1}});
        states.push_back(RestoredSinkState{i, state});
    }
    return states;
}

}  // namespace

TEST_CASE(
    "kafka sink: restored at a smaller parallelism, a subtask commits the removed subtasks' transactions and "
    "aborts their lingering ones",
    "[kafka_sink]") {
    Setup s;
    // Checkpoint 1 completed on three subtasks; no notification arrived. Restored at parallelism 1.
    const std::vector<RestoredSinkState> states = precommit_on_subtasks(s, 3, 1);
    KafkaSink restored(s.options, s.context, s.kafka, s.runtime);
    REQUIRE(restored.open(1, states));
    CHECK(s.context.failures.empty());
    CHECK(restored.settled());
    auto committed = s.kafka.committed_records("output");
    std::sort(committed.begin(), committed.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
    CHECK(committed == std::vector<external::KafkaRecord>{{0, 1}, {1, 1}, {2, 1}});
    for (const char* id : {"sink-1-2", "sink-2-2"})
        CHECK_FALSE(open_now(s.kafka, id));  // aborted as lingering
    for (int32_t partition : {0, 1}) {
        for (int64_t txn : s.kafka.open_transactions("output", partition))
            CHECK(s.kafka.transaction_view(txn).first_record == sim::Time::never());
    }
}

TEST_CASE(
    "kafka sink: 3 -> 1 -> 3, a subtask beyond the old parallelism leaves the transaction of its index that "
    "another subtask's restored state holds",
    "[kafka_sink]") {
    Setup s;
    const std::vector<RestoredSinkState> states = precommit_on_subtasks(s, 3, 1);
    // Restored at parallelism 1 while EndTxn answers retriable errors: subtask 0 holds all three
    // pre-committed transactions and carries them into checkpoint 2's state.
    s.kafka.set_commit_errors_until(s.world.now() + sim::Duration::seconds(10));
    std::string state_at_2, error;
    {
        KafkaSink alone(s.options, s.context, s.kafka, s.runtime);
        REQUIRE(alone.open(1, states));
        REQUIRE(alone.pre_commit(2, &state_at_2, &error));
    }
    REQUIRE(open_now(s.kafka, "sink-2-1"));
    // Checkpoint 2 completed; restored at parallelism 3: subtask 2 gets no state and lists its
    // index's ids, where sink-2-1 is open (subtask 0's state holds it).
    FakeSinkContext third{s.world, s.task_node, 2};
    KafkaSink beyond(s.options, third, s.kafka, s.runtime);
    REQUIRE(beyond.open(2, {}));
    CHECK(third.failures.empty());
    CHECK(open_now(s.kafka, "sink-2-1"));
    KafkaSink first(s.options, s.context, s.kafka, s.runtime);
    REQUIRE(first.open(2, {{0, state_at_2}}));
    CHECK_FALSE(first.settled());                    // the commits wait for a retry
    s.kafka.set_commit_errors_until(s.world.now());  // the coordinator answers again
    first.checkpoint_complete(3);
    CHECK(first.settled());
    for (const char* id : {"sink-0-1", "sink-1-1", "sink-2-1", "sink-0-2"})
        CHECK_FALSE(open_now(s.kafka, id));
    CHECK(s.kafka.committed_records("output").size() ==
          3);  // {0, 1}, {1, 1}, {2, 1}: checkpoint 2 had no records
}

TEST_CASE("kafka sink: a restore that cannot list transactions fails the task", "[kafka_sink]") {
    Setup s;
    s.kafka.set_unavailable_until(s.world.now() + sim::Duration::seconds(1));
    KafkaSink restored(s.options, s.context, s.kafka, s.runtime);
    CHECK_FALSE(restored.open(3, {{0, ""}}));
    REQUIRE(s.context.failures.size() == 1);
    CHECK(s.context.failures.front().find("cannot list lingering transactions: ") !=
          std::string::npos);
}

}  // namespace eosim::engine
