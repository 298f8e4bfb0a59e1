// sim::Network: FIFO connections, partitions (symmetric and one-way), crashes, datagram loss,
// latencies and slow links.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kNetworkMessage{"test.message"};
constexpr EventKind kControl{"test.control"};

Time at_ms(int64_t ms) { return Time::zero() + Duration::millis(ms); }

void run(World& world) {
    while (world.scheduler().step()) {}
}

// Runs `action` at virtual time `at` as a world event.
void at(World& world, Time when, std::function<void()> action) {
    world.scheduler().schedule_at(when, kNoNode, kControl, 0, std::move(action));
}

WorldOptions options_with_latency(uint64_t seed, Duration min, Duration max) {
    WorldOptions options;
    options.seed = seed;
    options.network.remote = LinkLatency{min, max};
    return options;
}

TEST_CASE("network: connections are FIFO per direction under random latencies", "[sim][network]") {
    rc::prop("every message arrives, in send order, no earlier than the minimum latency", [] {
        const auto seed = *rc::gen::arbitrary<uint64_t>();
        const int64_t min_us = *rc::gen::inRange<int64_t>(0, 2'000);
        const int64_t max_us = min_us + *rc::gen::inRange<int64_t>(0, 5'000);
        World world(options_with_latency(seed, Duration::micros(min_us), Duration::micros(max_us)));
        const NodeId a = world.nodes().add("a");
        const NodeId b = world.nodes().add("b");
        const ConnectionId connection = world.network().connect(a, b, nullptr, nullptr);
        REQUIRE(world.network().is_open(connection));

        std::vector<int> sent[2];
        std::vector<int> received[2];
        const auto sends = *rc::gen::container<std::vector<std::pair<int64_t, bool>>>(
            rc::gen::pair(rc::gen::inRange<int64_t>(0, 3'000), rc::gen::arbitrary<bool>()));
        for (size_t i = 0; i < sends.size(); ++i) {
            const int id = static_cast<int>(i);
            const int dir = sends[i].second ? 1 : 0;
            const NodeId from = dir == 0 ? a : b;
            world.scheduler().schedule(
                Duration::micros(sends[i].first), from, kControl, 0,
                [&, id, dir, from, connection] {
                    const Time sent_at = world.now();
                    sent[dir].push_back(id);
                    const bool ok = world.network().send(
                        connection, from, kNetworkMessage, static_cast<uint64_t>(id),
                        [&, id, dir, sent_at] {
                            RC_ASSERT(world.now() - sent_at >= Duration::micros(min_us));
                            received[dir].push_back(id);
                        });
                    RC_ASSERT(ok);
                });
        }
        run(world);
        RC_ASSERT(received[0] == sent[0]);
        RC_ASSERT(received[1] == sent[1]);
        RC_ASSERT(world.network().messages_sent() == sends.size());
    });
}

// The partition property below checks a test-side model of which partitions were active when.
// Time is measured in "steps" (one per test event) so that two events at one instant are ordered.
struct PartitionModel {
    struct Interval {
        std::vector<NodeId> side_a;
        std::vector<NodeId> side_b;
        bool one_way;
        uint64_t start_step;
        uint64_t end_step = UINT64_MAX;
        PartitionId id;
    };
    std::vector<Interval> intervals;

    static bool contains(const std::vector<NodeId>& side, NodeId node) {
        return std::find(side.begin(), side.end(), node) != side.end();
    }
    static bool blocks(const Interval& p, NodeId from, NodeId to) {
        return (contains(p.side_a, from) && contains(p.side_b, to)) ||
               (!p.one_way && contains(p.side_b, from) && contains(p.side_a, to));
    }
    // Whether a partition blocking from -> to (or either direction, for connections) was active at
    // any step in [first, last].
    bool blocked_during(NodeId from, NodeId to, bool either_direction, uint64_t first,
                        uint64_t last) const {
        for (const Interval& p : intervals) {
            if (p.start_step > last || p.end_step <= first) continue;
            if (blocks(p, from, to) || (either_direction && blocks(p, to, from))) return true;
        }
        return false;
    }
};

TEST_CASE("network: no message crosses a partition", "[sim][network]") {
    rc::prop("random partitions, heals, datagrams and connection messages", [] {
        const int node_count = *rc::gen::inRange(3, 6);
        World world(options_with_latency(*rc::gen::arbitrary<uint64_t>(), Duration::micros(300),
                                         Duration::millis(2)));
        for (int i = 0; i < node_count; ++i)
            world.nodes().add(std::string("n").append(std::to_string(i)));

        struct Message {
            NodeId from;
            NodeId to;
            bool on_connection;
            uint64_t sent_step;
            uint64_t delivered_step = UINT64_MAX;
        };
        std::vector<Message> messages;
        PartitionModel model;
        uint64_t step = 0;
        std::map<std::pair<NodeId, NodeId>, ConnectionId> connections;

        auto send = [&](NodeId from, NodeId to, bool on_connection) {
            const size_t index = messages.size();
            messages.push_back(Message{from, to, on_connection, step});
            auto on_receive = [&messages, &step, index] {
                messages[index].delivered_step = ++step;
            };
            if (!on_connection) {
                world.network().send_datagram(from, to, kNetworkMessage, index, on_receive);
                return;
            }
            const auto key = std::minmax(from, to);
            auto it = connections.find(key);
            if (it == connections.end() || !world.network().is_open(it->second)) {
                connections[key] = world.network().connect(key.first, key.second, nullptr, nullptr);
            }
            world.network().send(connections[key], from, kNetworkMessage, index, on_receive);
        };

        const auto ops = *rc::gen::container<std::vector<std::tuple<int, int, int, int>>>(
            rc::gen::tuple(rc::gen::inRange(0, 7), rc::gen::inRange(0, node_count),
                           rc::gen::inRange(1, node_count), rc::gen::inRange(0, 1 << node_count)));
        for (size_t i = 0; i < ops.size(); ++i) {
            // Named copies rather than a structured binding: clang 14 (the sanitizer build's
            // compiler) cannot capture a binding.
            const int kind = std::get<0>(ops[i]), x = std::get<1>(ops[i]),
                      offset = std::get<2>(ops[i]), mask = std::get<3>(ops[i]);
            at(world, Time::zero() + Duration::micros(200 * static_cast<int64_t>(i)),
               [&, kind, x, offset, mask] {
                   ++step;
                   const auto from = static_cast<NodeId>(x);
                   const auto to = static_cast<NodeId>((x + offset) % node_count);
                   if (kind <= 1) {
                       send(from, to, false);
                   } else if (kind <= 3) {
                       send(from, to, true);
                   } else if (kind == 4) {
                       std::vector<NodeId> side_a;
                       std::vector<NodeId> side_b;
                       for (int n = 0; n < node_count; ++n)
                           ((mask >> n) & 1 ? side_a : side_b).push_back(static_cast<NodeId>(n));
                       if (side_a.empty() || side_b.empty()) return;
                       const bool one_way = offset % 2 == 1;
                       const PartitionId id = world.network().partition(side_a, side_b, one_way);
                       model.intervals.push_back({side_a, side_b, one_way, step, UINT64_MAX, id});
                   } else if (kind == 5) {
                       for (auto& p : model.intervals) {
                           if (p.end_step == UINT64_MAX &&
                               static_cast<int>(p.id % node_count) == x) {
                               world.network().heal(p.id);
                               p.end_step = step;
                           }
                       }
                   } else {
                       world.network().heal_all();
                       for (auto& p : model.intervals) p.end_step = std::min(p.end_step, step);
                   }
               });
        }
        run(world);

        for (size_t i = 0; i < messages.size(); ++i) {
            const Message& m = messages[i];
            if (m.delivered_step != UINT64_MAX) {
                RC_ASSERT(!model.blocked_during(m.from, m.to, m.on_connection, m.sent_step,
                                                m.delivered_step));
            } else {
                // Without crashes or loss, only a partition may have dropped it.
                RC_ASSERT(model.blocked_during(m.from, m.to, m.on_connection, m.sent_step,
                                               UINT64_MAX - 1));
            }
        }
    });
}

TEST_CASE("network: a one-way partition", "[sim][network]") {
    World world(options_with_latency(1, Duration::millis(1), Duration::millis(1)));
    const NodeId a = world.nodes().add("a");
    const NodeId b = world.nodes().add("b");
    const NodeId c = world.nodes().add("c");
    int resets_a = 0;
    int resets_b = 0;
    const ConnectionId ab = world.network().connect(
        a, b, [&] { ++resets_a; }, [&] { ++resets_b; });
    const ConnectionId ac = world.network().connect(a, c, nullptr, nullptr);
    world.network().partition({a}, {b}, /*one_way=*/true);

    CHECK_FALSE(world.network().can_reach(a, b));
    CHECK(world.network().can_reach(b, a));
    CHECK(world.network().can_reach(a, c));

    int a_to_b = 0;
    int b_to_a = 0;
    world.network().send_datagram(a, b, kNetworkMessage, 0, [&] { ++a_to_b; });
    world.network().send_datagram(b, a, kNetworkMessage, 0, [&] { ++b_to_a; });
    run(world);
    CHECK(a_to_b == 0);
    CHECK(b_to_a == 1);

    // It breaks the connection anyway (acknowledgements cannot flow) and tells both ends.
    CHECK_FALSE(world.network().is_open(ab));
    CHECK(resets_a == 1);
    CHECK(resets_b == 1);
    CHECK_FALSE(world.network().send(ab, b, kNetworkMessage, 0, [] {}));
    CHECK(world.network().is_open(ac));
    // A new connection across it starts broken.
    CHECK_FALSE(world.network().is_open(world.network().connect(b, a, nullptr, nullptr)));
}

TEST_CASE("network: a crash resets connections and tells the surviving end", "[sim][network]") {
    World world(options_with_latency(1, Duration::millis(5), Duration::millis(5)));
    const NodeId a = world.nodes().add("a");
    const NodeId b = world.nodes().add("b");
    std::vector<std::pair<char, Time>> resets;
    const ConnectionId connection = world.network().connect(
        a, b, [&] { resets.emplace_back('a', world.now()); },
        [&] { resets.emplace_back('b', world.now()); });
    int delivered_to_b = 0;
    int delivered_to_a = 0;
    CHECK(world.network().send(connection, a, kNetworkMessage, 1, [&] { ++delivered_to_b; }));
    CHECK(world.network().send(connection, b, kNetworkMessage, 2, [&] { ++delivered_to_a; }));
    at(world, at_ms(2), [&] { world.scheduler().crash(b); });
    at(world, at_ms(3), [&] { world.scheduler().restart(b); });
    run(world);

    CHECK(delivered_to_a == 0);  // in flight from the crashed node: dropped
    CHECK(delivered_to_b == 0);  // in flight to it: dropped, also after its restart
    REQUIRE(resets.size() == 1);
    CHECK(resets[0].first == 'a');
    CHECK(resets[0].second == at_ms(2));
    CHECK_FALSE(world.network().is_open(connection));
    CHECK_FALSE(world.network().send(connection, a, kNetworkMessage, 3, [] {}));
    CHECK(world.network().messages_dropped() >= 3);

    SECTION("a datagram in flight is dropped when either end crashes, even after a restart") {
        int delivered = 0;
        at(world, at_ms(10), [&] {
            world.network().send_datagram(a, b, kNetworkMessage, 0, [&] { ++delivered; });
            world.network().send_datagram(b, a, kNetworkMessage, 0, [&] { ++delivered; });
        });
        at(world, at_ms(11), [&] { world.scheduler().crash(a); });
        at(world, at_ms(12), [&] { world.scheduler().restart(a); });
        run(world);
        CHECK(delivered == 0);
        // And one sent after the restart arrives.
        world.network().send_datagram(b, a, kNetworkMessage, 0, [&] { ++delivered; });
        run(world);
        CHECK(delivered == 1);
    }
}

TEST_CASE("network: close drops messages in flight and tells nobody", "[sim][network]") {
    World world(options_with_latency(1, Duration::millis(1), Duration::millis(1)));
    const NodeId a = world.nodes().add("a");
    const NodeId b = world.nodes().add("b");
    int resets = 0;
    int delivered = 0;
    const ConnectionId connection = world.network().connect(
        a, b, [&] { ++resets; }, [&] { ++resets; });
    world.network().send(connection, a, kNetworkMessage, 0, [&] { ++delivered; });
    world.network().close(connection);
    run(world);
    CHECK(delivered == 0);
    CHECK(resets == 0);
    CHECK_FALSE(world.network().is_open(connection));
}

TEST_CASE("network: datagram loss follows its ratio", "[sim][network]") {
    World world(options_with_latency(4, Duration::micros(10), Duration::micros(10)));
    const NodeId a = world.nodes().add("a");
    const NodeId b = world.nodes().add("b");
    auto delivered_of = [&](Ratio loss, int count) {
        world.network().set_datagram_loss(loss);
        int delivered = 0;
        for (int i = 0; i < count; ++i)
            world.network().send_datagram(a, b, kNetworkMessage, 0, [&] { ++delivered; });
        run(world);
        return delivered;
    };
    CHECK(delivered_of(Ratio::never(), 1'000) == 1'000);
    CHECK(delivered_of(Ratio::always(), 1'000) == 0);
    const int delivered = delivered_of(Ratio{1, 4}, 20'000);
    CHECK(delivered > 15'000 - 500);
    CHECK(delivered < 15'000 + 500);
}

TEST_CASE("network: latency ranges, local links and slow links", "[sim][network]") {
    WorldOptions options = options_with_latency(2, Duration::millis(10), Duration::millis(10));
    options.network.local = LinkLatency{Duration::micros(7), Duration::micros(7)};
    World world(options);
    const NodeId a = world.nodes().add("a");
    const NodeId b = world.nodes().add("b");
    const NodeId c = world.nodes().add("c");
    auto latency_of = [&](NodeId from, NodeId to, bool on_connection) {
        const Time start = world.now();
        Time arrival = Time::never();
        if (on_connection) {
            const ConnectionId id = world.network().connect(from, to, nullptr, nullptr);
            world.network().send(id, from, kNetworkMessage, 0, [&] { arrival = world.now(); });
        } else {
            world.network().send_datagram(from, to, kNetworkMessage, 0,
                                          [&] { arrival = world.now(); });
        }
        run(world);
        return arrival - start;
    };
    CHECK(latency_of(a, b, false) == Duration::millis(10));
    CHECK(latency_of(a, a, false) == Duration::micros(7));
    world.network().set_latency(a, b, LinkLatency{Duration::millis(3), Duration::millis(3)});
    CHECK(latency_of(b, a, true) == Duration::millis(3));  // a link is symmetric

    world.network().slow_link(b, a, 5, Duration::seconds(1));
    CHECK(latency_of(a, b, false) == Duration::millis(15));
    CHECK(latency_of(b, a, true) == Duration::millis(15));
    CHECK(latency_of(a, c, false) == Duration::millis(10));  // other links keep their speed
    at(world, world.now() + Duration::seconds(1), [] {});
    run(world);
    CHECK(latency_of(a, b, true) == Duration::millis(3));  // the slow period is over
    // A later slow link on the same link replaces the earlier one's multiplier and end; the
    // messages it slowed are counted on over both (fault accounting takes each fault's share from
    // its start).
    const uint64_t hits = world.network().slow_link_hits(a, b);
    CHECK(hits == 2);
    world.network().slow_link(a, b, 2, Duration::seconds(1));
    CHECK(latency_of(a, b, false) == Duration::millis(6));
    CHECK(world.network().slow_link_hits(a, b) == hits + 1);

    rc::prop("latencies stay in the configured range", [](uint64_t seed) {
        const int64_t min_us = *rc::gen::inRange<int64_t>(0, 1'000);
        const int64_t max_us = min_us + *rc::gen::inRange<int64_t>(0, 1'000);
        World w(options_with_latency(seed, Duration::micros(min_us), Duration::micros(max_us)));
        const NodeId x = w.nodes().add("x");
        const NodeId y = w.nodes().add("y");
        for (int i = 0; i < 50; ++i) {
            w.network().send_datagram(x, y, kNetworkMessage, 0, [&w, min_us, max_us] {
                RC_ASSERT(w.now() >= Time::zero() + Duration::micros(min_us));
                RC_ASSERT(w.now() <= Time::zero() + Duration::micros(max_us));
            });
        }
        run(w);
    });
}

}  // namespace
}  // namespace eosim::sim
