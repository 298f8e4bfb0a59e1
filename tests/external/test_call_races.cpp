// Tests of calls that race (sim/external/call_races.h) on the key-value store, the object store,
// the document store and the database: a write applied with its answer lost, a write landing late
// (after later calls of another client, or at the latest a second later), a lost request; the
// drawn races of a fault window are the same for the same seed; the call log names every call.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/external/database.h"
#include "sim/external/document_store.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Prng;
using eosim::sim::Ratio;
using eosim::sim::Time;
using namespace eosim::sim::external;

struct Fixture : eosim::test::ExternalTestWorld {
    NodeId store_node = add_node("key_values");
    NodeId a = add_node("a");
    NodeId b = add_node("b");
    KeyValueStore store{world.scheduler(), world.network(), store_node};
    std::vector<std::string> log;
    Fixture() {
        store.races().set_log([this](const CallNote& n) {
            log.push_back(world.nodes().name(n.caller) + ": " + n.call + " => " + n.answer);
        });
    }
};

}  // namespace

TEST_CASE("call races: an answer lost after the write applied, a lost request never applies",
          "[call_races]") {
    Fixture f;
    f.store.races().script({{CallDelivery::answer_lost, 1}, {CallDelivery::request_lost, 1}});
    const KeyValueResult lost_answer = f.store.incrby(f.a, "counter", 5);
    CHECK(lost_answer.error == KeyValueError::timeout);
    CHECK(f.store.peek("counter") == 5);  // it applied
    const KeyValueResult lost_request = f.store.incrby(f.a, "counter", 5);
    CHECK(lost_request.error == KeyValueError::timeout);
    CHECK(f.store.peek("counter") == 5);                   // it did not
    CHECK(f.store.incrby(f.a, "counter", 5).value == 10);  // the script is used up: answered again
    CHECK(f.store.races().stats().answers_lost == 1);
    CHECK(f.store.races().stats().requests_lost == 1);
    REQUIRE(f.log.size() == 3);
    CHECK(f.log[0] ==
          "a: INCRBY counter 5 => timeout (no answer: it may have applied, or may still land)");
    CHECK(f.log[2] == "a: INCRBY counter 5 => 10 (changed)");
}

TEST_CASE("call races: a late SET lands after another client's newer SET (the key goes back)",
          "[call_races]") {
    Fixture f;
    f.store.races().script({{CallDelivery::late, 2}});
    CHECK(f.store.set(f.a, "k", 1).error == KeyValueError::timeout);
    CHECK_FALSE(f.store.peek("k").has_value());                    // not yet
    CHECK(f.store.set(f.b, "k", 2).error == KeyValueError::none);  // call 1 after it
    CHECK(f.store.peek("k") == 2);
    CHECK(f.store.get(f.b, "k").value == 1);  // call 2: the late SET lands just before it
    CHECK(f.log.back() == "b: GET k => 1");
    CHECK(f.log[f.log.size() - 2] ==
          "a: SET k 1 => LANDS now (sent earlier; its caller saw a timeout)");
    // A compare-and-set that lands late changes nothing when its expectation no longer holds.
    f.store.races().script({{CallDelivery::late, 2}});
    CHECK(f.store.compare_and_set(f.a, "k", 1, 3).error == KeyValueError::timeout);
    CHECK(f.store.set(f.b, "k", 5).applied);
    CHECK(f.store.get(f.b, "k").value ==
          5);  // the CAS landed just before the GET: it expected 1, found 5
    CHECK(f.store.stats().absorbed_duplicates == 1);
}

TEST_CASE("call races: a late write nobody follows lands within a second", "[call_races]") {
    Fixture f;
    f.store.races().script({{CallDelivery::late, 3}});
    CHECK(f.store.set(f.a, "k", 7).error == KeyValueError::timeout);
    f.advance_to(Time::zero() + CallRaces::kLateAtMost - Duration::millis(1));
    CHECK_FALSE(f.store.peek("k").has_value());
    f.advance_to(Time::zero() + CallRaces::kLateAtMost);
    CHECK(f.store.peek("k") == 7);
    CHECK(f.store.races().stats().landed_late == 1);
}

TEST_CASE("call races: a fault window draws the same races for the same seed and none after it",
          "[call_races]") {
    auto run = [](uint64_t seed) {
        Fixture f;
        f.store.races().set_races(Ratio{1, 2}, Time::zero() + Duration::seconds(1), Prng(seed));
        std::string answers;
        for (int i = 0; i < 40; ++i) answers += to_string(f.store.incrby(f.a, "c", 1).error)[0];
        f.advance_to(Time::zero() + Duration::seconds(2));
        answers += "|";
        for (int i = 0; i < 10; ++i) answers += to_string(f.store.incrby(f.a, "c", 1).error)[0];
        return answers;
    };
    const std::string first = run(7);
    CHECK(first == run(7));
    CHECK(first != run(8));
    CHECK(first.find('t') < first.find('|'));               // some raced in the window
    CHECK(first.substr(first.find('|')) == "|nnnnnnnnnn");  // none after it
}

TEST_CASE("call races: object store, document store and database writes race too", "[call_races]") {
    eosim::test::ExternalTestWorld w;
    const NodeId caller = w.add_node("caller");
    ObjectStore objects{w.world.scheduler(), w.world.network(), w.add_node("objects")};
    objects.races().script({{CallDelivery::answer_lost, 1}});
    const ObjectResult upload = objects.initiate_upload(caller, "out/part-1");
    CHECK(upload.error == ObjectError::timeout);
    CHECK(objects.open_uploads().size() == 1);  // it was created; its id never reached the caller

    DocumentStore documents{w.world.scheduler(), w.world.network(), w.add_node("documents"),
                            w.world.prng("documents")};
    documents.races().script({{CallDelivery::answer_lost, 1}});
    DocumentWrite write;  // no id: generated
    write.fields = {{"value", 1}};
    CHECK(documents.bulk(caller, "docs", {write}).error == DocumentError::timeout);
    CHECK(documents.bulk(caller, "docs", {write}).error == DocumentError::none);  // the retry
    CHECK(documents.documents("docs").size() == 2);  // the same record twice

    Database db{w.world.scheduler(), w.world.network(), w.add_node("database")};
    db.create_table("t");
    db.races().script({{CallDelivery::answer_lost, 1}, {CallDelivery::request_lost, 1}});
    Database::TransactionId txn = 0;
    REQUIRE(db.begin(caller, &txn) == DatabaseError::none);
    REQUIRE(db.upsert(caller, txn, "t", Row{1, 10, 1, false}, false) == DatabaseError::none);
    CHECK(db.commit(caller, txn) == DatabaseError::timeout);
    CHECK(db.table_contents("t").size() == 1);                       // committed all the same
    CHECK(db.commit(caller, txn) == DatabaseError::no_transaction);  // a retry finds it gone
    REQUIRE(db.begin(caller, &txn) == DatabaseError::none);
    REQUIRE(db.upsert(caller, txn, "t", Row{2, 20, 1, false}, false) == DatabaseError::none);
    CHECK(db.commit(caller, txn) == DatabaseError::timeout);  // lost: still open
    CHECK(db.table_contents("t").size() == 1);
    CHECK(db.rollback(caller, txn) == DatabaseError::none);
}
