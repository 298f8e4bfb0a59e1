// The crash boundary (sim/scheduler.h): a crash at a protocol point takes effect before the
// announced step and no code of the crashed incarnation runs after it; a pause at a point takes
// effect when the running handler returns; a crash of another node than the running one (reached
// through a synchronous call) only takes it down, and the caller meets its refusal.
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/external/database.h"
#include "sim/fault_injector.h"
#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kBoundaryHandler{"test.handler"};
constexpr EventKind kBoundaryMessage{"test.message"};

FaultSpec crash_boundary_fault(FaultKind kind, std::string point,
                               std::vector<std::string> nodes = {}) {
    FaultSpec spec;
    spec.kind = kind;
    spec.trigger.point = std::move(point);
    spec.nodes = std::move(nodes);
    spec.restart = false;
    spec.duration = Duration::millis(100);
    return spec;
}

// A world with a task manager, a peer it talks to and a database; `effects` is what the outside
// world saw of the task manager (a sink's external log, say).
struct CrashBoundaryFixture {
    World world{WorldOptions{}};
    NodeId tm = world.nodes().add("tm");
    NodeId peer = world.nodes().add("peer");
    NodeId db_node = world.nodes().add("mysql");
    std::vector<std::string> effects;

    void run_until_ms(int64_t ms) {
        world.scheduler().run_until(Time::zero() + Duration::millis(ms));
    }
    // Schedules `handler` as an event of `node` at `ms`.
    template <typename Fn>
    void at_ms(int64_t ms, NodeId node, Fn handler) {
        world.scheduler().schedule_at(Time::zero() + Duration::millis(ms), node, kBoundaryHandler,
                                      0, std::move(handler));
    }
};

TEST_CASE(
    "crash boundary: a crash at a point leaves no effect of the crashed node after the announcement",
    "[sim][crash_boundary]") {
    CrashBoundaryFixture f;
    FaultInjector injector(f.world, {crash_boundary_fault(FaultKind::crash, "sink.precommitted")},
                           {});
    const ConnectionId connection = f.world.network().connect(f.tm, f.peer, {}, {});
    int destroyed = 0;
    int delivered = 0;
    f.at_ms(10, f.tm, [&] {
        struct Guard {  // a local of the handler: unwinding runs its destructor
            int& destroyed;
            ~Guard() { ++destroyed; }
        } guard{destroyed};
        f.effects.push_back("wrote batch 1");
        try {
            f.world.announce("sink.precommitted", f.tm, 1);
        } catch (const std::exception&) {  // an engine's catch-all for errors does not swallow the
                                           // unwind
            f.effects.push_back("caught");
        }
        // The dead incarnation's next steps: none of them may happen.
        f.effects.push_back("committed transaction 1");
        f.world.network().send(connection, f.tm, kBoundaryMessage, 0,
                               [&delivered] { ++delivered; });
    });
    f.at_ms(20, f.peer, [&] { f.effects.push_back("peer ran"); });  // the world goes on
    f.run_until_ms(1000);

    CHECK(f.world.nodes().state(f.tm) == NodeState::down);
    CHECK(f.effects == std::vector<std::string>{"wrote batch 1", "peer ran"});
    CHECK(destroyed == 1);
    CHECK(delivered == 0);
    CHECK(f.world.network().messages_sent() == 0);
    REQUIRE(injector.fired().size() == 1);  // the fault was carried out and recorded in full
    CHECK(injector.fired()[0].action == "crashed tm");
    CHECK(f.world.scheduler().running() == kNoNode);
}

TEST_CASE("crash boundary: a crash of the booting node at a point ends its boot",
          "[sim][crash_boundary]") {
    CrashBoundaryFixture f;
    int boots = 0;
    f.world.nodes().set_process(f.tm,
                                [&] {
                                    ++boots;
                                    f.world.announce("task.restoring", f.tm, 7);
                                    f.effects.push_back("restored");
                                },
                                {});
    FaultInjector injector(f.world, {crash_boundary_fault(FaultKind::crash, "task.restoring")}, {});
    f.world.scheduler().crash(f.tm);
    f.world.scheduler().restart(
        f.tm);  // the boot runs as the new incarnation and is crashed at its point
    CHECK(boots == 1);
    CHECK(f.effects.empty());
    CHECK(f.world.nodes().state(f.tm) == NodeState::down);
    CHECK(f.world.scheduler().running() == kNoNode);
}

TEST_CASE("crash boundary: a pause at a point takes effect when the running handler returns",
          "[sim][crash_boundary]") {
    CrashBoundaryFixture f;
    // Two pauses at the same point: the second sees the first as taken effect and is skipped.
    FaultInjector injector(f.world,
                           {crash_boundary_fault(FaultKind::pause, "sink.precommitted"),
                            crash_boundary_fault(FaultKind::pause, "sink.precommitted")},
                           {});
    const ConnectionId connection = f.world.network().connect(f.tm, f.peer, {}, {});
    std::vector<int64_t> ran_at_ms;
    NodeState seen_in_handler = NodeState::down;
    f.at_ms(10, f.tm, [&] {
        f.world.announce("sink.precommitted", f.tm, 1);
        // The rest of the handler runs as if just before the pause.
        seen_in_handler = f.world.nodes().state(f.tm);
        f.effects.push_back("committed transaction 1");
        f.world.network().send(connection, f.tm, kBoundaryMessage, 0,
                               [&] { f.effects.push_back("peer heard"); });
        f.world.scheduler().schedule(Duration::zero(), f.tm, kBoundaryHandler, 0,
                                     [&] { ran_at_ms.push_back(f.world.now().ns / 1'000'000); });
    });
    f.run_until_ms(10);
    CHECK(seen_in_handler == NodeState::up);
    CHECK(f.world.nodes().state(f.tm) == NodeState::paused);
    REQUIRE(injector.fired().size() == 2);
    CHECK(injector.fired()[0].action == "paused tm until 0.110s");
    CHECK(injector.fired()[1].action == "tm not running (skipped)");
    f.run_until_ms(109);
    CHECK(ran_at_ms.empty());  // its own next event is parked until the resume
    CHECK(f.effects == std::vector<std::string>{"committed transaction 1", "peer heard"});
    f.run_until_ms(110);
    CHECK(f.world.nodes().state(f.tm) == NodeState::up);
    CHECK(ran_at_ms == std::vector<int64_t>{110});
}

TEST_CASE("crash boundary: a crash of another node during a synchronous call is seen as a refusal",
          "[sim][crash_boundary]") {
    CrashBoundaryFixture f;
    external::Database database(f.world.scheduler(), f.world.network(), f.db_node);
    REQUIRE(database.create_table("t") == external::DatabaseError::none);
    FaultInjector injector(f.world, {crash_boundary_fault(FaultKind::crash, "database.applying")},
                           {});
    external::DatabaseError refusal = external::DatabaseError::none;
    f.at_ms(10, f.tm, [&] {
        // The database announces a point of its own while the task manager's handler calls it: the
        // crash hits the database node, not the running one, so the handler goes on.
        f.world.announce("database.applying", f.db_node, 1);
        external::Database::TransactionId id = 0;
        refusal = database.begin(f.tm, &id);
        f.effects.push_back("handled the refusal");
    });
    f.run_until_ms(1000);
    CHECK(f.world.nodes().state(f.db_node) == NodeState::down);
    CHECK(f.world.nodes().state(f.tm) == NodeState::up);
    CHECK(refusal == external::DatabaseError::unavailable);
    CHECK(f.effects == std::vector<std::string>{"handled the refusal"});
}

TEST_CASE("crash boundary: a point announced outside any node's handler crashes without unwinding",
          "[sim][crash_boundary]") {
    CrashBoundaryFixture f;
    FaultInjector injector(f.world, {crash_boundary_fault(FaultKind::crash, "sink.precommitted")},
                           {});
    CHECK_NOTHROW(
        f.world.announce("sink.precommitted", f.tm, 1));  // e.g. a test driving a sink directly
    CHECK(f.world.nodes().state(f.tm) == NodeState::down);
}

}  // namespace
}  // namespace eosim::sim
