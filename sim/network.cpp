#include "sim/network.h"

#include <algorithm>

#include "sim/invariant.h"

namespace eosim::sim {

namespace {
constexpr EventKind kConnectionReset{"net.reset"};
bool contains(const std::vector<NodeId>& nodes, NodeId node) {
    return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}
}  // namespace

Network::Network(Scheduler& scheduler, Prng prng, NetworkOptions options)
    : scheduler_(scheduler), prng_(prng), options_(options) {
    scheduler_.nodes().on_crash([this](NodeId node) { on_node_crash(node); });
    if (options_.priority_delivery.enabled()) {
        // Its own stream, forked from the network's seed: the latency draws stay as they were.
        priority_delivery_ =
            std::make_unique<PriorityDelivery>(prng_.fork("pct"), options_.priority_delivery);
    }
}

Network::~Network() = default;

ConnectionId Network::connect(NodeId a, NodeId b, Callback on_reset_a, Callback on_reset_b) {
    const auto id = static_cast<ConnectionId>(connections_.size());
    Connection& c = connections_.emplace_back();
    c.ends[0] = a;
    c.ends[1] = b;
    c.on_reset[0] = std::move(on_reset_a);
    c.on_reset[1] = std::move(on_reset_b);
    for (Direction& d : c.direction) d.in_flight.reserve(8);  // trims then happen once per 8 sends
    const NodeTable& nodes = scheduler_.nodes();
    if (!nodes.is_up(a) || !nodes.is_up(b) || !can_reach(a, b) || !can_reach(b, a)) {
        if (nodes.is_up(a) && nodes.is_up(b)) count_blocked(a, b, true);
        break_connection(id);
    }
    return id;
}

Duration Network::draw_latency(NodeId from, NodeId to) {
    const LinkLatency* range = from == to ? &options_.local : &options_.remote;
    if (!latencies_.empty()) {
        auto custom = latencies_.find(link_key(from, to));
        if (custom != latencies_.end()) range = &custom->second;
    }
    Duration latency = prng_.duration_between(range->min, range->max);
    if (priority_delivery_)
        latency = priority_delivery_->place(from, to, range->min, range->max, latency);
    if (!slow_links_.empty()) {
        auto slow = slow_links_.find(link_key(from, to));
        if (slow != slow_links_.end() && scheduler_.now() < slow->second.until) {
            latency = latency * slow->second.multiplier;
            ++slow->second.hits;
        }
    }
    return latency;
}

// The hot path of every message: flattened, it contains the latency draw instead of calling it.
[[gnu::flatten]] bool Network::send(ConnectionId id, NodeId from, const EventKind& kind,
                                    uint64_t digest, Callback&& on_receive) {
    EOSIM_INVARIANT(id < connections_.size(),
                    "a message on a known connection (ids come from connect)");
    Connection& c = connections_[id];
    EOSIM_INVARIANT(from == c.ends[0] || from == c.ends[1],
                    "a message sent from an end of its connection");
    if (!c.open || !scheduler_.nodes().is_up(from)) {
        ++messages_dropped_;
        return false;
    }
    const int dir = from == c.ends[0] ? 0 : 1;
    const NodeId to = c.ends[1 - dir];
    EOSIM_INVARIANT(scheduler_.nodes().is_up(to),
                    "an open connection's ends are up: a crash breaks the node's connections");
    Direction& d = c.direction[dir];
    // FIFO: never before the previous message of this direction (ties run in send order).
    const Time arrival = std::max(scheduler_.now() + draw_latency(from, to), d.last_arrival);
    d.last_arrival = arrival;
    ++messages_sent_;
    // The message is delivered by a timer of its own, cancelled if the connection breaks first.
    const TimerId timer = scheduler_.schedule_at(arrival, to, kind, digest, std::move(on_receive));
    if (d.in_flight.size() == d.in_flight.capacity())
        trim_delivered(d);  // amortised: before growing
    d.in_flight.push_back(timer);
    return true;
}

// Also where FIFO order is checked, in O(1): the messages of a direction leave it in the order they
// were sent, so while the oldest one is in flight the newest is too (a break drops them all at
// once).
void Network::trim_delivered(Direction& d) {
    while (d.head < d.in_flight.size() && !scheduler_.is_pending(d.in_flight[d.head])) ++d.head;
    EOSIM_INVARIANT(d.head == d.in_flight.size() || scheduler_.is_pending(d.in_flight.back()),
                    "channel FIFO: a message leaves its direction after every earlier one");
    if (d.head == d.in_flight.size()) {
        d.in_flight.clear();
        d.head = 0;
    } else if (d.head > 0) {
        d.in_flight.erase(d.in_flight.begin(),
                          d.in_flight.begin() + static_cast<ptrdiff_t>(d.head));
        d.head = 0;
    }
}

void Network::close(ConnectionId id) {
    Connection& c = connections_.at(id);
    if (!c.open) return;
    c.open = false;
    for (Direction& d : c.direction) {
        for (size_t i = d.head; i < d.in_flight.size(); ++i) {
            if (scheduler_.cancel(d.in_flight[i])) ++messages_dropped_;
        }
        d.in_flight.clear();
        d.head = 0;
    }
}

void Network::break_connection(ConnectionId id) {
    Connection& c = connections_[id];
    if (!c.open) return;
    close(id);
    for (int end = 0; end < 2; ++end) {
        if (c.on_reset[end]) {
            scheduler_.schedule(Duration::zero(), c.ends[end], kConnectionReset, id,
                                std::move(c.on_reset[end]));
        }
        c.on_reset[end] = nullptr;
    }
}

void Network::send_datagram(NodeId from, NodeId to, const EventKind& kind, uint64_t digest,
                            Callback&& on_receive) {
    NodeTable& nodes = scheduler_.nodes();
    if (!nodes.is_up(from) || !can_reach(from, to) || prng_.chance(options_.datagram_loss) ||
        lost_by_rule(kind)) {
        if (nodes.is_up(from) && !can_reach(from, to)) count_blocked(from, to, false);
        ++messages_dropped_;
        return;
    }
    ++messages_sent_;
    const uint32_t sender_incarnation = nodes.incarnation(from);
    const auto partitions_at_send = static_cast<PartitionId>(partitions_.size());
    scheduler_.schedule(
        draw_latency(from, to), to, kind, digest,
        [this, from, to, sender_incarnation, partitions_at_send,
         on_receive = std::move(on_receive)]() mutable {
            NodeTable& table = scheduler_.nodes();
            if (table.incarnation(from) != sender_incarnation ||
                partitioned_since(partitions_at_send, from, to)) {
                if (table.incarnation(from) == sender_incarnation) {
                    for (PartitionId id = 0; id < partitions_.size(); ++id) {
                        Partition& p = partitions_[id];
                        if ((p.active || id >= partitions_at_send) && blocks(p, from, to)) ++p.hits;
                    }
                }
                ++messages_dropped_;
                return;
            }
            on_receive();
        });
}

bool Network::partitioned_since(PartitionId first, NodeId from, NodeId to) const {
    // One active at send time would have dropped the datagram then; if it is still active, it
    // blocks now. One started while the datagram was in flight drops it, even if healed since.
    if (!can_reach(from, to)) return true;
    for (PartitionId id = first; id < partitions_.size(); ++id) {
        if (blocks(partitions_[id], from, to)) return true;
    }
    return false;
}

bool Network::blocks(const Partition& p, NodeId from, NodeId to) {
    if (contains(p.side_a, from) && contains(p.side_b, to)) return true;
    return !p.one_way && contains(p.side_b, from) && contains(p.side_a, to);
}

bool Network::can_reach(NodeId from, NodeId to) const {
    for (const Partition& p : partitions_) {
        if (p.active && blocks(p, from, to)) return false;
    }
    return true;
}

PartitionId Network::partition(std::vector<NodeId> side_a, std::vector<NodeId> side_b,
                               bool one_way) {
    partitions_.push_back(Partition{std::move(side_a), std::move(side_b), one_way, true, 0});
    const auto id = static_cast<PartitionId>(partitions_.size() - 1);
    // The connections it breaks now are its hits (earlier partitions broke what they cut already).
    for (const Connection& c : connections_) {
        if (c.open && (blocks(partitions_[id], c.ends[0], c.ends[1]) ||
                       blocks(partitions_[id], c.ends[1], c.ends[0]))) {
            ++partitions_[id].hits;
        }
    }
    break_crossing_connections();
    return id;
}

void Network::count_blocked(NodeId from, NodeId to, bool both) {
    for (Partition& p : partitions_) {
        if (p.active && (blocks(p, from, to) || (both && blocks(p, to, from)))) ++p.hits;
    }
}

bool Network::call_reaches(NodeId caller, NodeId system) {
    if (can_reach(caller, system) && can_reach(system, caller)) return true;
    count_blocked(caller, system, true);
    return false;
}

uint64_t Network::slow_link_hits(NodeId a, NodeId b) const {
    auto it = slow_links_.find(link_key(a, b));
    return it == slow_links_.end() ? 0 : it->second.hits;
}

void Network::break_crossing_connections() {
    for (ConnectionId id = 0; id < connections_.size(); ++id) {
        const Connection& c = connections_[id];
        // A one-way partition still breaks a connection: its acknowledgements cannot flow.
        if (c.open && (!can_reach(c.ends[0], c.ends[1]) || !can_reach(c.ends[1], c.ends[0])))
            break_connection(id);
    }
}

void Network::heal(PartitionId id) { partitions_.at(id).active = false; }

void Network::heal_all() {
    for (Partition& p : partitions_) p.active = false;
}

size_t Network::lose_datagrams(std::vector<uint64_t> kind_ids, Ratio ratio, Time until) {
    loss_rules_.push_back(LossRule{std::move(kind_ids), ratio, until, 0});
    return loss_rules_.size() - 1;
}

bool Network::lost_by_rule(const EventKind& kind) {
    for (LossRule& rule : loss_rules_) {
        if (scheduler_.now() >= rule.until) continue;
        if (std::find(rule.kind_ids.begin(), rule.kind_ids.end(), kind.id) == rule.kind_ids.end())
            continue;
        if (prng_.chance(rule.ratio)) {
            ++rule.hits;
            return true;
        }
    }
    return false;
}

void Network::set_latency(NodeId a, NodeId b, LinkLatency latency) {
    EOSIM_INVARIANT(
        latency.min >= Duration::zero() && latency.min <= latency.max,
        "a link's latency range is ordered and never negative: a message never arrives before it is sent");
    latencies_[link_key(a, b)] = latency;
}

void Network::slow_link(NodeId a, NodeId b, uint32_t multiplier, Duration period) {
    // A later slow link on the same link replaces the earlier one's multiplier and end; the hits
    // count on over both (a fault's own share is what it added since it fired).
    EOSIM_INVARIANT(multiplier >= 1 && period >= Duration::zero(),
                    "a slow link slows, for a period that does not end in the past");
    SlowLink& link = slow_links_[link_key(a, b)];
    link.multiplier = multiplier;
    link.until = scheduler_.now() + period;
}

void Network::on_node_crash(NodeId node) {
    for (ConnectionId id = 0; id < connections_.size(); ++id) {
        const Connection& c = connections_[id];
        if (c.open && (c.ends[0] == node || c.ends[1] == node)) break_connection(id);
    }
}

}  // namespace eosim::sim
