// Tests of the Redis-like key-value store (sim/external/key_value_store.h): SET / SETNX / INCRBY /
// DEL, expiry in virtual time, the atomic dedup-and-increment script, compare-and-set, and calls
// that fail (down or partitioned caller, unavailable, write errors) and change nothing.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "sim/external/key_value_store.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Time;
using namespace eosim::sim::external;

std::string err(KeyValueError e) { return to_string(e); }

struct KeyValueFixture : eosim::test::ExternalTestWorld {
    NodeId store_node = add_node("key_values");
    NodeId writer = add_node("writer");
    KeyValueStore store{world.scheduler(), world.network(), store_node};
};

Time at_seconds(int64_t s) { return Time::zero() + Duration::seconds(s); }

}  // namespace

TEST_CASE("SETNX sets an absent key and on an existing key changes nothing", "[key_value_store]") {
    KeyValueFixture f;
    KeyValueResult r = f.store.setnx(f.writer, "event:1", 10);
    CHECK(r.applied);
    r = f.store.setnx(f.writer, "event:1", 20);
    CHECK(err(r.error) == "none");
    CHECK(!r.applied);
    CHECK(r.value == 10);
    CHECK(f.store.peek("event:1") == 10);
    CHECK(f.store.stats().absorbed_duplicates == 1);
    CHECK(f.store.stats().writes_applied == 1);
}

TEST_CASE("GET, SET, INCRBY and DEL", "[key_value_store]") {
    KeyValueFixture f;
    CHECK(!f.store.get(f.writer, "c").value);
    CHECK(f.store.incrby(f.writer, "c", 5).value == 5);  // an absent key counts as 0
    CHECK(f.store.incrby(f.writer, "c", -2).value == 3);
    CHECK(f.store.get(f.writer, "c").value == 3);
    CHECK(f.store.set(f.writer, "c", 8).applied);
    CHECK(!f.store.set(f.writer, "c", 8).applied);  // the same value: absorbed
    CHECK(f.store.del(f.writer, "c").applied);
    CHECK(!f.store.del(f.writer, "c").applied);
    CHECK(!f.store.get(f.writer, "c").value);
    CHECK(f.store.stats().absorbed_duplicates == 2);
}

TEST_CASE("expired keys vanish: GET reads absent, SETNX sets again, INCRBY restarts from 0",
          "[key_value_store]") {
    KeyValueFixture f;
    f.store.set(f.writer, "ttl", 1, Duration::seconds(2));
    f.store.setnx(f.writer, "dedup", 1, Duration::seconds(2));
    f.store.set(f.writer, "counter", 40);
    CHECK(f.store.expire(f.writer, "counter", Duration::seconds(3)).applied);
    CHECK(!f.store.expire(f.writer, "missing", Duration::seconds(3)).applied);
    f.advance_to(at_seconds(1));
    CHECK(f.store.get(f.writer, "ttl").value == 1);
    CHECK(!f.store.setnx(f.writer, "dedup", 2).applied);
    f.advance_to(at_seconds(2));
    CHECK(!f.store.get(f.writer, "ttl").value);
    CHECK(f.store.setnx(f.writer, "dedup", 2).applied);
    CHECK(f.store.entries() == std::map<std::string, int64_t>{{"counter", 40}, {"dedup", 2}});
    f.advance_to(at_seconds(3));
    CHECK(f.store.incrby(f.writer, "counter", 1).value == 1);
    CHECK(f.store.set(f.writer, "ttl", 5, Duration::seconds(1)).applied);
    CHECK(f.store.set(f.writer, "ttl", 5).applied);  // a SET without TTL clears it
    f.advance_to(at_seconds(10));
    CHECK(f.store.get(f.writer, "ttl").value == 5);
}

TEST_CASE("the dedup-then-increment script adds once per dedup key, atomically",
          "[key_value_store]") {
    KeyValueFixture f;
    KeyValueResult r = f.store.set_if_absent_then_incrby(f.writer, "seen:k1:1", "count:k1", 1);
    CHECK(r.applied);
    CHECK(r.value == 1);
    r = f.store.set_if_absent_then_incrby(f.writer, "seen:k1:1", "count:k1", 1);  // a replay
    CHECK(!r.applied);
    CHECK(r.value == 1);
    r = f.store.set_if_absent_then_incrby(f.writer, "seen:k1:2", "count:k1", 1);
    CHECK(r.value == 2);
    CHECK(f.store.entries("count:") == std::map<std::string, int64_t>{{"count:k1", 2}});
    CHECK(f.store.stats().absorbed_duplicates == 1);

    SECTION("a failed script changes neither key") {
        f.store.set_write_errors_until(at_seconds(1));
        r = f.store.set_if_absent_then_incrby(f.writer, "seen:k1:3", "count:k1", 1);
        CHECK(err(r.error) == "write_failed");
        CHECK(!f.store.peek("seen:k1:3"));
        CHECK(f.store.peek("count:k1") == 2);
    }
    SECTION("an expired dedup key lets the replay count again (why dedup keys need a long TTL)") {
        f.store.set_if_absent_then_incrby(f.writer, "seen:k2:1", "count:k2", 1,
                                          Duration::seconds(1));
        f.advance_to(at_seconds(1));
        CHECK(f.store.set_if_absent_then_incrby(f.writer, "seen:k2:1", "count:k2", 1).value == 2);
    }
}

TEST_CASE("compare-and-set sets only when the current value is the expected one",
          "[key_value_store]") {
    KeyValueFixture f;
    CHECK(f.store.compare_and_set(f.writer, "v", std::nullopt, 1).applied);
    CHECK(!f.store.compare_and_set(f.writer, "v", std::nullopt, 2).applied);
    KeyValueResult r = f.store.compare_and_set(f.writer, "v", 5, 2);
    CHECK(!r.applied);
    CHECK(r.value == 1);
    CHECK(f.store.compare_and_set(f.writer, "v", 1, 2).applied);
    CHECK(f.store.peek("v") == 2);
}

TEST_CASE(
    "key-value calls fail from a down or partitioned caller, while unavailable or under write errors, "
    "and write nothing",
    "[key_value_store]") {
    KeyValueFixture f;
    SECTION("caller down") {
        f.world.scheduler().crash(f.writer);
        CHECK(err(f.store.setnx(f.writer, "a", 1).error) == "unavailable");
        CHECK(err(f.store.get(f.writer, "a").error) == "unavailable");
    }
    SECTION("partitioned") {
        f.world.network().partition({f.writer}, {f.store_node}, false);
        CHECK(err(f.store.incrby(f.writer, "a", 1).error) == "unavailable");
        CHECK(err(f.store.set_if_absent_then_incrby(f.writer, "d", "a", 1).error) == "unavailable");
    }
    SECTION("unavailable, then back") {
        f.store.set_unavailable_until(at_seconds(1));
        CHECK(err(f.store.set(f.writer, "a", 1).error) == "unavailable");
        f.advance_to(at_seconds(1));
        CHECK(f.store.set(f.writer, "b", 1).applied);
        CHECK(f.store.entries() == std::map<std::string, int64_t>{{"b", 1}});
        return;
    }
    SECTION("write errors: reads answer, writes fail") {
        f.store.set_write_errors_until(at_seconds(1));
        CHECK(err(f.store.set(f.writer, "a", 1).error) == "write_failed");
        CHECK(err(f.store.del(f.writer, "a").error) == "write_failed");
        CHECK(err(f.store.get(f.writer, "a").error) == "none");
    }
    CHECK(f.store.entries().empty());
    CHECK(f.store.stats().failed_calls >= 1);
}

TEST_CASE("key-value content survives a crash of the store's node", "[key_value_store]") {
    KeyValueFixture f;
    f.store.set(f.writer, "a", 1);
    f.world.scheduler().crash(f.store_node);
    CHECK(err(f.store.get(f.writer, "a").error) == "unavailable");
    f.world.scheduler().restart(f.store_node);
    CHECK(f.store.get(f.writer, "a").value == 1);
}
