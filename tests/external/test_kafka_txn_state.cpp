// A Kafka transaction's lifecycle (sim/external/kafka_txn_state.h): from every state, every verb;
// each transition the table does not allow is caught by its invariant (a throwing handler stands in
// for the abort) and leaves the state as it was, each one it allows is taken. Then the broker's own
// transactions walk valid lives only: begun empty, ongoing with records, abortable after a failed
// send, committed, aborted by their producer, a newer init or the timeout.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/external/kafka.h"
#include "sim/external/kafka_txn_state.h"
#include "sim/invariant.h"
#include "tests/external/kafka_fixture.h"

namespace {

using eosim::sim::external::KafkaOptions;
using eosim::sim::external::KafkaRecord;
using eosim::sim::external::ProducerHandle;
using eosim::sim::external::TxnLifecycle;
using eosim::sim::external::TxnState;

constexpr std::array<TxnState, 5> kTxnStates = {TxnState::empty, TxnState::ongoing,
                                                TxnState::abortable, TxnState::committed,
                                                TxnState::aborted};

// The table of kafka_txn_state.h written out again: each state with its valid previous states.
const std::map<TxnState, std::set<TxnState>> kValidPrevious = {
    {TxnState::empty, {}},
    {TxnState::ongoing, {TxnState::empty}},
    {TxnState::abortable, {TxnState::empty, TxnState::ongoing}},
    {TxnState::committed, {TxnState::empty, TxnState::ongoing}},
    {TxnState::aborted, {TxnState::empty, TxnState::ongoing, TxnState::abortable}},
};

// The verb whose transition ends in `to` (empty has none: a transaction starts there).
void take_transition(TxnLifecycle& txn, TxnState to) {
    switch (to) {
        case TxnState::ongoing: txn.add_first_records(); return;
        case TxnState::abortable: txn.fail_send(); return;
        case TxnState::committed: txn.commit(); return;
        case TxnState::aborted: txn.abort(); return;
        case TxnState::empty: break;
    }
    FAIL("no verb enters " << to_string(to));
}

// A lifecycle brought to `state` by valid transitions.
TxnLifecycle lifecycle_in(TxnState state) {
    TxnLifecycle txn;
    if (state != TxnState::empty) take_transition(txn, state);
    REQUIRE(txn.state() == state);
    return txn;
}

}  // namespace

TEST_CASE("kafka transaction lifecycle: the valid previous states of each state",
          "[kafka][kafka_txn_state]") {
    for (const TxnState to : kTxnStates) {
        for (const TxnState from : kTxnStates) {
            INFO(to_string(from) << " -> " << to_string(to));
            CHECK(may_enter(from, to) == kValidPrevious.at(to).contains(from));
        }
    }
}

TEST_CASE("kafka transaction lifecycle: every invalid transition is caught, every valid one taken",
          "[kafka][kafka_txn_state]") {
    const eosim::sim::ScopedInvariantHandler scope(eosim::sim::throw_invariant_broken);
    int caught = 0;
    for (const TxnState from : kTxnStates) {
        for (const TxnState to :
             {TxnState::ongoing, TxnState::abortable, TxnState::committed, TxnState::aborted}) {
            INFO(to_string(from) << " -> " << to_string(to));
            TxnLifecycle txn = lifecycle_in(from);
            if (kValidPrevious.at(to).contains(from)) {
                CHECK_NOTHROW(
                    take_transition(txn, to));  // positive twin: a valid transition is taken
                CHECK(txn.state() == to);
            } else {
                CHECK_THROWS_WITH(take_transition(txn, to),
                                  Catch::StartsWith("invariant broken: a Kafka transaction "));
                CHECK(txn.state() == from);  // checked before the state changes
                ++caught;
            }
        }
    }
    CHECK(caught == 12);  // of 20 pairs, 8 are valid
}

TEST_CASE("kafka transaction lifecycle: the broker's transactions walk valid lives only",
          "[kafka][kafka_txn_state]") {
    using eosim::test::kafka_err;
    using eosim::test::kKafkaTopic;
    const eosim::sim::ScopedInvariantHandler scope(eosim::sim::throw_invariant_broken);
    eosim::test::KafkaFixture f;
    // empty -> ongoing -> committed
    ProducerHandle h = f.init("committer");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    const int64_t committed = f.kafka.open_transaction_of("committer");
    CHECK(f.kafka.transaction_state(committed) == TxnState::empty);
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {1, 1})) == "none");
    CHECK(f.kafka.transaction_state(committed) == TxnState::ongoing);
    REQUIRE(kafka_err(f.kafka.commit(f.producer, h)) == "none");
    CHECK(f.kafka.transaction_state(committed) == TxnState::committed);
    // ongoing -> abortable (a sequence gap) -> aborted; neither a send nor a commit gets through
    h = f.init("failer");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    const int64_t failed = f.kafka.open_transaction_of("failer");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {2, 2})) == "none");
    const std::vector<KafkaRecord> records{{2, 3}};
    CHECK(kafka_err(f.kafka.produce(f.producer, h, kKafkaTopic, 0, 5, records)) ==
          "out_of_order_sequence");
    CHECK(f.kafka.transaction_state(failed) == TxnState::abortable);
    CHECK(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 0, {2, 4})) ==
          "transaction_abortable");
    CHECK(kafka_err(f.kafka.commit(f.producer, h)) == "transaction_abortable");
    REQUIRE(kafka_err(f.kafka.abort(f.producer, h)) == "none");
    CHECK(f.kafka.transaction_state(failed) == TxnState::aborted);
    // empty -> aborted by a newer init of the id; ongoing -> aborted by the timeout
    h = f.init("fenced");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    const int64_t fenced = f.kafka.open_transaction_of("fenced");
    f.init("fenced");
    CHECK(f.kafka.transaction_state(fenced) == TxnState::aborted);
    h = f.init("slow");
    REQUIRE(kafka_err(f.kafka.begin(f.producer, h)) == "none");
    const int64_t slow = f.kafka.open_transaction_of("slow");
    REQUIRE(kafka_err(f.kafka.send(f.producer, h, kKafkaTopic, 1, {3, 5})) == "none");
    f.advance_to(f.world.scheduler().now() + KafkaOptions{}.transaction_timeout +
                 eosim::sim::Duration::seconds(1));
    CHECK(f.kafka.transaction_state(slow) == TxnState::aborted);
    CHECK(f.kafka.transaction_view(slow).expired);
}
