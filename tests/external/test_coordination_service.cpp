// Tests of the ZooKeeper-like coordination service (sim/external/coordination_service.h): sessions
// and their expiry, ephemeral nodes, compare-and-set on versions, fenced writes, watches, requests
// that get no answer (partition, unavailable), and the service's crash and restart.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "sim/external/coordination_service.h"
#include "tests/external/external_test_world.h"

namespace {

using eosim::sim::Duration;
using eosim::sim::NodeId;
using eosim::sim::Time;
using namespace eosim::sim::external;

struct CoordinationFixture : eosim::test::ExternalTestWorld {
    NodeId service_node = add_node("coordination");
    NodeId a = add_node("a");
    NodeId b = add_node("b");
    CoordinationService service{world.scheduler(), world.network(), service_node,
                                Duration::millis(200)};

    CoordinationFixture() {
        world.nodes().set_process(
            service_node, [this] { service.booted(); }, [] {});
    }
    void run_for(Duration d) { advance_to(world.now() + d); }
    SessionId open(NodeId client, Duration timeout = Duration::seconds(2)) {
        SessionId session = 0;
        service.open_session(client, timeout, [&session](CoordinationStatus s, SessionId id) {
            REQUIRE(s == CoordinationStatus::ok);
            session = id;
        });
        run_for(Duration::millis(50));
        REQUIRE(session != 0);
        return session;
    }
    // Runs one request to its answer and returns the status.
    template <typename Call>
    CoordinationStatus status_of(Call call) {
        std::optional<CoordinationStatus> got;
        call([&got](CoordinationStatus s, auto&&...) { got = s; });
        run_for(Duration::millis(300));
        REQUIRE(got.has_value());
        return *got;
    }
    CoordinationStatus create(NodeId c, SessionId s, const std::string& path, bool ephemeral,
                              std::optional<Fence> fence = {}) {
        return status_of(
            [&](auto done) { service.create(c, s, path, "v", ephemeral, fence, done); });
    }
    CoordinationStatus set(NodeId c, SessionId s, const std::string& path, const std::string& value,
                           int64_t version, std::optional<Fence> fence = {}) {
        return status_of([&](auto done) { service.set(c, s, path, value, version, fence, done); });
    }
};

}  // namespace

TEST_CASE("coordination: create, then compare-and-set on the version", "[coordination]") {
    CoordinationFixture f;
    const SessionId s = f.open(f.a);
    CHECK(f.create(f.a, s, "/counter", false) == CoordinationStatus::ok);
    CHECK(f.create(f.a, s, "/counter", false) == CoordinationStatus::node_exists);
    CHECK(f.set(f.a, s, "/counter", "1", 0) == CoordinationStatus::ok);
    CHECK(f.service.nodes().at("/counter").version == 1);
    // A writer that read version 0 loses the race: nothing changes.
    CHECK(f.set(f.a, s, "/counter", "99", 0) == CoordinationStatus::bad_version);
    CHECK(f.service.nodes().at("/counter").value == "1");
    CHECK(f.set(f.a, s, "/counter", "2", 1) == CoordinationStatus::ok);
    CHECK(f.set(f.a, s, "/missing", "2", -1) == CoordinationStatus::no_node);
    CHECK(f.status_of([&](auto done) {
        f.service.remove(f.a, s, "/counter", 1, std::nullopt, done);
    }) == CoordinationStatus::bad_version);
    CHECK(f.status_of([&](auto done) {
        f.service.remove(f.a, s, "/counter", 2, std::nullopt, done);
    }) == CoordinationStatus::ok);
    CHECK_FALSE(f.service.nodes().contains("/counter"));
}

TEST_CASE("coordination: a session the service stops hearing from expires with its ephemeral nodes",
          "[coordination]") {
    CoordinationFixture f;
    const SessionId s = f.open(f.a, Duration::seconds(1));
    CHECK(f.create(f.a, s, "/leader", true) == CoordinationStatus::ok);
    CHECK(f.create(f.a, s, "/data", false) == CoordinationStatus::ok);
    // Keep-alives hold it...
    for (int i = 0; i < 5; ++i) {
        CHECK(f.status_of([&](auto done) { f.service.keep_alive(f.a, s, done); }) ==
              CoordinationStatus::ok);
    }
    CHECK(f.service.session_alive(s));
    // ...silence for the timeout ends it: the ephemeral node goes, the persistent one stays.
    f.run_for(Duration::millis(1100));
    CHECK_FALSE(f.service.session_alive(s));
    CHECK_FALSE(f.service.nodes().contains("/leader"));
    CHECK(f.service.nodes().contains("/data"));
    CHECK(f.status_of([&](auto done) { f.service.keep_alive(f.a, s, done); }) ==
          CoordinationStatus::session_expired);
    CHECK(f.create(f.a, s, "/other", false) == CoordinationStatus::session_expired);
    CHECK(f.service.stats().sessions_expired == 1);
}

TEST_CASE("coordination: a fenced write applies only while its owner holds the fence node",
          "[coordination]") {
    CoordinationFixture f;
    const SessionId old_leader = f.open(f.a, Duration::seconds(1));
    const SessionId standby = f.open(f.b, Duration::seconds(5));
    REQUIRE(f.create(f.a, old_leader, "/leader", true) == CoordinationStatus::ok);
    const Fence fence{"/leader", old_leader};
    CHECK(f.create(f.a, old_leader, "/store/1", false, fence) == CoordinationStatus::ok);
    // Another session cannot write with the leader's fence, nor with its own.
    CHECK(f.create(f.b, standby, "/store/2", false, Fence{"/leader", standby}) ==
          CoordinationStatus::fenced);
    // The old leader goes silent; its session expires; the standby takes the lead.
    f.service.expire_sessions_of(f.a);
    REQUIRE(f.create(f.b, standby, "/leader", true) == CoordinationStatus::ok);
    // The deposed leader's write is refused (its session is gone); so is one made through a new
    // session of the same process with the old fence.
    CHECK(f.create(f.a, old_leader, "/store/2", false, fence) ==
          CoordinationStatus::session_expired);
    const SessionId reopened = f.open(f.a);
    CHECK(f.create(f.a, reopened, "/store/2", false, Fence{"/leader", reopened}) ==
          CoordinationStatus::fenced);
    CHECK(f.create(f.b, standby, "/store/2", false, Fence{"/leader", standby}) ==
          CoordinationStatus::ok);
    CHECK(f.service.stats().fenced_writes == 2);
}

TEST_CASE("coordination: creation zxids strictly increase, also when a node is created again",
          "[coordination]") {
    CoordinationFixture f;
    const SessionId s1 = f.open(f.a);
    const SessionId s2 = f.open(f.b);
    std::vector<int64_t> tokens;
    for (int round = 0; round < 3; ++round) {
        const SessionId s = round % 2 == 0 ? s1 : s2;
        const NodeId c = round % 2 == 0 ? f.a : f.b;
        f.service.create(c, s, "/leader", "x", true, std::nullopt,
                         [&tokens](CoordinationStatus st, int64_t zxid) {
                             REQUIRE(st == CoordinationStatus::ok);
                             tokens.push_back(zxid);
                         });
        f.run_for(Duration::millis(50));
        f.set(c, s, "/leader", "y", -1);  // a write in between moves the zxid too
        f.status_of([&](auto done) { f.service.remove(c, s, "/leader", -1, std::nullopt, done); });
    }
    REQUIRE(tokens.size() == 3);
    CHECK(tokens[0] < tokens[1]);
    CHECK(tokens[1] < tokens[2]);
}

TEST_CASE("coordination: a watch fires once when its node changes or goes, also on session expiry",
          "[coordination]") {
    CoordinationFixture f;
    const SessionId leader = f.open(f.a, Duration::seconds(1));
    const SessionId watcher = f.open(f.b, Duration::seconds(10));
    REQUIRE(f.create(f.a, leader, "/leader", true) == CoordinationStatus::ok);
    int fired = 0;
    f.service.get(
        f.b, watcher, "/leader",
        [](CoordinationStatus s, const CoordinationNode& n) {
            CHECK(s == CoordinationStatus::ok);
            CHECK(n.owner != 0);
        },
        [&fired] { ++fired; });
    f.run_for(Duration::millis(50));
    CHECK(fired == 0);
    f.run_for(Duration::millis(1200));  // the leader's session expires: its ephemeral node goes
    CHECK(fired == 1);
    REQUIRE(f.create(f.b, watcher, "/leader", true) == CoordinationStatus::ok);
    CHECK(fired == 1);  // one-shot
    // A watch on an absent node fires on its creation.
    int created = 0;
    f.service.get(
        f.a, f.open(f.a), "/next",
        [](CoordinationStatus s, const CoordinationNode&) {
            CHECK(s == CoordinationStatus::no_node);
        },
        [&created] { ++created; });
    f.run_for(Duration::millis(50));
    REQUIRE(f.create(f.b, watcher, "/next", false) == CoordinationStatus::ok);
    CHECK(created == 1);
}

TEST_CASE(
    "coordination: no answer means connection loss, and a partitioned client's session expires",
    "[coordination]") {
    CoordinationFixture f;
    const SessionId s = f.open(f.a, Duration::seconds(1));
    REQUIRE(f.create(f.a, s, "/leader", true) == CoordinationStatus::ok);
    const auto cut = f.world.network().partition({f.a}, {f.service_node}, false);
    CHECK(f.create(f.a, s, "/x", false) == CoordinationStatus::connection_loss);
    CHECK_FALSE(f.service.nodes().contains("/x"));
    f.run_for(Duration::seconds(1));
    CHECK_FALSE(f.service.session_alive(s));
    f.world.network().heal(cut);
    CHECK(f.status_of([&](auto done) { f.service.keep_alive(f.a, s, done); }) ==
          CoordinationStatus::session_expired);
    // Unavailable: requests go unanswered and change nothing; write errors refuse writes only.
    const SessionId t = f.open(f.b);
    f.service.set_unavailable_until(f.world.now() + Duration::millis(500));
    CHECK(f.create(f.b, t, "/y", false) == CoordinationStatus::connection_loss);
    f.run_for(Duration::millis(500));
    f.service.set_write_errors_until(f.world.now() + Duration::millis(500));
    CHECK(f.create(f.b, t, "/y", false) == CoordinationStatus::write_failed);
    CHECK(f.status_of([&](auto done) { f.service.get(f.b, t, "/y", done); }) ==
          CoordinationStatus::no_node);
    CHECK_FALSE(f.service.nodes().contains("/y"));
}

TEST_CASE(
    "coordination: a crash of the service keeps data and sessions, and their timeouts start again",
    "[coordination]") {
    CoordinationFixture f;
    const SessionId s = f.open(f.a, Duration::seconds(1));
    REQUIRE(f.create(f.a, s, "/leader", true) == CoordinationStatus::ok);
    f.run_for(Duration::millis(500));  // 0.8 s since the session last renewed
    f.world.scheduler().crash(f.service_node);
    f.run_for(Duration::seconds(3));  // down far longer than the timeout: no expiry while down
    CHECK(f.service.session_alive(s));
    f.world.scheduler().restart(f.service_node);
    f.run_for(Duration::millis(900));
    CHECK(f.service.session_alive(s));  // the full timeout again from the restart
    CHECK(f.status_of([&](auto done) { f.service.keep_alive(f.a, s, done); }) ==
          CoordinationStatus::ok);
    CHECK(f.service.nodes().contains("/leader"));
    f.run_for(Duration::seconds(2));
    CHECK_FALSE(f.service.session_alive(s));
}
