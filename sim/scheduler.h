#pragma once
// The event queue: a binary heap ordered by (virtual time, insertion sequence), so events at the
// same instant run in the order they were scheduled, on every run. Every event belongs to a node
// incarnation (or to the world, kNoNode): when it comes due, an event of a crashed incarnation is
// dropped and one of a paused node is parked until the node resumes. Timers are cancellable.
//
// The crash boundary. An event runs its callback as its owner node (`running()`; kNoNode for a
// world-owned event, and between events). A crash at a protocol point takes effect before the
// announced step: when a fault at a point crashes the running node, `World::announce` throws
// `CrashUnwind`, which unwinds the handler up to `step` (RAII destructors only) -- no code of the
// crashed incarnation runs after it, as no actor of a killed FoundationDB process resumes. A crash
// of any other node (the announcer of a point reached through another node's call, the target of a
// fault naming other nodes) only takes the node down: the running handler goes on and sees it
// refuse, as it would a real dead peer. A pause of the running node takes effect when its handler
// returns (the rest of the handler runs as if just before the pause); TigerBeetle's nodes likewise
// stop only between ticks. `restart` runs the node's boot function as the new incarnation, with the
// same boundary.
//
// The heap holds only 16-byte keys; callbacks (sim::Callback, captures kept inline) live in a slot
// table with a free list, so a push or a pop moves no callback.
//
// A cancelled timer's key stays in the heap until it comes due, unless cancelled keys pile up: once
// the cancels since the last sweep outnumber half the heap, the heap is swept of them and rebuilt.
// Long timeouts that are nearly always cancelled (a transaction's timeout, a checkpoint's) would
// otherwise make up most of the heap -- 95% of it on the standard run -- and every push and pop
// would walk through them. Keys are unique, so the sweep changes no event's order.
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/callback.h"
#include "sim/nodes.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace eosim::sim {

// Unwinds the handler of a node that crashed while it ran (see above). Deliberately not derived
// from std::exception, so that no `catch (const std::exception&)` on the way swallows it; only
// the scheduler catches it.
struct CrashUnwind {
    NodeId node = kNoNode;
};

struct TimerId {
    uint32_t slot = UINT32_MAX;
    uint32_t generation = 0;
    bool valid() const { return slot != UINT32_MAX; }
};

class Scheduler {
public:
    using Callback = sim::Callback;

    Scheduler(NodeTable& nodes, Trace& trace) : nodes_(nodes), trace_(trace) {}

    Time now() const { return now_; }
    NodeTable& nodes() { return nodes_; }
    Trace& trace() { return trace_; }

    // Schedules `callback` at now + delay on behalf of `owner`'s current incarnation.
    // Scheduling for a node that is down is a no-op (returns an invalid id). The callable is taken
    // by rvalue reference and moved once, into its slot: a by-value parameter cost one more move
    // (an indirect call and a copy of the captures) at every call it passed through.
    TimerId schedule(Duration delay, NodeId owner, const EventKind& kind, uint64_t digest,
                     Callback&& callback);
    TimerId schedule_at(Time at, NodeId owner, const EventKind& kind, uint64_t digest,
                        Callback&& callback);
    // Returns true when the timer was pending and is now cancelled.
    bool cancel(TimerId id);
    // True while the timer waits to run (also while parked on a paused node).
    bool is_pending(TimerId id) const {
        return id.slot < slots_.size() && slots_[id.slot].generation == id.generation &&
               slots_[id.slot].pending;
    }

    // Runs the next due event (dropped ones included). Returns false when the queue is empty.
    bool step();
    // Runs events until the queue is empty, `limit` is passed, or `stop()` returns true.
    void run_until(Time limit, const std::function<bool()>& stop = {});
    // Keys in the heap, cancelled ones not yet swept out included.
    size_t pending() const { return heap_.size(); }
    // When the next event is due (now when none is): the state seen now lasts until then.
    Time next_due() const {
        return heap_.empty() ? now_ : Time{static_cast<int64_t>(heap_.front().at_ns)};
    }
    uint64_t processed() const { return processed_; }
    uint64_t dropped() const { return dropped_; }

    // Node lifecycle, with the queue kept consistent (parked events released or dropped).
    void crash(NodeId id);
    void restart(NodeId id);
    // Pausing the running node waits until its handler returns (see above); any other node now.
    void pause(NodeId id);
    void resume(NodeId id);

    // The node whose event handler runs now; kNoNode in a world-owned event and between events.
    NodeId running() const { return running_.node; }
    // Throws CrashUnwind when the running node's incarnation ended while its handler ran.
    void unwind_if_running_crashed() const {
        if (running_.node != kNoNode && !nodes_.is_current(running_.node, running_.incarnation))
            throw CrashUnwind{running_.node};
    }
    // A node's state with a pause waiting for the running handler to return counted as taken
    // effect.
    NodeState state(NodeId id) const {
        if (running_.pause_pending && id == running_.node && nodes_.state(id) == NodeState::up)
            return NodeState::paused;
        return nodes_.state(id);
    }

private:
    // 16 bytes: the due time, and the insertion sequence with the slot in its low bits. Sequences
    // are unique, so (time, order) sorts exactly as (time, sequence) does.
    static constexpr int kSlotBits = 24;  // up to 16.7 M events pending at once
    static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;
    struct Key {
        uint64_t at_ns;  // times are never negative
        uint64_t order;  // sequence << kSlotBits | slot
        uint32_t slot() const { return static_cast<uint32_t>(order & kSlotMask); }
    };
    struct Slot {
        Callback callback;
        const EventKind* kind = nullptr;
        uint64_t digest = 0;
        NodeId owner = kNoNode;
        uint32_t incarnation = 0;
        uint32_t generation = 0;
        bool pending = false;
    };
    // (time, order) as one 128-bit number: a branch-free comparison.
    static bool before(const Key& a, const Key& b) {
        using Order = unsigned __int128;
        return (static_cast<Order>(a.at_ns) << 64 | a.order) <
               (static_cast<Order>(b.at_ns) << 64 | b.order);
    }
    struct Running {
        NodeId node = kNoNode;
        uint32_t incarnation = 0;
        bool pause_pending = false;  // the node pauses when its handler returns
    };
    // Runs `handler` as `node`'s incarnation `incarnation`: a CrashUnwind ends it, a pause of the
    // node asked for meanwhile takes effect when it returns.
    template <typename Handler>
    void run_as(NodeId node, uint32_t incarnation, Handler&& handler);
    void push(int64_t at_ns, uint32_t slot);
    Key pop();
    void release(uint32_t slot);
    void sweep_cancelled();

    NodeTable& nodes_;
    Trace& trace_;
    Time now_ = Time::zero();
    uint64_t next_seq_ = 0;
    uint64_t processed_ = 0;
    uint64_t dropped_ = 0;
    size_t cancels_since_sweep_ = 0;
    Running running_;
    std::vector<Key> heap_;
    std::vector<Slot> slots_;
    std::vector<uint32_t> free_slots_;
    std::vector<std::vector<uint32_t>> parked_;  // per node: slots that came due while paused
};

}  // namespace eosim::sim
