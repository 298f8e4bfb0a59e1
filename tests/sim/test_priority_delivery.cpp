// PCT ordering of message deliveries (sim/priority_delivery.h): latencies stay in the link's range,
// a higher-priority link's message arrives before a lower one's sent at the same time, depth 1 has
// no change point (fixed priorities for the whole run), a change point lowers the sending link
// below every initial priority, and the same seed places the same latencies. Off by default: a
// network without the option draws exactly the latencies it drew before.
#include <vector>

#include <catch2/catch.hpp>

#include "sim/priority_delivery.h"
#include "sim/world.h"

namespace eosim::sim {
namespace {

const Duration kPctLatencyMin = Duration::micros(500);
const Duration kPctLatencyMax = Duration::millis(2);

std::vector<int64_t> pct_placements(uint64_t seed, uint32_t depth, int messages) {
    PriorityDelivery pct(Prng(seed), PriorityDeliveryOptions{depth, 50});
    Prng draws(seed + 1);
    std::vector<int64_t> out;
    for (int i = 0; i < messages; ++i) {
        const NodeId from = static_cast<NodeId>(i % 4);
        const NodeId to = static_cast<NodeId>((i / 4) % 3);
        out.push_back(pct.place(from, to, kPctLatencyMin, kPctLatencyMax,
                                draws.duration_between(kPctLatencyMin, kPctLatencyMax))
                          .ns);
    }
    return out;
}

TEST_CASE(
    "pct: every latency stays in the link's range, and the same seed places the same latencies",
    "[sim][pct]") {
    const std::vector<int64_t> a = pct_placements(7, 3, 200);
    for (const int64_t ns : a) {
        CHECK(ns >= kPctLatencyMin.ns);
        CHECK(ns <= kPctLatencyMax.ns);
    }
    CHECK(a == pct_placements(7, 3, 200));
    CHECK(a != pct_placements(8, 3, 200));
}

TEST_CASE("pct: a higher-priority link's message arrives before a lower one's, whatever the draws",
          "[sim][pct]") {
    int checked = 0;
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        PriorityDelivery pct(Prng(seed), PriorityDeliveryOptions{1, 1000});
        // First messages fix both links' priorities.
        pct.place(0, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMin);
        pct.place(2, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMin);
        const bool first_higher = pct.position(0, 1) < pct.position(2, 1);
        const NodeId high = first_higher ? 0 : 2;
        const NodeId low = first_higher ? 2 : 0;
        // Bands overlap when the priorities are within the jitter's share of each other.
        if (pct.position(high, 1) + PriorityDelivery::kPositions / 15 >= pct.position(low, 1))
            continue;
        ++checked;
        // The high link's slowest draw still lands before the low link's fastest.
        CHECK(pct.place(high, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMax) <
              pct.place(low, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMin));
    }
    CHECK(checked >= 20);
}

TEST_CASE(
    "pct: depth 1 keeps every link's priority for the whole run, depth 3 has two change points",
    "[sim][pct]") {
    PriorityDelivery fixed(Prng(11), PriorityDeliveryOptions{1, 20});
    CHECK(fixed.change_points().empty());
    fixed.place(0, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMin);
    const uint64_t position = fixed.position(0, 1);
    for (int i = 0; i < 100; ++i) fixed.place(0, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMin);
    CHECK(fixed.position(0, 1) == position);

    PriorityDelivery changing(Prng(11), PriorityDeliveryOptions{3, 20});
    REQUIRE(changing.change_points().size() == 2);
    for (const uint64_t at : changing.change_points()) CHECK((at >= 1 && at <= 20));
    // Every message on one link: after the last change point the link sits below every initial
    // priority.
    for (int i = 0; i < 20; ++i)
        changing.place(0, 1, kPctLatencyMin, kPctLatencyMax, kPctLatencyMin);
    CHECK(changing.position(0, 1) >= PriorityDelivery::kInitialPositions);
}

TEST_CASE("pct: the network uses it only when asked, and then reorders deliveries within the range",
          "[sim][pct]") {
    auto arrivals = [](uint32_t depth) {
        WorldOptions options;
        options.seed = 5;
        options.network.priority_delivery.depth = depth;
        World world(options);
        const NodeId a = world.nodes().add("a");
        const NodeId b = world.nodes().add("b");
        const NodeId c = world.nodes().add("c");
        std::vector<int64_t> at;
        const EventKind kind{"test.msg"};
        for (int i = 0; i < 20; ++i) {
            world.network().send_datagram(i % 2 == 0 ? a : c, b, kind, 0,
                                          [&] { at.push_back(world.now().ns); });
        }
        world.scheduler().run_until(Time{Duration::seconds(1).ns});
        CHECK((depth == 0) == (world.network().priority_delivery() == nullptr));
        return at;
    };
    const std::vector<int64_t> plain = arrivals(0);
    const std::vector<int64_t> pct = arrivals(1);
    REQUIRE(plain.size() == 20);
    REQUIRE(pct.size() == 20);
    for (const int64_t ns : pct) CHECK((ns >= kPctLatencyMin.ns && ns <= kPctLatencyMax.ns));
    CHECK(plain != pct);
}

}  // namespace
}  // namespace eosim::sim
