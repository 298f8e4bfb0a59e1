// sim::Scheduler: total order (time, insertion sequence), cancellation, and the node lifecycle as
// the event queue sees it: crash drops the old incarnation's events, pause parks them.
#include <algorithm>
#include <cstdint>
#include <tuple>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "sim/nodes.h"
#include "sim/scheduler.h"
#include "sim/trace.h"

namespace eosim::sim {
namespace {

constexpr EventKind kSchedulerTick{"test.tick"};
constexpr EventKind kSchedulerControl{"test.control"};

// A scheduler with `node_count` nodes, owned together.
struct SchedulerFixture {
    NodeTable nodes;
    Trace trace;
    Scheduler scheduler{nodes, trace};

    explicit SchedulerFixture(int node_count) {
        for (int i = 0; i < node_count; ++i) nodes.add(std::string("n").append(std::to_string(i)));
    }
    void run() {
        while (scheduler.step()) {}
    }
};

TEST_CASE("scheduler: events at equal times run in insertion order", "[sim][scheduler]") {
    SchedulerFixture f(3);
    std::vector<int> order;
    const NodeId owners[] = {2, kNoNode, 0, 1, 0, 2};
    for (int i = 0; i < 6; ++i) {
        f.scheduler.schedule(Duration::millis(5), owners[i], kSchedulerTick, 0,
                             [&order, i] { order.push_back(i); });
    }
    // An earlier event scheduled last still runs first.
    f.scheduler.schedule(Duration::millis(1), 1, kSchedulerTick, 0,
                         [&order] { order.push_back(-1); });
    f.run();
    CHECK(order == std::vector<int>{-1, 0, 1, 2, 3, 4, 5});
    CHECK(f.scheduler.now() == Time::zero() + Duration::millis(5));
    CHECK(f.scheduler.processed() == 7);
    CHECK(f.trace.events() == 7);
}

TEST_CASE("scheduler: execution follows (time, insertion sequence) for random schedules",
          "[sim][scheduler]") {
    rc::prop(
        "every event runs at its time, in (time, sequence) order, also when scheduled from events",
        [] {
            SchedulerFixture f(3);
            struct Ran {
                int64_t at_ns;
                uint64_t sequence;
            };
            std::vector<Ran> ran;
            uint64_t next_sequence = 0;
            int children_left = *rc::gen::inRange(0, 60);

            // Schedules one event; when it runs, it checks the clock and may schedule a child.
            std::function<void(int64_t)> add = [&](int64_t delay_us) {
                const uint64_t sequence = next_sequence++;
                const Time due = f.scheduler.now() + Duration::micros(delay_us);
                const NodeId owner =
                    static_cast<NodeId>(sequence % 4 == 3 ? kNoNode : sequence % 4);
                f.scheduler.schedule(
                    Duration::micros(delay_us), owner, kSchedulerTick, sequence,
                    [&, sequence, due] {
                        RC_ASSERT(f.scheduler.now() == due);
                        ran.push_back(Ran{due.ns, sequence});
                        if (children_left > 0) {
                            --children_left;
                            add(static_cast<int64_t>(sequence * 7 %
                                                     4));  // 0..3 us: many ties with queued events
                        }
                    });
            };
            const auto delays =
                *rc::gen::container<std::vector<int64_t>>(rc::gen::inRange<int64_t>(0, 5));
            for (int64_t delay : delays) add(delay);
            f.run();

            RC_ASSERT(ran.size() == next_sequence);
            for (size_t i = 1; i < ran.size(); ++i) {
                RC_ASSERT(std::tie(ran[i - 1].at_ns, ran[i - 1].sequence) <
                          std::tie(ran[i].at_ns, ran[i].sequence));
            }
        });
}

TEST_CASE("scheduler: cancel", "[sim][scheduler]") {
    SchedulerFixture f(1);
    std::vector<int> ran;
    const TimerId a =
        f.scheduler.schedule(Duration::millis(1), 0, kSchedulerTick, 0, [&] { ran.push_back(1); });
    const TimerId b =
        f.scheduler.schedule(Duration::millis(2), 0, kSchedulerTick, 0, [&] { ran.push_back(2); });
    REQUIRE(a.valid());
    REQUIRE(b.valid());

    CHECK(f.scheduler.cancel(a));
    CHECK_FALSE(f.scheduler.cancel(a));  // already cancelled
    f.run();
    CHECK(ran == std::vector<int>{2});
    CHECK_FALSE(f.scheduler.cancel(b));  // already ran
    CHECK_FALSE(f.scheduler.cancel(TimerId{}));
    CHECK(f.scheduler.processed() == 1);

    SECTION("a stale id does not cancel the timer that reused its slot") {
        const TimerId c = f.scheduler.schedule(Duration::millis(1), 0, kSchedulerTick, 0,
                                               [&] { ran.push_back(3); });
        CHECK_FALSE(f.scheduler.cancel(a));
        CHECK_FALSE(f.scheduler.cancel(b));
        f.run();
        CHECK(ran == std::vector<int>{2, 3});
        CHECK_FALSE(f.scheduler.cancel(c));
    }
    SECTION("an event may cancel a later one at the same instant") {
        TimerId later;
        f.scheduler.schedule(Duration::millis(1), 0, kSchedulerTick, 0,
                             [&] { CHECK(f.scheduler.cancel(later)); });
        later = f.scheduler.schedule(Duration::millis(1), 0, kSchedulerTick, 0,
                                     [&] { ran.push_back(4); });
        f.run();
        CHECK(ran == std::vector<int>{2});
    }
}

TEST_CASE("scheduler: sweeping cancelled timers out of the queue keeps every other event's order",
          "[sim][scheduler]") {
    rc::prop(
        "the events not cancelled run in (time, sequence) order; the queue sheds cancelled keys",
        [] {
            SchedulerFixture f(2);
            std::vector<uint64_t> ran;
            std::vector<std::pair<int64_t, uint64_t>>
                expected;  // (due, sequence) of the events kept
            std::vector<TimerId> ids;
            const auto delays =
                *rc::gen::container<std::vector<int64_t>>(rc::gen::inRange<int64_t>(0, 50));
            for (uint64_t sequence = 0; sequence < delays.size(); ++sequence) {
                ids.push_back(f.scheduler.schedule(
                    Duration::micros(delays[sequence]), static_cast<NodeId>(sequence % 2),
                    kSchedulerTick, sequence, [&ran, sequence] { ran.push_back(sequence); }));
            }
            // Cancel most of them (enough to trigger sweeps), in a random order.
            const auto cancel_order = *rc::gen::unique<std::vector<size_t>>(
                rc::gen::inRange<size_t>(0, delays.size() + 1));
            std::vector<bool> cancelled(delays.size(), false);
            for (size_t index : cancel_order) {
                if (index >= delays.size() || index % 5 == 0)
                    continue;  // every fifth event is kept
                RC_ASSERT(f.scheduler.cancel(ids[index]));
                cancelled[index] = true;
            }
            size_t cancelled_count = 0;
            for (uint64_t sequence = 0; sequence < delays.size(); ++sequence) {
                if (cancelled[sequence]) {
                    ++cancelled_count;
                    continue;
                }
                expected.emplace_back(delays[sequence], sequence);
            }
            const size_t kept = delays.size() - cancelled_count;
            // A sweep leaves at most half the queue cancelled (or a few keys, below the sweep's
            // minimum).
            RC_ASSERT(f.scheduler.pending() - kept <=
                      std::max<size_t>(32, f.scheduler.pending() / 2));
            std::sort(expected.begin(), expected.end());
            f.run();
            RC_ASSERT(ran.size() == expected.size());
            for (size_t i = 0; i < ran.size(); ++i) RC_ASSERT(ran[i] == expected[i].second);
            RC_ASSERT(f.scheduler.processed() == expected.size());
            for (size_t i = 0; i < ids.size(); ++i) RC_ASSERT(!f.scheduler.is_pending(ids[i]));
        });
}

TEST_CASE("scheduler: a crash drops the old incarnation's timers and none of the new one",
          "[sim][scheduler]") {
    rc::prop("random timers around a crash and a restart", [] {
        const int node_count = *rc::gen::inRange(2, 5);
        SchedulerFixture f(node_count);
        const NodeId victim = *rc::gen::inRange<NodeId>(0, static_cast<NodeId>(node_count));
        const int64_t crash_us = *rc::gen::inRange<int64_t>(0, 100);
        const int64_t restart_us = crash_us + *rc::gen::inRange<int64_t>(0, 100);

        struct Timer {
            NodeId owner;
            uint32_t incarnation;
            int64_t due_us;
            bool ran = false;
        };
        std::vector<Timer> timers;
        auto add_timer = [&](NodeId owner, int64_t delay_us) {
            const size_t index = timers.size();
            timers.push_back(
                Timer{owner, f.nodes.incarnation(owner), f.scheduler.now().ns / 1000 + delay_us});
            f.scheduler.schedule(Duration::micros(delay_us), owner, kSchedulerTick, index,
                                 [&timers, index] { timers[index].ran = true; });
        };

        const auto initial = *rc::gen::container<std::vector<std::pair<int, int64_t>>>(
            rc::gen::pair(rc::gen::inRange(0, node_count), rc::gen::inRange<int64_t>(0, 200)));
        for (const auto& [owner, delay] : initial) add_timer(static_cast<NodeId>(owner), delay);
        const auto after_restart =
            *rc::gen::container<std::vector<int64_t>>(rc::gen::inRange<int64_t>(0, 200));

        f.scheduler.schedule(Duration::micros(crash_us), kNoNode, kSchedulerControl, 0,
                             [&] { f.scheduler.crash(victim); });
        f.scheduler.schedule(Duration::micros(restart_us), kNoNode, kSchedulerControl, 0, [&] {
            f.scheduler.restart(victim);
            for (int64_t delay : after_restart) add_timer(victim, delay);
        });
        const uint32_t first_incarnation = f.nodes.incarnation(victim);
        f.run();

        uint64_t expected_drops = 0;
        for (const Timer& t : timers) {
            if (t.owner != victim || t.incarnation != first_incarnation) {
                RC_ASSERT(t.ran);  // other nodes, and the new incarnation, lose nothing
            } else if (t.due_us <= crash_us) {
                RC_ASSERT(t.ran);  // due before the crash (or at its instant, but queued before it)
            } else {
                RC_ASSERT(!t.ran);
                ++expected_drops;
            }
        }
        RC_ASSERT(f.scheduler.dropped() == expected_drops);
        RC_ASSERT(f.scheduler.processed() + f.scheduler.dropped() == timers.size() + 2);
        RC_ASSERT(f.nodes.is_up(victim));
    });
}

TEST_CASE("scheduler: scheduling for a node that is down is a no-op", "[sim][scheduler]") {
    SchedulerFixture f(2);
    f.scheduler.crash(1);
    bool ran = false;
    const TimerId id =
        f.scheduler.schedule(Duration::millis(1), 1, kSchedulerTick, 0, [&] { ran = true; });
    CHECK_FALSE(id.valid());
    CHECK(f.scheduler.pending() == 0);
    f.run();
    CHECK_FALSE(ran);
    CHECK(f.scheduler.processed() == 0);

    f.scheduler.restart(1);
    CHECK(f.scheduler.schedule(Duration::millis(1), 1, kSchedulerTick, 0, [&] { ran = true; })
              .valid());
    f.run();
    CHECK(ran);
}

TEST_CASE("scheduler: crash halts the process and restart boots it", "[sim][scheduler]") {
    SchedulerFixture f(1);
    int boots = 0;
    int halts = 0;
    f.nodes.set_process(
        0, [&] { ++boots; }, [&] { ++halts; });
    f.nodes.disk(0)["wal"] = "x";
    f.scheduler.crash(0);
    CHECK(halts == 1);
    CHECK(f.nodes.disk(0).empty());
    CHECK(f.nodes.state(0) == NodeState::down);
    f.scheduler.crash(0);  // crashing a dead node changes nothing
    CHECK(halts == 1);
    f.scheduler.restart(0);
    CHECK(boots == 1);
    CHECK(f.nodes.state(0) == NodeState::up);
    CHECK_THROWS_AS(f.scheduler.restart(0), std::logic_error);
}

TEST_CASE("scheduler: pause parks due events and resume releases them in order",
          "[sim][scheduler]") {
    SchedulerFixture f(2);
    struct Ran {
        int id;
        Time at;
    };
    std::vector<Ran> ran;
    auto record = [&](int id) {
        return [&ran, &f, id] { ran.push_back(Ran{id, f.scheduler.now()}); };
    };
    const Time resume_at = Time::zero() + Duration::millis(10);

    f.scheduler.schedule(Duration::millis(1), kNoNode, kSchedulerControl, 0,
                         [&] { f.scheduler.pause(0); });
    f.scheduler.schedule(Duration::millis(4), 0, kSchedulerTick, 0, record(3));
    f.scheduler.schedule(Duration::millis(2), 0, kSchedulerTick, 0, record(1));
    f.scheduler.schedule(Duration::millis(3), 0, kSchedulerTick, 0, record(2));
    f.scheduler.schedule(Duration::millis(3), 1, kSchedulerTick, 0,
                         record(100));  // another node runs on
    f.scheduler.schedule(Duration::millis(10), kNoNode, kSchedulerControl, 0, [&] {
        CHECK(f.nodes.state(0) == NodeState::paused);
        CHECK(ran.size() == 1);
        f.scheduler.resume(0);
    });
    f.scheduler.schedule(Duration::millis(20), 0, kSchedulerTick, 0, record(4));
    f.run();

    REQUIRE(ran.size() == 5);
    CHECK(ran[0].id == 100);
    CHECK(ran[0].at == Time::zero() + Duration::millis(3));
    for (int i = 1; i <= 3; ++i) {
        CHECK(ran[static_cast<size_t>(i)].id == i);
        CHECK(ran[static_cast<size_t>(i)].at == resume_at);
    }
    CHECK(ran[4].id == 4);
    CHECK(ran[4].at == Time::zero() + Duration::millis(20));

    SECTION("a cancelled parked event stays cancelled") {
        SchedulerFixture g(1);
        bool fired = false;
        TimerId parked;
        g.scheduler.pause(0);
        parked =
            g.scheduler.schedule(Duration::millis(1), 0, kSchedulerTick, 0, [&] { fired = true; });
        g.scheduler.schedule(Duration::millis(2), kNoNode, kSchedulerControl, 0, [&] {
            CHECK(g.scheduler.cancel(parked));
            g.scheduler.resume(0);
        });
        g.run();
        CHECK_FALSE(fired);
    }
    SECTION("a crash while paused drops the parked events") {
        SchedulerFixture g(1);
        bool fired = false;
        g.scheduler.pause(0);
        g.scheduler.schedule(Duration::millis(1), 0, kSchedulerTick, 0, [&] { fired = true; });
        g.scheduler.schedule(Duration::millis(2), kNoNode, kSchedulerControl, 0, [&] {
            g.scheduler.crash(0);
            g.scheduler.restart(0);
            g.scheduler.resume(0);  // not paused any more: no effect
        });
        g.run();
        CHECK_FALSE(fired);
        CHECK(g.nodes.state(0) == NodeState::up);
    }
}

TEST_CASE("scheduler: run_until stops at the limit or when asked", "[sim][scheduler]") {
    SchedulerFixture f(1);
    int ran = 0;
    for (int ms = 1; ms <= 10; ++ms)
        f.scheduler.schedule(Duration::millis(ms), 0, kSchedulerTick, 0, [&] { ++ran; });
    f.scheduler.run_until(Time::zero() + Duration::millis(4));
    CHECK(ran == 4);
    CHECK(f.scheduler.now() == Time::zero() + Duration::millis(4));
    f.scheduler.run_until(Time::never(), [&] { return ran == 7; });
    CHECK(ran == 7);
    f.scheduler.run_until(Time::never());
    CHECK(ran == 10);
    CHECK_FALSE(f.scheduler.step());
}

}  // namespace
}  // namespace eosim::sim
