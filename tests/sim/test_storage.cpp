// sim::DurableStorage: the checkpoint store. Asynchronous operations with latency, durability
// across crashes, injected failures and slowness, and callbacks bound to the caller's incarnation.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kStorageControl{"test.control"};

Time storage_ms(int64_t ms) { return Time::zero() + Duration::millis(ms); }

void run_storage(World& world) {
    while (world.scheduler().step()) {}
}

void storage_at(World& world, Time when, std::function<void()> action) {
    world.scheduler().schedule_at(when, kNoNode, kStorageControl, 0, std::move(action));
}

WorldOptions fixed_latency(Duration latency, Ratio failure = Ratio::never()) {
    WorldOptions options;
    options.seed = 21;
    options.storage.latency = LinkLatency{latency, latency};
    options.storage.failure = failure;
    return options;
}

// The completion of one operation, as the caller saw it.
struct Outcome {
    std::optional<StorageStatus> status;
    std::string value;
    std::vector<std::string> keys;
    Time at = Time::never();
};

class Client {
public:
    Client(World& w, NodeId n) : world(w), node(n) {}
    World& world;
    NodeId node;

    Outcome* put(std::string key, std::string value) {
        Outcome* out = fresh();
        world.storage().put(node, std::move(key), std::move(value),
                            [this, out](StorageStatus s) { finish(out, s); });
        return out;
    }
    Outcome* get(std::string key) {
        Outcome* out = fresh();
        world.storage().get(node, std::move(key), [this, out](StorageStatus s, std::string v) {
            out->value = std::move(v);
            finish(out, s);
        });
        return out;
    }
    Outcome* remove(std::string key) {
        Outcome* out = fresh();
        world.storage().remove(node, std::move(key),
                               [this, out](StorageStatus s) { finish(out, s); });
        return out;
    }
    Outcome* list(std::string prefix) {
        Outcome* out = fresh();
        world.storage().list(node, std::move(prefix),
                             [this, out](StorageStatus s, std::vector<std::string> k) {
                                 out->keys = std::move(k);
                                 finish(out, s);
                             });
        return out;
    }

private:
    Outcome* fresh() { return &outcomes_.emplace_back(); }
    void finish(Outcome* out, StorageStatus status) {
        REQUIRE_FALSE(out->status.has_value());  // a callback runs at most once
        out->status = status;
        out->at = world.now();
    }
    std::deque<Outcome> outcomes_;  // stable addresses
};

TEST_CASE("storage: put, get, list and remove", "[sim][storage]") {
    World world(fixed_latency(Duration::millis(2)));
    Client client{world, world.nodes().add("jm")};

    Outcome* put_a = client.put("chk/1/a", "alpha");
    Outcome* put_b = client.put("chk/1/b", "beta");
    Outcome* put_other = client.put("chk/2/a", "gamma");
    Outcome* put_outside = client.put("chk", "top");
    run_storage(world);
    CHECK(put_a->status == StorageStatus::ok);
    CHECK(put_b->status == StorageStatus::ok);
    CHECK(put_other->status == StorageStatus::ok);
    CHECK(put_outside->status == StorageStatus::ok);

    Outcome* got = client.get("chk/1/b");
    Outcome* missing = client.get("chk/9");
    Outcome* listed = client.list("chk/1/");
    Outcome* listed_all = client.list("chk/");
    run_storage(world);
    CHECK(got->status == StorageStatus::ok);
    CHECK(got->value == "beta");
    CHECK(missing->status == StorageStatus::not_found);
    CHECK(listed->status == StorageStatus::ok);
    CHECK(listed->keys == std::vector<std::string>{"chk/1/a", "chk/1/b"});
    CHECK(listed_all->keys == std::vector<std::string>{"chk/1/a", "chk/1/b", "chk/2/a"});

    Outcome* overwrite = client.put("chk/1/a", "ALPHA");
    Outcome* removed = client.remove("chk/1/b");
    run_storage(world);
    CHECK(overwrite->status == StorageStatus::ok);
    CHECK(removed->status == StorageStatus::ok);
    CHECK(world.storage().contents().at("chk/1/a") == "ALPHA");
    CHECK(world.storage().contents().count("chk/1/b") == 0);
    CHECK(client.list("chk/1/")->keys.empty());  // not completed yet: asynchronous
    Outcome* after = client.list("chk/1/");
    run_storage(world);
    CHECK(after->keys == std::vector<std::string>{"chk/1/a"});
    CHECK(world.storage().bytes_stored() == std::string("chk/1/achk/2/achk").size() + 5 + 5 + 3);
}

TEST_CASE("storage: operations take their latency", "[sim][storage]") {
    World world(fixed_latency(Duration::millis(3)));
    Client client{world, world.nodes().add("tm")};
    Outcome* put = client.put("k", "v");
    CHECK(world.storage().contents().empty());  // nothing lands before the latency
    run_storage(world);
    CHECK(put->at == storage_ms(3));

    world.storage().slow_until(storage_ms(100), 4);
    Outcome* slow = client.put("k", "w");
    run_storage(world);
    CHECK(slow->at == storage_ms(3 + 12));

    storage_at(world, storage_ms(100), [] {});
    run_storage(world);
    Outcome* normal = client.get("k");
    run_storage(world);
    CHECK(normal->at == storage_ms(103));

    rc::prop("latencies stay in the configured range", [](uint64_t seed) {
        const int64_t min_us = *rc::gen::inRange<int64_t>(0, 5'000);
        const int64_t max_us = min_us + *rc::gen::inRange<int64_t>(0, 5'000);
        WorldOptions options;
        options.seed = seed;
        options.storage.latency = LinkLatency{Duration::micros(min_us), Duration::micros(max_us)};
        World w(options);
        const NodeId node = w.nodes().add("n");
        int done = 0;
        for (int i = 0; i < 20; ++i) {
            w.storage().put(node, std::string("k").append(std::to_string(i)), "v",
                            [&](StorageStatus) {
                                RC_ASSERT(w.now() >= Time::zero() + Duration::micros(min_us));
                                RC_ASSERT(w.now() <= Time::zero() + Duration::micros(max_us));
                                ++done;
                            });
        }
        run_storage(w);
        RC_ASSERT(done == 20);
    });
}

TEST_CASE("storage: writes outlive crashes of every node", "[sim][storage]") {
    World world(fixed_latency(Duration::millis(1)));
    const NodeId writer = world.nodes().add("writer");
    const NodeId reader = world.nodes().add("reader");
    Client writing{world, writer};
    Client reading{world, reader};
    world.nodes().disk(writer)["local"] = "gone on crash";
    writing.put("chk/7", "snapshot");
    run_storage(world);
    world.scheduler().crash(writer);
    world.scheduler().crash(reader);
    world.scheduler().restart(reader);
    CHECK(world.nodes().disk(writer).empty());
    Outcome* got = reading.get("chk/7");
    run_storage(world);
    CHECK(got->status == StorageStatus::ok);
    CHECK(got->value == "snapshot");

    SECTION("a node that is down cannot issue operations") {
        Outcome* ghost = writing.put("chk/8", "x");
        run_storage(world);
        CHECK_FALSE(ghost->status.has_value());
        CHECK(world.storage().contents().count("chk/8") == 0);
    }
}

TEST_CASE("storage: a caller's crash drops its callback but the write still lands",
          "[sim][storage]") {
    World world(fixed_latency(Duration::millis(5)));
    const NodeId node = world.nodes().add("sink");
    Client client{world, node};
    Outcome* put = nullptr;
    storage_at(world, storage_ms(0), [&] { put = client.put("txn/1", "committed"); });
    storage_at(world, storage_ms(1), [&] { world.scheduler().crash(node); });
    SECTION("crashed and still down") { run_storage(world); }
    SECTION("crashed and restarted before the write completed") {
        storage_at(world, storage_ms(2), [&] { world.scheduler().restart(node); });
        run_storage(world);
    }
    REQUIRE(put != nullptr);
    CHECK_FALSE(put->status.has_value());
    CHECK(world.storage().contents().at("txn/1") == "committed");
}

TEST_CASE("storage: injected failures", "[sim][storage]") {
    SECTION("fail_until fails every operation that completes before the deadline") {
        World world(fixed_latency(Duration::millis(2)));
        Client client{world, world.nodes().add("jm")};
        world.storage().fail_until(storage_ms(10));
        Outcome* early = client.put("a", "1");  // completes at 2 ms
        storage_at(world, storage_ms(7),
                   [&] { client.put("b", "2"); });  // completes at 9 ms: fails
        Outcome* late = nullptr;
        storage_at(world, storage_ms(8),
                   [&] { late = client.put("c", "3"); });  // completes at 10 ms: succeeds
        run_storage(world);
        CHECK(early->status == StorageStatus::failed);
        REQUIRE(late != nullptr);
        CHECK(late->status == StorageStatus::ok);
        CHECK(world.storage().contents().count("a") == 0);
        CHECK(world.storage().contents().count("b") == 0);
        CHECK(world.storage().contents().at("c") == "3");
        Outcome* get_failed_key = client.get("a");
        run_storage(world);
        CHECK(get_failed_key->status == StorageStatus::not_found);
    }
    SECTION("a failure ratio of 1 fails everything, reads and lists included") {
        World world(fixed_latency(Duration::millis(1), Ratio::always()));
        Client client{world, world.nodes().add("jm")};
        Outcome* put = client.put("a", "1");
        Outcome* get = client.get("a");
        Outcome* list = client.list("");
        Outcome* remove = client.remove("a");
        run_storage(world);
        CHECK(put->status == StorageStatus::failed);
        CHECK(get->status == StorageStatus::failed);
        CHECK(list->status == StorageStatus::failed);
        CHECK(remove->status == StorageStatus::failed);
        CHECK(world.storage().contents().empty());
    }
    SECTION("a failure ratio of 1/3 fails about a third, and only failed writes are missing") {
        World world(fixed_latency(Duration::millis(1), Ratio{1, 3}));
        Client client{world, world.nodes().add("jm")};
        std::vector<Outcome*> puts;
        const int total = 6'000;
        for (int i = 0; i < total; ++i)
            puts.push_back(client.put(std::string("k").append(std::to_string(i)), "v"));
        run_storage(world);
        int failed = 0;
        for (int i = 0; i < total; ++i) {
            REQUIRE(puts[static_cast<size_t>(i)]->status.has_value());
            const bool did_fail = *puts[static_cast<size_t>(i)]->status == StorageStatus::failed;
            failed += did_fail ? 1 : 0;
            CHECK(world.storage().contents().count(std::string("k").append(std::to_string(i))) ==
                  (did_fail ? 0U : 1U));
        }
        CHECK(failed > total / 3 - 250);
        CHECK(failed < total / 3 + 250);
    }
}

}  // namespace
}  // namespace eosim::sim
