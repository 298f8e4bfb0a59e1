#include "sim/scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "sim/invariant.h"

namespace eosim::sim {

namespace {
constexpr EventKind kDropped{"sim.dropped"};
// Below this many cancels a sweep is not worth a pass over the heap.
constexpr size_t kSweepMinimum = 8;
}  // namespace

TimerId Scheduler::schedule(Duration delay, NodeId owner, const EventKind& kind, uint64_t digest,
                            Callback&& callback) {
    EOSIM_INVARIANT(delay >= Duration::zero(),
                    "time never goes back: no event is scheduled in the past");
    return schedule_at(now_ + delay, owner, kind, digest, std::move(callback));
}

// schedule_at and step are the hot path of every run: flattened, they call neither push, pop nor
// release (nor the trace's record) but contain them.
[[gnu::flatten]] TimerId Scheduler::schedule_at(Time at, NodeId owner, const EventKind& kind,
                                                uint64_t digest, Callback&& callback) {
    EOSIM_INVARIANT(at >= now_, "time never goes back: no event is scheduled in the past");
    EOSIM_INVARIANT(owner == kNoNode || owner < nodes_.size(),
                    "an event belongs to the world or to a known node");
    if (owner != kNoNode && !nodes_.is_up(owner)) return TimerId{};
    uint32_t slot;
    if (free_slots_.empty()) {
        if (slots_.size() > kSlotMask)
            throw std::length_error("scheduler: more than 2^24 events pending at once");
        slot = static_cast<uint32_t>(slots_.size());
        slots_.emplace_back();
    } else {
        slot = free_slots_.back();
        free_slots_.pop_back();
    }
    Slot& s = slots_[slot];
    s.callback = std::move(callback);
    s.kind = &kind;
    s.digest = digest;
    s.owner = owner;
    s.incarnation = owner == kNoNode ? 0 : nodes_.incarnation(owner);
    s.pending = true;
    push(at.ns, slot);
    return TimerId{slot, s.generation};
}

// A binary min-heap written out rather than std::push_heap/pop_heap, so that the comparison is
// inlined and branch-free; keys are unique, so the order of events is the same either way.
void Scheduler::push(int64_t at_ns, uint32_t slot) {
    if (next_seq_ > (UINT64_MAX >> kSlotBits))
        throw std::length_error("scheduler: more than 2^40 events scheduled in one run");
    const Key key{static_cast<uint64_t>(at_ns), next_seq_++ << kSlotBits | slot};
    size_t hole = heap_.size();
    heap_.emplace_back();
    Key* heap = heap_.data();
    while (hole > 0) {
        const size_t parent = (hole - 1) / 2;
        if (!before(key, heap[parent])) break;
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = key;
}

Scheduler::Key Scheduler::pop() {
    EOSIM_INVARIANT(!heap_.empty(), "a pop from a non-empty queue");
    const Key top = heap_.front();
    const Key last = heap_.back();
    heap_.pop_back();
    const size_t size = heap_.size();
    if (size == 0) return top;
    // Floyd's variant: move the hole down to a leaf along the smaller children, then sift the
    // former last key up from there (it usually belongs near the bottom).
    Key* heap = heap_.data();
    size_t hole = 0;
    for (size_t child = 1; child < size; child = 2 * hole + 1) {
        child += (child + 1 < size && before(heap[child + 1], heap[child])) ? 1 : 0;
        heap[hole] = heap[child];
        hole = child;
    }
    while (hole > 0) {
        const size_t parent = (hole - 1) / 2;
        if (!before(last, heap[parent])) break;
        heap[hole] = heap[parent];
        hole = parent;
    }
    heap[hole] = last;
    return top;
}

void Scheduler::release(uint32_t slot) {
    Slot& s = slots_[slot];
    s.callback = nullptr;
    s.pending = false;
    ++s.generation;
    free_slots_.push_back(slot);
}

bool Scheduler::cancel(TimerId id) {
    if (!id.valid() || id.slot >= slots_.size()) return false;
    Slot& s = slots_[id.slot];
    EOSIM_INVARIANT(id.generation <= s.generation,
                    "a timer id is never newer than its slot (ids come from schedule)");
    if (s.generation != id.generation || !s.pending) return false;
    s.pending = false;  // the heap key stays; the slot is released when it comes due or is swept
    s.callback = nullptr;
    if (++cancels_since_sweep_ > kSweepMinimum && cancels_since_sweep_ * 2 > heap_.size())
        sweep_cancelled();
    return true;
}

// Drops the keys of cancelled timers and restores the heap property bottom-up (Floyd's heapify).
// A cancelled timer parked on a paused node is not in the heap; it is released on resume, as
// before.
void Scheduler::sweep_cancelled() {
    cancels_since_sweep_ = 0;
    const auto kept_end = std::remove_if(heap_.begin(), heap_.end(), [this](const Key& key) {
        if (slots_[key.slot()].pending) return false;
        release(key.slot());
        return true;
    });
    heap_.erase(kept_end, heap_.end());
    const size_t size = heap_.size();
    Key* heap = heap_.data();
    for (size_t start = size / 2; start-- > 0;) {
        const Key key = heap[start];
        size_t hole = start;
        for (size_t child = 2 * hole + 1; child < size; child = 2 * hole + 1) {
            child += (child + 1 < size && before(heap[child + 1], heap[child])) ? 1 : 0;
            if (!before(heap[child], key)) break;
            heap[hole] = heap[child];
            hole = child;
        }
        heap[hole] = key;
    }
}

[[gnu::flatten]] bool Scheduler::step() {
    if (heap_.empty()) return false;
    const Key key = pop();
    Slot& s = slots_[key.slot()];
    if (!s.pending) {  // cancelled
        release(key.slot());
        return true;
    }
    EOSIM_INVARIANT(static_cast<int64_t>(key.at_ns) >= now_.ns,
                    "time never goes back: events come due in order");
    now_ = Time{static_cast<int64_t>(key.at_ns)};
    if (s.owner != kNoNode) {
        if (!nodes_.is_current(s.owner, s.incarnation)) {
            ++dropped_;
            trace_.record(kDropped, now_, s.owner, s.kind->id);
            release(key.slot());
            return true;
        }
        if (nodes_.state(s.owner) == NodeState::paused) {
            if (parked_.size() <= s.owner) parked_.resize(s.owner + 1);
            parked_[s.owner].push_back(key.slot());
            return true;
        }
    }
    EOSIM_INVARIANT(s.owner == kNoNode || nodes_.state(s.owner) == NodeState::up,
                    "an event runs only on its owner's live, running incarnation");
    ++processed_;
    trace_.record(*s.kind, now_, s.owner, s.digest);
    Callback callback = std::move(s.callback);
    const NodeId owner = s.owner;
    const uint32_t incarnation = s.incarnation;
    release(key.slot());
    run_as(owner, incarnation, callback);
    return true;
}

template <typename Handler>
void Scheduler::run_as(NodeId node, uint32_t incarnation, Handler&& handler) {
    struct Restore {  // also when an exception other than CrashUnwind leaves the handler
        Running& running;
        Running outer;
        ~Restore() { running = outer; }
    } restore{running_, running_};
    running_ = Running{node, incarnation, false};
    try {
        handler();
    } catch (const CrashUnwind& unwind) {
        // Thrown only for the running node, which is down: nothing of the handler runs on.
        if (unwind.node != node || nodes_.is_current(node, incarnation))
            throw std::logic_error(
                "scheduler: a crash unwind of a node that is not the running one");
        return;
    }
    if (running_.pause_pending && nodes_.is_current(node, incarnation))
        nodes_.set_paused(node, true);
}

void Scheduler::run_until(Time limit, const std::function<bool()>& stop) {
    while (!heap_.empty() && static_cast<int64_t>(heap_.front().at_ns) <= limit.ns) {
        if (stop && stop()) return;
        step();
    }
}

void Scheduler::crash(NodeId id) {
    nodes_.crash(id);
    if (id < parked_.size()) {
        for (uint32_t slot : parked_[id]) release(slot);
        parked_[id].clear();
    }
}

void Scheduler::restart(NodeId id) {
    // NodeTable::restart begins incarnation + 1 and boots it: the boot runs as that incarnation.
    run_as(id, nodes_.incarnation(id) + 1, [this, id] { nodes_.restart(id); });
}

void Scheduler::pause(NodeId id) {
    if (id == running_.node && nodes_.is_current(id, running_.incarnation)) {
        running_.pause_pending = true;
        return;
    }
    nodes_.set_paused(id, true);
}

void Scheduler::resume(NodeId id) {
    if (id == running_.node &&
        running_.pause_pending) {  // resumed before its handler returned: never paused
        running_.pause_pending = false;
        return;
    }
    if (nodes_.state(id) != NodeState::paused) return;
    nodes_.set_paused(id, false);
    if (id >= parked_.size()) return;
    // Parked events come due now, in the order they originally came due.
    for (uint32_t slot : parked_[id]) {
        EOSIM_INVARIANT(
            slots_[slot].owner == id && slots_[slot].incarnation == nodes_.incarnation(id),
            "a parked event belongs to its paused node's current incarnation (a crash releases them)");
        push(now_.ns, slot);
    }
    parked_[id].clear();
}

}  // namespace eosim::sim
