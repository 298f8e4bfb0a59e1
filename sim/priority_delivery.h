#pragma once
// Priority-ordered message delivery: PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, "A
// Randomized Scheduler with Probabilistic Guarantees of Finding Bugs", ASPLOS 2010) adapted to a
// timed network. Off unless `eosim explore --strategy pct` (or `eosim run --pct-depth D`) asks for
// it; a run without it draws and delivers exactly as before (the golden trace hashes hold).
//
// PCT's "threads" are here the directed links (sender node -> receiver node, a node to itself
// included): the sources of the messages that may be delivered in either order. Each link gets a
// random priority when it first carries a message; a message's latency is placed in the band of
// its link's priority inside the link's configured range [min, max] (high priority: near min), and
// the network's own latency draw only jitters it inside a narrow band. So of the messages in
// flight at once, the higher-priority links' messages arrive first -- PCT's rule "run the enabled
// thread of highest priority" -- and every latency stays inside the configured range, so the
// engine sees nothing a real network could not do. At d-1 change points (the k-th message sent
// over all links, k uniform in [1, change_point_steps]) the sending link drops below every initial
// priority, as PCT lowers the running thread.
//
// What it keeps: FIFO per connection direction (the network applies it after the latency), slow
// links (multiplied after), the network's draw count (one draw per message, as without it), and
// determinism: priorities and change points come from the stream "pct" of the network's PRNG, so
// the same seed and depth give the same run.
//
// What it does not do: order the events of one node (timers, local work); reorder the messages of
// one connection direction (TCP would not either); promise PCT's bound exactly (that needs a
// step count k known in advance; `change_point_steps` is the user's estimate of it).
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "sim/nodes.h"
#include "sim/prng.h"
#include "sim/time.h"

namespace eosim::sim {

struct PriorityDeliveryOptions {
    uint32_t depth = 0;  // d: 0 off; 1 fixed random priorities; d > 1: d-1 change points
    uint64_t change_point_steps =
        20'000;  // change points fall on the k-th message sent, k in [1, this]
    bool enabled() const { return depth > 0; }
};

class PriorityDelivery {
public:
    // Priority positions: 0 is the highest priority (earliest in the range), kPositions - 1 the
    // lowest.
    static constexpr uint64_t kPositions = 1 << 16;
    // Initial priorities take the first three quarters; change points the last quarter.
    static constexpr uint64_t kInitialPositions = kPositions / 4 * 3;
    // The share of the range the network's own draw jitters a message inside its band: 1/16.
    static constexpr int64_t kJitterShareInverse = 16;

    PriorityDelivery(Prng prng, PriorityDeliveryOptions options);

    // The latency of the next message on from -> to: `drawn` (the network's draw in [min, max])
    // moved into the band of the link's priority, still inside [min, max]. Counts the message.
    Duration place(NodeId from, NodeId to, Duration min, Duration max, Duration drawn);

    // The link's priority position (tests): 0 highest; kPositions when it carried nothing yet.
    uint64_t position(NodeId from, NodeId to) const;
    // The message counts at which a change point falls, ascending (d-1 of them).
    const std::vector<uint64_t>& change_points() const { return change_points_; }
    uint64_t messages() const { return messages_; }

private:
    Prng prng_;
    PriorityDeliveryOptions options_;
    std::map<std::pair<NodeId, NodeId>, uint64_t>
        positions_;  // ordered: nothing iterates it by address
    std::vector<uint64_t> change_points_;
    size_t next_change_ = 0;
    uint64_t messages_ = 0;
};

}  // namespace eosim::sim
