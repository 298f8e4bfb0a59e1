// The simulator's contracts, checked in every build (sim/invariant.h): each kind fires on its slip
// (a handler that throws stands in for the abort), and its positive twin -- the same use, kept to
// the contract -- breaks nothing. Kinds: the scheduler's time, timer generations, event owners and
// parked events; the network's connection ends, FIFO order and latency ranges; the durable store's
// options and callers; the world's protocol points.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/invariant.h"
#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kContractEvent{"test.contract_event"};

// A bare world with `node_count` nodes, its invariants turned into exceptions for the scope.
struct ContractWorld {
    ScopedInvariantHandler throws{throw_invariant_broken};
    World world{WorldOptions{}};
    std::vector<NodeId> nodes;

    explicit ContractWorld(int node_count) {
        for (int i = 0; i < node_count; ++i)
            nodes.push_back(world.nodes().add("n" + std::to_string(i)));
    }
    void run() {
        while (world.scheduler().step()) {}
    }
};

}  // namespace

TEST_CASE("sim contracts: the scheduler's time never goes back", "[sim][invariants]") {
    ContractWorld w(1);
    Scheduler& scheduler = w.world.scheduler();
    int ran = 0;
    scheduler.schedule(Duration::millis(5), kNoNode, kContractEvent, 0, [&] { ++ran; });
    w.run();
    REQUIRE(scheduler.now() == Time::zero() + Duration::millis(5));
    const auto past = Catch::Contains("time never goes back: no event is scheduled in the past");
    CHECK_THROWS_WITH(scheduler.schedule_at(Time::zero() + Duration::millis(4), kNoNode,
                                            kContractEvent, 0, [] {}),
                      past);
    CHECK_THROWS_WITH(scheduler.schedule(Duration::nanos(-1), w.nodes[0], kContractEvent, 0, [] {}),
                      past);
    // Positive twin: now itself, and a zero delay, are not the past.
    CHECK_NOTHROW(
        scheduler.schedule_at(scheduler.now(), kNoNode, kContractEvent, 0, [&] { ++ran; }));
    CHECK_NOTHROW(
        scheduler.schedule(Duration::zero(), w.nodes[0], kContractEvent, 0, [&] { ++ran; }));
    w.run();
    CHECK(ran == 3);
}

TEST_CASE("sim contracts: an event belongs to the world or to a known node", "[sim][invariants]") {
    ContractWorld w(2);
    CHECK_THROWS_WITH(
        w.world.scheduler().schedule(Duration::zero(), NodeId{2}, kContractEvent, 0, [] {}),
        Catch::Contains("an event belongs to the world or to a known node"));
    CHECK(w.world.scheduler()
              .schedule(Duration::zero(), w.nodes[1], kContractEvent, 0, [] {})
              .valid());
}

TEST_CASE("sim contracts: a timer id is never newer than its slot", "[sim][invariants]") {
    ContractWorld w(1);
    Scheduler& scheduler = w.world.scheduler();
    const TimerId id = scheduler.schedule(Duration::millis(1), kNoNode, kContractEvent, 0, [] {});
    CHECK_THROWS_WITH(scheduler.cancel(TimerId{id.slot, id.generation + 1}),
                      Catch::Contains("a timer id is never newer than its slot"));
    // Positive twin: an id that went stale (its event ran, the slot moved on) is simply not
    // pending.
    w.run();
    CHECK_FALSE(scheduler.cancel(id));
    const TimerId reused =
        scheduler.schedule(Duration::millis(1), kNoNode, kContractEvent, 0, [] {});
    REQUIRE(reused.slot == id.slot);
    CHECK_FALSE(scheduler.cancel(id));
    CHECK(scheduler.cancel(reused));
}

TEST_CASE("sim contracts: parked events belong to the paused node's current incarnation",
          "[sim][invariants]") {
    ContractWorld w(1);
    Scheduler& scheduler = w.world.scheduler();
    const NodeId node = w.nodes[0];
    int ran = 0;
    scheduler.pause(node);
    scheduler.schedule(Duration::millis(1), node, kContractEvent, 0, [&] { ++ran; });
    w.run();  // parked

    SECTION(
        "a crash past the scheduler keeps the dead incarnation's events parked: caught on resume") {
        w.world.nodes().crash(node);
        w.world.nodes().restart(node);
        scheduler.pause(node);
        CHECK_THROWS_WITH(
            scheduler.resume(node),
            Catch::Contains("a parked event belongs to its paused node's current incarnation"));
    }
    SECTION(
        "positive twin: the scheduler's crash releases them; an event of a dead incarnation never runs") {
        scheduler.crash(node);
        scheduler.restart(node);
        scheduler.pause(node);
        CHECK_NOTHROW(scheduler.resume(node));
        w.run();
        CHECK(ran == 0);
    }
    SECTION("positive twin: a resume runs them") {
        CHECK_NOTHROW(scheduler.resume(node));
        w.run();
        CHECK(ran == 1);
    }
}

TEST_CASE("sim contracts: a message travels on a known connection, from one of its ends",
          "[sim][invariants]") {
    ContractWorld w(3);
    Network& network = w.world.network();
    const ConnectionId id = network.connect(w.nodes[0], w.nodes[1], nullptr, nullptr);
    CHECK_THROWS_WITH(network.send(id + 1, w.nodes[0], kContractEvent, 0, [] {}),
                      Catch::Contains("a message on a known connection"));
    CHECK_THROWS_WITH(network.send(id, w.nodes[2], kContractEvent, 0, [] {}),
                      Catch::Contains("a message sent from an end of its connection"));
    CHECK(network.send(id, w.nodes[1], kContractEvent, 0, [] {}));
}

TEST_CASE("sim contracts: an open connection's ends are up", "[sim][invariants]") {
    // A crash listener that runs before the network's (registered first) and sends to the node
    // that is going down: its connection is still open, its other end already down.
    ScopedInvariantHandler throws(throw_invariant_broken);
    NodeTable nodes;
    Trace trace;
    Scheduler scheduler(nodes, trace);
    const NodeId a = nodes.add("a");
    const NodeId b = nodes.add("b");
    ConnectionId id = 0;
    Network* network = nullptr;
    nodes.on_crash([&](NodeId crashed) {
        if (crashed == b)
            CHECK_THROWS_WITH(network->send(id, a, kContractEvent, 0, [] {}),
                              Catch::Contains("an open connection's ends are up"));
    });
    Network net(scheduler, Prng(1), NetworkOptions{});
    network = &net;
    id = net.connect(a, b, nullptr, nullptr);
    REQUIRE(net.send(id, a, kContractEvent, 0, [] {}));
    scheduler.crash(b);
    // Positive twin: once the network heard of the crash, the connection is broken and a send
    // refused.
    CHECK_FALSE(net.send(id, a, kContractEvent, 0, [] {}));
}

TEST_CASE("sim contracts: a connection's messages leave it in the order they were sent",
          "[sim][invariants]") {
    ContractWorld w(2);
    Network& network = w.world.network();
    const ConnectionId id = network.connect(w.nodes[0], w.nodes[1], nullptr, nullptr);
    std::vector<int> received;
    const auto send = [&](int message) {
        return network.send(id, w.nodes[0], kContractEvent, 0,
                            [&received, message] { received.push_back(message); });
    };
    // A fresh world: the first eight messages' delivery timers are slots 0 to 7; the ninth send
    // trims the direction (its room for eight is full), which checks the order.
    for (int message = 0; message < 8; ++message) REQUIRE(send(message));

    SECTION(
        "the newest leaves before the oldest (its timer cancelled behind the network): caught at the trim") {
        REQUIRE(w.world.scheduler().cancel(TimerId{7, 0}));
        CHECK_THROWS_WITH(
            send(8), Catch::Contains(
                         "channel FIFO: a message leaves its direction after every earlier one"));
    }
    SECTION("positive twin: every message arrives, in order") {
        for (int message = 8; message < 32; ++message) REQUIRE(send(message));
        w.run();
        REQUIRE(received.size() == 32);
        for (int message = 0; message < 32; ++message) CHECK(received[message] == message);
    }
}

TEST_CASE("sim contracts: link latencies are ordered and never negative, and a slow link slows",
          "[sim][invariants]") {
    ContractWorld w(2);
    Network& network = w.world.network();
    const NodeId a = w.nodes[0];
    const NodeId b = w.nodes[1];
    const auto latency = Catch::Contains("a link's latency range is ordered and never negative");
    CHECK_THROWS_WITH(
        network.set_latency(a, b, LinkLatency{Duration::millis(2), Duration::millis(1)}), latency);
    CHECK_THROWS_WITH(
        network.set_latency(a, b, LinkLatency{Duration::millis(-1), Duration::millis(1)}), latency);
    CHECK_THROWS_WITH(network.slow_link(a, b, 0, Duration::seconds(1)),
                      Catch::Contains("a slow link slows"));
    CHECK_THROWS_WITH(network.slow_link(a, b, 2, Duration::nanos(-1)),
                      Catch::Contains("a slow link slows"));
    CHECK_NOTHROW(network.set_latency(a, b, LinkLatency{Duration::zero(), Duration::zero()}));
    CHECK_NOTHROW(network.slow_link(a, b, 1, Duration::zero()));
}

TEST_CASE("sim contracts: the durable store's latencies, slowness and callers",
          "[sim][invariants]") {
    ContractWorld w(1);
    const auto latency = Catch::Contains("the store's latency range is ordered and never negative");
    CHECK_THROWS_WITH(
        DurableStorage(w.world.scheduler(), Prng(1),
                       StorageOptions{LinkLatency{Duration::millis(2), Duration::millis(1)}}),
        latency);
    CHECK_THROWS_WITH(
        DurableStorage(w.world.scheduler(), Prng(1),
                       StorageOptions{LinkLatency{Duration::millis(-1), Duration::millis(1)}}),
        latency);
    DurableStorage& storage = w.world.storage();
    CHECK_THROWS_WITH(storage.slow_until(Time::zero() + Duration::seconds(1), 0),
                      Catch::Contains("a slow store is not faster"));
    CHECK_THROWS_WITH(storage.put(NodeId{1}, "k", "v", [](StorageStatus) {}),
                      Catch::Contains("a storage operation comes from a known node"));
    // Positive twin: a put, a remove and a get from a known node.
    StorageStatus got = StorageStatus::failed;
    storage.put(w.nodes[0], "k", "v", [](StorageStatus) {});
    storage.remove(w.nodes[0], "k", [](StorageStatus) {});
    storage.get(w.nodes[0], "k", [&](StorageStatus status, std::string) { got = status; });
    CHECK_NOTHROW(w.run());
    CHECK(got == StorageStatus::not_found);
    CHECK_FALSE(storage.removal_in_flight("k"));
}

TEST_CASE("sim contracts: a protocol point is named and announced by a known node",
          "[sim][invariants]") {
    ContractWorld w(1);
    const NodeId node = w.nodes[0];
    CHECK_THROWS_WITH(w.world.announce("", node, 1),
                      Catch::Contains("a protocol point is named and announced by a known node"));
    CHECK_THROWS_WITH(w.world.announce("checkpoint.triggered", NodeId{1}, 1),
                      Catch::Contains("announced by a known node"));
    int heard = 0;
    w.world.on_point([&](const ProtocolPointEvent&) { ++heard; });
    CHECK_NOTHROW(w.world.announce("checkpoint.triggered", node, 1));
    CHECK(heard == 1);
}

}  // namespace eosim::sim
