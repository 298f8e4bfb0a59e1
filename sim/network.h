#pragma once
// The simulated network between nodes.
//
// Connections are point-to-point and FIFO per direction (like TCP): each message gets a latency
// drawn from its link's range, but never overtakes an earlier message of the same direction. A
// connection breaks when either end crashes or a partition comes between its ends; both ends still
// up are then told (like a TCP reset) and everything in flight on it is dropped.
//
// Datagrams are unreliable one-shot messages (for RPCs and heartbeats): a partition (also one that
// begins and heals while the datagram is in flight), a crash of either end, or the configured loss
// ratio drops them silently.
//
// Slow links multiply the latency of a pair of nodes for a period.
//
// Priority-ordered delivery (PCT, sim/priority_delivery.h) is off by default; with a depth it
// places each message's latency inside its link's range by the link's random priority.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "sim/priority_delivery.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::sim {

struct LinkLatency {
    Duration min = Duration::micros(500);
    Duration max = Duration::millis(2);
};

// Fault knobs of the network. Every default means "no fault".
struct NetworkOptions {
    LinkLatency remote;                                            // between two nodes
    LinkLatency local{Duration::micros(5), Duration::micros(20)};  // a node to itself
    Ratio datagram_loss = Ratio::never();                          // dropped datagrams
    PriorityDeliveryOptions priority_delivery;                     // PCT ordering: off (depth 0)
};

using ConnectionId = uint32_t;
using PartitionId = uint32_t;

class Network {
public:
    using Callback = sim::Callback;

    Network(Scheduler& scheduler, Prng prng, NetworkOptions options);
    ~Network();
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    // Opens a connection between `a` and `b`. `on_reset_a`/`on_reset_b` run on that end's node when
    // the connection breaks (not when it is closed). A connection across a partition, or to a node
    // that is down, starts broken: its ends are reset right away.
    ConnectionId connect(NodeId a, NodeId b, Callback on_reset_a, Callback on_reset_b);
    // Sends on an open connection from end `from`; `on_receive` runs on the other end's node.
    // Returns false (and drops the message) when the connection is not open.
    bool send(ConnectionId id, NodeId from, const EventKind& kind, uint64_t digest,
              Callback&& on_receive);
    // Closes a connection without telling either end; messages in flight are dropped.
    void close(ConnectionId id);
    bool is_open(ConnectionId id) const { return connections_.at(id).open; }

    void send_datagram(NodeId from, NodeId to, const EventKind& kind, uint64_t digest,
                       Callback&& on_receive);

    PartitionId partition(std::vector<NodeId> side_a, std::vector<NodeId> side_b, bool one_way);
    void heal(PartitionId id);
    void heal_all();
    // True when a message from `from` to `to` is not blocked by a partition.
    bool can_reach(NodeId from, NodeId to) const;
    // A synchronous call's check (the outside systems' models): `caller` and `system` reach each
    // other both ways; when a partition blocks them, it counts as one of its hits.
    bool call_reaches(NodeId caller, NodeId system);

    void set_latency(NodeId a, NodeId b, LinkLatency latency);
    void slow_link(NodeId a, NodeId b, uint32_t multiplier, Duration period);
    void set_datagram_loss(Ratio loss) { options_.datagram_loss = loss; }
    // Until `until`, loses `ratio` of the datagrams whose event kind is one of `kind_ids`.
    // Returns the rule's index (for loss_rule_hits).
    size_t lose_datagrams(std::vector<uint64_t> kind_ids, Ratio ratio, Time until);

    // What the faults hit (scenarios/fault_accounting.h): messages and connections partition `id`
    // cut (datagrams refused or dropped in flight, connections broken or refused), datagrams loss
    // rule `rule` lost, messages that travelled a slow link while it was slow (over every slow_link
    // on that link: a new one replaces the earlier one's multiplier and end, the count goes on).
    uint64_t partition_hits(PartitionId id) const { return partitions_.at(id).hits; }
    uint64_t loss_rule_hits(size_t rule) const { return loss_rules_.at(rule).hits; }
    uint64_t slow_link_hits(NodeId a, NodeId b) const;

    // The PCT ordering (sim/priority_delivery.h), or null when off.
    const PriorityDelivery* priority_delivery() const { return priority_delivery_.get(); }

    uint64_t messages_sent() const { return messages_sent_; }
    uint64_t messages_dropped() const { return messages_dropped_; }

private:
    struct Direction {
        // The scheduler timers that deliver this direction's messages, oldest first, from `head`
        // on. Delivered ones are trimmed lazily (before the vector would grow); a break cancels
        // every one still pending.
        std::vector<TimerId> in_flight;
        size_t head = 0;
        Time last_arrival = Time::zero();
    };
    struct Connection {
        NodeId ends[2];
        Callback on_reset[2];
        Direction direction[2];  // [0]: ends[0] -> ends[1]
        bool open = true;
    };
    struct Partition {
        std::vector<NodeId> side_a;
        std::vector<NodeId> side_b;
        bool one_way = false;
        bool active = true;
        uint64_t hits = 0;
    };
    struct LossRule {
        std::vector<uint64_t> kind_ids;
        Ratio ratio;
        Time until;
        uint64_t hits = 0;
    };
    struct SlowLink {
        uint32_t multiplier = 1;
        Time until = Time::zero();
        uint64_t hits = 0;
    };
    static std::pair<NodeId, NodeId> link_key(NodeId a, NodeId b) {
        return a < b ? std::pair{a, b} : std::pair{b, a};
    }

    Duration draw_latency(NodeId from, NodeId to);
    bool lost_by_rule(const EventKind& kind);
    void trim_delivered(Direction& direction);
    void break_connection(ConnectionId id);
    void break_crossing_connections();
    void on_node_crash(NodeId node);
    // Whether a partition blocks from -> to now, or blocked it at any moment since partition
    // `first` was created (for datagrams in flight).
    bool partitioned_since(PartitionId first, NodeId from, NodeId to) const;
    // Counts one hit on every active partition that blocks from -> to (or to -> from, `both`).
    void count_blocked(NodeId from, NodeId to, bool both);
    static bool blocks(const Partition& p, NodeId from, NodeId to);

    Scheduler& scheduler_;
    Prng prng_;
    NetworkOptions options_;
    std::vector<Connection> connections_;
    std::vector<Partition> partitions_;
    std::map<std::pair<NodeId, NodeId>, LinkLatency> latencies_;
    std::map<std::pair<NodeId, NodeId>, SlowLink> slow_links_;
    std::vector<LossRule> loss_rules_;
    std::unique_ptr<PriorityDelivery>
        priority_delivery_;  // null unless options_.priority_delivery is enabled
    uint64_t messages_sent_ = 0;
    uint64_t messages_dropped_ = 0;
};

}  // namespace eosim::sim
