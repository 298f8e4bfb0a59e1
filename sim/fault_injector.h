#pragma once
// Carries out a fault schedule (`FaultSpec`s) in a world: arms every fault at construction, fires
// each one at most once, undoes it when its duration ends, and keeps a record of what it did.
//
// Triggers:
// - at a virtual time: a world-owned scheduler event (owner kNoNode), so no crash can drop it;
// - at the k-th announcement of a protocol point (optionally counting only announcements by
//   `point_node`, by a task of `point_vertex`, by subtask `point_subtask`, in the job's attempts
//   `attempt_min..attempt_max`): a `World::on_point` listener. A crash or pause there with no
//   target nodes hits the announcing node: a crash before the announced step (no code of the
//   crashed incarnation runs after the announcement: `World::announce` unwinds the running
//   handler), a pause when the running handler returns (sim/scheduler.h, "The crash boundary");
//   with `trigger.delay`, a world-owned event fires it that long after the announcement (a crash
//   then still hits the announcer, whatever it does by then). When the fault would fire after
//   `trigger.not_after`, it is dropped (it stays pending), so that a random schedule can promise
//   that every effect ends before its quiet period.
//
// Actions (and their undo, scheduled as world-owned events) are the kinds' own: each kind's
// `FaultFiring`, found by name in `FaultFirings::global()` (sim/fault_firing.h; the built-in kinds'
// in sim/faults/). The injector checks what every fault has in common (node names, trigger,
// durations, ratio, the targets its kind takes), resolves the targets and records what fired;
// it switches on no kind. Targets: `nodes`; at a point without them, the announcer (the kinds
// that take one: crash, pause, partition); or, for those, the TaskManager running a subtask
// (`FaultSpec::running_vertex`), looked up through `OutsideFaults::task_manager_running` when the
// fault fires (skipped when no attempt has been deployed).
//
// Every firing is recorded (`fired()`), counted, and folded into the trace as an event of kind
// "fault.<kind>". Deterministic: faults are kept and visited in plan order.
//
// Not done here: choosing faults at random (a plan is explicit), and checking a plan against a
// scenario (the loader does that; here an unknown node name throws std::invalid_argument).
//
// Lifetime: the injector registers callbacks that point to it with the world's scheduler and
// point hook; it must outlive every later step of the world and must not move.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/fault_firing.h"
#include "sim/fault_plan.h"
#include "sim/world.h"

namespace eosim::sim {

class FaultInjector {
public:
    FaultInjector(World& world, std::vector<FaultSpec> plan, OutsideFaults hooks);
    FaultInjector(const FaultInjector&) = delete;
    FaultInjector& operator=(const FaultInjector&) = delete;

    const std::vector<FaultSpec>& plan() const { return plan_; }
    const std::vector<FiredFault>& fired() const { return fired_; }
    // Called with each record right after its fault fired (e.g. coverage tracking). Observers must
    // not change the world.
    void on_fired(std::function<void(const FiredFault&)> observer) {
        fired_observers_.push_back(std::move(observer));
    }
    // Called right before fault `index` acts on `targets` (its resolved target nodes; the
    // announcer for a crash, pause or partition at a point without nodes), e.g. to see what a
    // crash is about to hit. Observers must not change the world.
    using FiringObserver = std::function<void(size_t index, const std::vector<NodeId>& targets)>;
    void on_firing(FiringObserver observer) { firing_observers_.push_back(std::move(observer)); }

    // Where the job's attempt comes from for `FaultTrigger::attempt_min/max` (the runner's: 1 +
    // the running deployment's failovers); unset, every announcement is of attempt 1.
    void set_attempt(std::function<int64_t()> attempt) { attempt_ = std::move(attempt); }
    // A point fault's progress: announcements that matched its filters so far, and when the k-th
    // came (Time::never() before).
    struct PointProgress {
        int32_t seen = 0;
        Time triggered_at = Time::never();
    };
    PointProgress progress(size_t index) const {
        return {armed_[index].seen, armed_[index].triggered_at};
    }

    // Faults that fired (skipped ones included) / that fired and did something / skipped.
    uint64_t fired_count() const { return fired_.size(); }
    uint64_t injected_count() const { return fired_.size() - skipped_count_; }
    uint64_t skipped_count() const { return skipped_count_; }
    // Faults of one kind that fired (skipped ones included).
    uint64_t count(FaultKind kind) const;
    // Faults of the plan that have not fired (yet): a point that was never announced often enough.
    uint64_t pending_count() const { return plan_.size() - fired_.size(); }
    // When the effects of every fault fired so far end (restart, resume, heal, end of a period);
    // Time::zero() when nothing fired. The liveness bound counts from here.
    Time quiet_since() const { return quiet_since_; }

private:
    struct Armed {
        std::vector<NodeId> nodes;        // resolved FaultSpec::nodes
        std::vector<NodeId> other_nodes;  // resolved FaultSpec::other_nodes
        NodeId point_node = kNoNode;      // resolved FaultTrigger::point_node
        int32_t seen = 0;                 // announcements of the point counted so far
        bool triggered =
            false;  // its point's k-th announcement came (it fires now, or after `delay`)
        Time triggered_at = Time::never();
        bool fired = false;
        const FaultFiring* firing = nullptr;  // its kind's
    };

    void validate_and_resolve(size_t index);
    NodeId resolve(const std::string& name, size_t index) const;
    void on_point(const ProtocolPointEvent& event);
    // Carries out fault `index`; `announcer` is the node that announced its point (or kNoNode).
    void fire(size_t index, NodeId announcer);
    void check_trigger(size_t index, const std::string& what) const;
    void check_targets(size_t index, const std::string& what) const;
    // Fault `index`'s target nodes when it fires (see Targets above).
    std::vector<NodeId> targets_now(size_t index, NodeId announcer) const;
    void record(size_t index, FiredFault record, const std::vector<NodeId>& targets);

    World& world_;
    std::vector<FaultSpec> plan_;
    OutsideFaults hooks_;
    std::vector<Armed> armed_;
    std::vector<FiredFault> fired_;
    std::vector<std::function<void(const FiredFault&)>> fired_observers_;
    std::vector<FiringObserver> firing_observers_;
    std::function<int64_t()> attempt_;
    std::map<std::string, uint64_t> counts_;  // by kind name
    uint64_t skipped_count_ = 0;
    Time quiet_since_ = Time::zero();
};

}  // namespace eosim::sim
