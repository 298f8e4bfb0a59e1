// sim::FaultInjector: time and protocol-point triggers, the undo of each fault after its duration,
// firing at most once, and the record it keeps.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/fault_injector.h"
#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kInjectorTick{"test.tick"};

// A world with a job manager and three task managers; boots and halts are counted.
struct InjectorFixture {
    World world{WorldOptions{}};
    NodeId jobmanager = world.nodes().add("jobmanager");
    NodeId tm0 = world.nodes().add("tm0");
    NodeId tm1 = world.nodes().add("tm1");
    NodeId tm2 = world.nodes().add("tm2");
    std::vector<std::string> boots;

    InjectorFixture() {
        for (NodeId id : {jobmanager, tm0, tm1, tm2}) {
            world.nodes().set_process(id, [this, id] { boots.push_back(world.nodes().name(id)); },
                                      {});
        }
    }
    void run_until_ms(int64_t ms) {
        world.scheduler().run_until(Time::zero() + Duration::millis(ms));
    }
    // Makes the clock reach `ms` even when no event is due then.
    void advance_to_ms(int64_t ms) {
        world.scheduler().schedule_at(Time::zero() + Duration::millis(ms), kNoNode, kInjectorTick,
                                      0, [] {});
        run_until_ms(ms);
    }
};

FaultSpec crash_at(std::vector<std::string> nodes, int64_t at_ms, int64_t restart_delay_ms) {
    FaultSpec spec;
    spec.kind = FaultKind::crash;
    spec.trigger.at = Time::zero() + Duration::millis(at_ms);
    spec.nodes = std::move(nodes);
    spec.restart_delay = Duration::millis(restart_delay_ms);
    return spec;
}

FaultSpec crash_at_point(std::string point, int32_t occurrence, std::string point_node = {}) {
    FaultSpec spec;
    spec.kind = FaultKind::crash;
    spec.trigger.point = std::move(point);
    spec.trigger.occurrence = occurrence;
    spec.trigger.point_node = std::move(point_node);
    spec.restart = false;
    return spec;
}

TEST_CASE("fault injector: a time-triggered crash happens at its time and restarts after the delay",
          "[faults]") {
    InjectorFixture f;
    FaultInjector injector(f.world, {crash_at({"tm1"}, 3000, 2000)}, {});

    f.advance_to_ms(2999);
    CHECK(f.world.nodes().state(f.tm1) == NodeState::up);
    CHECK(injector.fired_count() == 0);
    CHECK(injector.pending_count() == 1);

    f.advance_to_ms(3000);
    CHECK(f.world.nodes().state(f.tm1) == NodeState::down);
    REQUIRE(injector.fired().size() == 1);
    const FiredFault& fired = injector.fired()[0];
    CHECK(fired.at == Time::zero() + Duration::millis(3000));
    CHECK(fired.kind == FaultKind::crash);
    CHECK(fired.nodes == std::vector<std::string>{"tm1"});
    CHECK(fired.action == "crashed tm1, restart at 5.000s");
    CHECK_FALSE(fired.skipped);
    CHECK(injector.quiet_since() == Time::zero() + Duration::millis(5000));

    f.advance_to_ms(4999);
    CHECK(f.world.nodes().state(f.tm1) == NodeState::down);
    CHECK(f.boots.empty());
    f.advance_to_ms(5000);
    CHECK(f.world.nodes().state(f.tm1) == NodeState::up);
    CHECK(f.boots == std::vector<std::string>{"tm1"});
    CHECK(injector.count(FaultKind::crash) == 1);
    CHECK(injector.injected_count() == 1);
    CHECK(injector.pending_count() == 0);
}

TEST_CASE("fault injector: a crash without restart leaves the node down", "[faults]") {
    InjectorFixture f;
    FaultSpec spec = crash_at({"tm0", "tm2"}, 100, 100);
    spec.restart = false;
    FaultInjector injector(f.world, {spec}, {});
    f.advance_to_ms(10'000);
    CHECK(f.world.nodes().state(f.tm0) == NodeState::down);
    CHECK(f.world.nodes().state(f.tm2) == NodeState::down);
    CHECK(f.boots.empty());
    CHECK(injector.fired()[0].action == "crashed tm0; crashed tm2");
}

TEST_CASE("fault injector: the restart is skipped when someone else restarted the node first",
          "[faults]") {
    InjectorFixture f;
    FaultInjector injector(f.world, {crash_at({"tm0"}, 100, 1000)}, {});
    f.advance_to_ms(200);
    f.world.scheduler().restart(f.tm0);  // e.g. a replacement brought up by the runner
    f.advance_to_ms(2000);
    CHECK(f.world.nodes().state(f.tm0) == NodeState::up);
    CHECK(f.boots == std::vector<std::string>{"tm0"});  // booted once, not twice
}

TEST_CASE("fault injector: a point-triggered crash hits the announcing node at the k-th occurrence",
          "[faults]") {
    InjectorFixture f;
    FaultInjector injector(f.world, {crash_at_point("sink.precommitted", 3)}, {});
    f.world.announce("sink.precommitted", f.tm0, 1);
    f.world.announce("checkpoint.completed", f.jobmanager, 1);  // another point: not counted
    f.world.announce("sink.precommitted", f.tm1, 1);
    CHECK(injector.fired_count() == 0);
    f.world.announce("sink.precommitted", f.tm2, 2);  // the third: tm2 announced it
    CHECK(f.world.nodes().state(f.tm2) == NodeState::down);
    CHECK(f.world.nodes().state(f.tm0) == NodeState::up);
    CHECK(f.world.nodes().state(f.tm1) == NodeState::up);
    REQUIRE(injector.fired().size() == 1);
    CHECK(injector.fired()[0].nodes == std::vector<std::string>{"tm2"});

    f.world.announce("sink.precommitted", f.tm0, 2);  // later occurrences fire nothing
    CHECK(f.world.nodes().state(f.tm0) == NodeState::up);
    CHECK(injector.fired_count() == 1);
}

TEST_CASE("fault injector: a point trigger with a point node counts only that node's announcements",
          "[faults]") {
    InjectorFixture f;
    FaultSpec spec = crash_at_point("sink.precommitted", 2, "tm1");
    spec.nodes = {"jobmanager"};  // an explicit target: not the announcing node
    FaultInjector injector(f.world, {spec}, {});
    f.world.announce("sink.precommitted", f.tm1, 1);
    f.world.announce("sink.precommitted", f.tm0, 1);
    f.world.announce("sink.precommitted", f.tm0, 2);
    CHECK(f.world.nodes().state(f.jobmanager) == NodeState::up);
    f.world.announce("sink.precommitted", f.tm1, 2);
    CHECK(f.world.nodes().state(f.jobmanager) == NodeState::down);
    CHECK(f.world.nodes().state(f.tm1) == NodeState::up);
}

TEST_CASE("fault injector: crashing a node that is already down is skipped", "[faults]") {
    InjectorFixture f;
    FaultInjector injector(f.world, {crash_at({"tm1"}, 100, 1000)}, {});
    f.world.scheduler().crash(f.tm1);
    f.advance_to_ms(5000);
    REQUIRE(injector.fired().size() == 1);
    CHECK(injector.fired()[0].skipped);
    CHECK(injector.fired()[0].action == "tm1 already down (skipped)");
    CHECK(injector.skipped_count() == 1);
    CHECK(injector.injected_count() == 0);
    CHECK(f.world.nodes().state(f.tm1) ==
          NodeState::down);  // no restart scheduled for a skipped crash
}

TEST_CASE("fault injector: pause parks a node's events and resume releases them", "[faults]") {
    InjectorFixture f;
    FaultSpec spec;
    spec.kind = FaultKind::pause;
    spec.trigger.at = Time::zero() + Duration::millis(1000);
    spec.nodes = {"tm0"};
    spec.duration = Duration::millis(500);
    FaultInjector injector(f.world, {spec}, {});

    std::vector<int64_t> ran_at_ms;
    f.world.scheduler().schedule(Duration::millis(1200), f.tm0, kInjectorTick, 0,
                                 [&] { ran_at_ms.push_back(f.world.now().millis_count()); });
    f.advance_to_ms(1000);
    CHECK(f.world.nodes().state(f.tm0) == NodeState::paused);
    f.advance_to_ms(1499);
    CHECK(ran_at_ms.empty());
    CHECK(f.world.nodes().state(f.tm0) == NodeState::paused);
    f.advance_to_ms(1500);
    CHECK(f.world.nodes().state(f.tm0) == NodeState::up);
    CHECK(ran_at_ms == std::vector<int64_t>{1500});
    CHECK(injector.fired()[0].action == "paused tm0 until 1.500s");
}

TEST_CASE("fault injector: a partition heals after its duration", "[faults]") {
    InjectorFixture f;
    FaultSpec spec;
    spec.kind = FaultKind::partition;
    spec.trigger.at = Time::zero() + Duration::millis(1000);
    spec.nodes = {"tm0"};
    spec.other_nodes = {"jobmanager"};
    spec.duration = Duration::millis(2000);
    FaultInjector injector(f.world, {spec}, {});

    f.advance_to_ms(999);
    CHECK(f.world.network().can_reach(f.tm0, f.jobmanager));
    f.advance_to_ms(1000);
    CHECK_FALSE(f.world.network().can_reach(f.tm0, f.jobmanager));
    CHECK_FALSE(f.world.network().can_reach(f.jobmanager, f.tm0));
    CHECK(f.world.network().can_reach(f.tm0, f.tm1));  // only the named sides are cut
    f.advance_to_ms(2999);
    CHECK_FALSE(f.world.network().can_reach(f.tm0, f.jobmanager));
    f.advance_to_ms(3000);
    CHECK(f.world.network().can_reach(f.tm0, f.jobmanager));
    CHECK(f.world.network().can_reach(f.jobmanager, f.tm0));
    CHECK(injector.fired()[0].nodes == std::vector<std::string>{"tm0", "jobmanager"});
    CHECK(injector.quiet_since() == Time::zero() + Duration::millis(3000));
}

TEST_CASE("fault injector: a one-way partition against everyone else", "[faults]") {
    InjectorFixture f;
    FaultSpec spec;
    spec.kind = FaultKind::partition;
    spec.trigger.at = Time::zero() + Duration::millis(10);
    spec.nodes = {"tm2"};
    spec.one_way = true;
    FaultInjector injector(f.world, {spec}, {});
    f.advance_to_ms(10);
    CHECK_FALSE(f.world.network().can_reach(f.tm2, f.tm0));
    CHECK_FALSE(f.world.network().can_reach(f.tm2, f.jobmanager));
    CHECK(f.world.network().can_reach(f.tm0, f.tm2));
    CHECK(injector.fired()[0].nodes == std::vector<std::string>{"tm2", "jobmanager", "tm0", "tm1"});
}

TEST_CASE("fault injector: a fault fires only once", "[faults]") {
    InjectorFixture f;
    FaultSpec pause_at_point;
    pause_at_point.kind = FaultKind::pause;
    pause_at_point.trigger.point = "checkpoint.completed";
    pause_at_point.duration = Duration::millis(100);
    FaultInjector injector(f.world, {crash_at({"tm0"}, 100, 100), pause_at_point}, {});

    f.world.announce("checkpoint.completed", f.jobmanager, 1);
    CHECK(f.world.nodes().state(f.jobmanager) == NodeState::paused);
    f.advance_to_ms(1000);
    CHECK(f.world.nodes().state(f.jobmanager) == NodeState::up);
    CHECK(f.world.nodes().state(f.tm0) == NodeState::up);  // crashed at 100 ms, back at 200 ms
    for (int i = 0; i < 5; ++i) f.world.announce("checkpoint.completed", f.jobmanager, 2 + i);
    f.advance_to_ms(5000);
    CHECK(f.world.nodes().state(f.jobmanager) == NodeState::up);
    CHECK(f.boots == std::vector<std::string>{"tm0"});
    CHECK(injector.fired_count() == 2);
    CHECK(injector.count(FaultKind::crash) == 1);
    CHECK(injector.count(FaultKind::pause) == 1);
}

TEST_CASE(
    "fault injector: outside-system faults go through the hooks, storage faults hit the store",
    "[faults]") {
    InjectorFixture f;
    std::vector<std::string> calls;
    OutsideFaults hooks;
    hooks.broker_unavailable = [&](Time until) {
        calls.push_back("unavailable " + std::to_string(until.millis_count()));
    };
    hooks.kafka_write_failure = [&](Time until) {
        calls.push_back("write " + std::to_string(until.millis_count()));
    };
    hooks.transaction_abort = [&] { calls.push_back("abort"); };
    std::vector<FaultSpec> plan;
    for (FaultKind kind : {FaultKind::broker_unavailable, FaultKind::kafka_write_failure,
                           FaultKind::transaction_abort, FaultKind::storage_failure}) {
        FaultSpec spec;
        spec.kind = kind;
        spec.trigger.at =
            Time::zero() + Duration::millis(100 * (static_cast<int64_t>(plan.size()) + 1));
        spec.duration = Duration::millis(50);
        plan.push_back(spec);
    }
    FaultInjector injector(f.world, plan, hooks);
    f.advance_to_ms(1000);
    CHECK(calls == std::vector<std::string>{"unavailable 150", "write 250", "abort"});
    CHECK(injector.fired_count() == 4);
    CHECK(injector.fired()[3].action == "durable storage fails until 0.450s");
}

TEST_CASE("fault injector: firings are folded into the trace", "[faults]") {
    auto run = [](bool with_fault) {
        InjectorFixture f;
        std::vector<FaultSpec> plan;
        if (with_fault) plan.push_back(crash_at({"tm1"}, 100, 100));
        FaultInjector injector(f.world, plan, {});
        f.advance_to_ms(1000);
        return f.world.trace().hash();
    };
    CHECK(run(true) == run(true));
    CHECK(run(true) != run(false));
}

TEST_CASE("fault injector: a plan naming an unknown node or missing a hook is rejected",
          "[faults]") {
    InjectorFixture f;
    CHECK_THROWS_AS(FaultInjector(f.world, {crash_at({"tm9"}, 100, 100)}, {}),
                    std::invalid_argument);
    FaultSpec abort;
    abort.kind = FaultKind::transaction_abort;
    abort.trigger.at = Time::zero();
    CHECK_THROWS_AS(FaultInjector(f.world, {abort}, {}), std::invalid_argument);
    FaultSpec untriggered;
    untriggered.nodes = {"tm0"};
    CHECK_THROWS_AS(FaultInjector(f.world, {untriggered}, {}), std::invalid_argument);
}

}  // namespace
}  // namespace eosim::sim
