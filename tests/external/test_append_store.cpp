// Tests of the unprotected append store (sim/external/append_store.h): appends land in call order,
// duplicates are kept, and calls fail from a down or partitioned node or while it is unavailable.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "sim/external/append_store.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Time;
using eosim::sim::external::AppendStore;
using eosim::sim::external::AppendStoreError;
using eosim::sim::external::KafkaRecord;

std::string err(AppendStoreError e) { return eosim::sim::external::to_string(e); }

struct AppendStoreFixture : eosim::test::ExternalTestWorld {
    NodeId store_node = add_node("store");
    NodeId writer = add_node("writer");
    NodeId other = add_node("other");
    AppendStore store{world.scheduler(), world.network(), store_node};
};

}  // namespace

TEST_CASE("appends land in call order and duplicates are kept", "[append_store]") {
    AppendStoreFixture f;
    CHECK(f.store.node() == f.store_node);
    CHECK(err(f.store.append(f.writer, {1, 10})) == "none");
    CHECK(err(f.store.append(f.other, {2, 20})) == "none");
    CHECK(err(f.store.append(f.writer, {1, 10})) == "none");  // a replay: no protection
    CHECK(f.store.records() == std::vector<KafkaRecord>{{1, 10}, {2, 20}, {1, 10}});
    CHECK(f.store.failed_appends() == 0);
}

TEST_CASE(
    "appends fail from a down or partitioned caller, or while the store is down or unavailable",
    "[append_store]") {
    AppendStoreFixture f;
    SECTION("caller down") {
        f.world.scheduler().crash(f.writer);
        CHECK(err(f.store.append(f.writer, {1, 1})) == "unavailable");
        f.world.scheduler().restart(f.writer);
        CHECK(err(f.store.append(f.writer, {1, 1})) == "none");
    }
    SECTION("store node down; its content survives") {
        REQUIRE(err(f.store.append(f.writer, {1, 1})) == "none");
        f.world.scheduler().crash(f.store_node);
        CHECK(err(f.store.append(f.writer, {1, 2})) == "unavailable");
        f.world.scheduler().restart(f.store_node);
        CHECK(f.store.records() == std::vector<KafkaRecord>{{1, 1}});
    }
    SECTION("partitions, symmetric and one-way in either direction") {
        auto p = f.world.network().partition({f.writer}, {f.store_node}, false);
        CHECK(err(f.store.append(f.writer, {1, 1})) == "unavailable");
        CHECK(err(f.store.append(f.other, {2, 2})) == "none");
        f.world.network().heal(p);
        p = f.world.network().partition({f.store_node}, {f.writer}, true);
        CHECK(err(f.store.append(f.writer, {1, 1})) == "unavailable");
        f.world.network().heal(p);
        p = f.world.network().partition({f.writer}, {f.store_node}, true);
        CHECK(err(f.store.append(f.writer, {1, 1})) == "unavailable");
        f.world.network().heal(p);
        CHECK(err(f.store.append(f.writer, {1, 1})) == "none");
    }
    SECTION("unavailable for a period") {
        f.store.set_unavailable_until(Time::zero() + Duration::seconds(3));
        CHECK(err(f.store.append(f.writer, {1, 1})) == "unavailable");
        f.advance_to(Time::zero() + Duration::seconds(3));
        CHECK(err(f.store.append(f.writer, {1, 1})) == "none");
    }
    // Whatever failed wrote nothing.
    CHECK(f.store.records().size() + f.store.failed_appends() >= 1);
    for (const KafkaRecord& r : f.store.records()) CHECK(r.key >= 1);
}
