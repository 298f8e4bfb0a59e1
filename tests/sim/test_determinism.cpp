// Determinism of the whole simulator: a random workload (nodes exchanging connection messages and
// datagrams, timers set and cancelled, storage writes, local disk) under random faults (crashes and
// restarts, partitions and heals, slow links, pauses), all drawn from one seed. The same seed must
// give the same trace hash and the same trace log; another seed must give another hash.
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kTick{"workload.tick"};
constexpr EventKind kMessage{"workload.message"};
constexpr EventKind kDatagram{"workload.datagram"};
constexpr EventKind kFault{"workload.fault"};
constexpr EventKind kCancelled{"workload.cancelled"};

struct RunSummary {
    uint64_t hash;
    uint64_t events;
    uint64_t dropped;
    uint64_t messages;
    uint64_t
        last_draw;  // FoundationDB's "unseed": the next value of the workload stream at the end

    bool operator==(const RunSummary&) const = default;
};

class RandomWorkload {
public:
    explicit RandomWorkload(uint64_t seed, std::ostream* log = nullptr)
        : world_(options_for(seed)), prng_(world_.prng("workload.nodes")) {
        world_.trace().set_log(log);
        Prng config = world_.prng("workload.config");
        const auto node_count = static_cast<NodeId>(3 + config.below(5));
        processes_.resize(node_count);
        for (NodeId id = 0; id < node_count; ++id) {
            world_.nodes().add(std::string("node-").append(std::to_string(id)));
            world_.nodes().set_process(
                id, [this, id] { boot(id); }, [this, id] { processes_[id] = Process{}; });
            boot(id);
        }
        Prng faults = world_.prng("workload.faults");
        const uint64_t fault_count = faults.below(12);
        for (uint64_t i = 0; i < fault_count; ++i) schedule_fault(faults);
    }

    RunSummary run(Duration how_long) {
        world_.scheduler().run_until(Time::zero() + how_long);
        return RunSummary{world_.trace().hash(), world_.trace().events(),
                          world_.scheduler().dropped(), world_.network().messages_sent(),
                          prng_.next()};
    }

private:
    struct Process {
        uint64_t received = 0;
        std::map<NodeId, ConnectionId> connections;
    };

    static WorldOptions options_for(uint64_t seed) {
        Prng config = Prng(seed).fork("workload.options");
        WorldOptions options;
        options.seed = seed;
        options.network.datagram_loss = Ratio{config.below(3), 10};
        options.storage.failure = Ratio{config.below(2), 10};
        return options;
    }

    NodeId node_count() const { return static_cast<NodeId>(processes_.size()); }
    NodeId random_peer(NodeId self) {
        return static_cast<NodeId>((self + 1 + prng_.below(node_count() - 1)) % node_count());
    }

    void boot(NodeId id) {
        processes_[id] = Process{};
        schedule_tick(id);
    }

    void schedule_tick(NodeId id) {
        world_.scheduler().schedule(
            prng_.duration_between(Duration::millis(1), Duration::millis(20)), id, kTick, id,
            [this, id] { tick(id); });
    }

    void tick(NodeId id) {
        switch (prng_.below(5)) {
            case 0: send_on_connection(id, random_peer(id)); break;
            case 1: {
                const NodeId to = static_cast<NodeId>(prng_.below(node_count()));
                world_.network().send_datagram(id, to, kDatagram, prng_.next(),
                                               [this, to] { ++processes_[to].received; });
                break;
            }
            case 2:
                world_.storage().put(id,
                                     std::string("n").append(std::to_string(id)) + "/" +
                                         std::to_string(processes_[id].received),
                                     "v", [this, id](StorageStatus status) {
                                         if (status == StorageStatus::ok) ++processes_[id].received;
                                     });
                break;
            case 3: world_.nodes().disk(id)["wal"] += "x"; break;
            default: {
                const TimerId timer =
                    world_.scheduler().schedule(Duration::millis(5), id, kCancelled, 0, [] {});
                if (prng_.chance(Ratio{1, 2})) world_.scheduler().cancel(timer);
            }
        }
        schedule_tick(id);
    }

    void send_on_connection(NodeId from, NodeId to) {
        Process& process = processes_[from];
        auto it = process.connections.find(to);
        if (it == process.connections.end() || !world_.network().is_open(it->second)) {
            const ConnectionId id = world_.network().connect(
                from, to, [this, from, to] { processes_[from].connections.erase(to); }, nullptr);
            it = process.connections.insert_or_assign(to, id).first;
        }
        world_.network().send(it->second, from, kMessage, prng_.next(), [this, from, to] {
            if (++processes_[to].received % 3 == 0) {
                world_.network().send_datagram(to, from, kDatagram, processes_[to].received, [] {});
            }
        });
    }

    void schedule_fault(Prng& faults) {
        const Time at =
            Time::zero() + faults.duration_between(Duration::zero(), Duration::seconds(2));
        const Duration lasting =
            faults.duration_between(Duration::millis(5), Duration::millis(400));
        const NodeId a = static_cast<NodeId>(faults.below(node_count()));
        const NodeId b =
            static_cast<NodeId>((a + 1 + faults.below(node_count() - 1)) % node_count());
        Scheduler& scheduler = world_.scheduler();
        switch (faults.below(4)) {
            case 0:
                scheduler.schedule_at(at, kNoNode, kFault, 0, [this, a, lasting] {
                    if (!world_.nodes().is_up(a)) return;
                    world_.scheduler().crash(a);
                    world_.scheduler().schedule(lasting, kNoNode, kFault, 1, [this, a] {
                        if (world_.nodes().state(a) == NodeState::down)
                            world_.scheduler().restart(a);
                    });
                });
                break;
            case 1: {
                const bool one_way = faults.chance(Ratio{1, 2});
                scheduler.schedule_at(at, kNoNode, kFault, 2, [this, a, b, one_way, lasting] {
                    const PartitionId id = world_.network().partition({a}, {b}, one_way);
                    world_.scheduler().schedule(lasting, kNoNode, kFault, 3,
                                                [this, id] { world_.network().heal(id); });
                });
                break;
            }
            case 2: {
                const auto multiplier = static_cast<uint32_t>(2 + faults.below(9));
                scheduler.schedule_at(at, kNoNode, kFault, 4, [this, a, b, multiplier, lasting] {
                    world_.network().slow_link(a, b, multiplier, lasting);
                });
                break;
            }
            default:
                scheduler.schedule_at(at, kNoNode, kFault, 5, [this, a, lasting] {
                    world_.scheduler().pause(a);
                    world_.scheduler().schedule(lasting, kNoNode, kFault, 6,
                                                [this, a] { world_.scheduler().resume(a); });
                });
        }
    }

    World world_;
    Prng prng_;
    std::vector<Process> processes_;
};

RunSummary run_workload(uint64_t seed, std::ostream* log = nullptr) {
    RandomWorkload workload(seed, log);
    return workload.run(Duration::seconds(3));
}

TEST_CASE("determinism: one seed, one trace", "[sim][determinism]") {
    std::ostringstream first_log;
    std::ostringstream second_log;
    const RunSummary first = run_workload(42, &first_log);
    const RunSummary second = run_workload(42, &second_log);
    CHECK(first == second);
    CHECK(first_log.str() == second_log.str());
    CHECK(first.events > 1'000);  // the workload is not trivially empty
    CHECK(first.messages > 100);

    const RunSummary other = run_workload(43);
    CHECK(other.hash != first.hash);
}

TEST_CASE("determinism: the random workload hits its faults", "[sim][determinism]") {
    // Over a handful of seeds, events of crashed incarnations must have been dropped somewhere;
    // otherwise the determinism property below would be checking a fault-free world only.
    uint64_t dropped = 0;
    for (uint64_t seed = 1; seed <= 10; ++seed) dropped += run_workload(seed).dropped;
    CHECK(dropped > 0);
}

TEST_CASE("determinism: property over seeds", "[sim][determinism]") {
    rc::prop("the same seed gives the same hash; the next seed another one", [](uint64_t seed) {
        const RunSummary first = run_workload(seed);
        RC_ASSERT(first == run_workload(seed));
        RC_ASSERT(first.hash != run_workload(seed + 1).hash);
    });
}

}  // namespace
}  // namespace eosim::sim
