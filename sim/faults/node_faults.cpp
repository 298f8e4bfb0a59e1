// The node fault kinds' firings: crash and pause (sim/fault_firing.h).
#include "sim/fault_firing.h"

namespace eosim::sim {

namespace {

constexpr EventKind kFaultRestart{"fault.restart"};
constexpr EventKind kFaultResume{"fault.resume"};

// Names the targets in the record; true (the fault skipped, and said why) when there are none: a
// point announced by no node.
bool skipped_without_targets(FaultAct& act) {
    act.record.nodes = act.names(act.targets);
    if (!act.targets.empty()) return false;
    act.record.skipped = true;
    act.record.action = "no target: the point was announced by no node";
    return true;
}

// Crashes each target that is up (`Scheduler::crash`); when `restart`, restarts it after
// restart_delay if it is still down then. A target already down is skipped.
class CrashFiring final : public FaultFiring {
public:
    CrashFiring() : FaultFiring(FaultKind::crash, FaultTargets::node_or_announcer) {}

    void fire(FaultAct& act) const override {
        if (skipped_without_targets(act)) return;
        bool crashed_any = false;
        World* world = &act.world;
        for (NodeId node : act.targets) {
            const std::string& name = world->nodes().name(node);
            if (!act.record.action.empty()) act.record.action += "; ";
            if (!world->nodes().is_up(node)) {
                act.record.action += name + " already down (skipped)";
                continue;
            }
            world->scheduler().crash(node);
            crashed_any = true;
            act.record.action += "crashed " + name;
            if (!act.spec.restart) continue;
            const Time restart_at = act.now() + act.spec.restart_delay;
            act.record.action += ", restart at " + fault_time_text(restart_at);
            act.lasts_until(restart_at);
            world->scheduler().schedule_at(restart_at, kNoNode, kFaultRestart, node, [world, node] {
                if (world->nodes().state(node) == NodeState::down) world->scheduler().restart(node);
            });
        }
        act.record.skipped = !crashed_any;
    }
};

// Pauses each target that is running (`Scheduler::pause`) and resumes it after duration.
class PauseFiring final : public FaultFiring {
public:
    PauseFiring() : FaultFiring(FaultKind::pause, FaultTargets::node_or_announcer) {}

    void fire(FaultAct& act) const override {
        if (skipped_without_targets(act)) return;
        bool paused_any = false;
        World* world = &act.world;
        const Time resume_at = act.until();
        for (NodeId node : act.targets) {
            const std::string& name = world->nodes().name(node);
            if (!act.record.action.empty()) act.record.action += "; ";
            if (world->scheduler().state(node) !=
                NodeState::up) {  // a pause waiting for its handler counts
                act.record.action += name + " not running (skipped)";
                continue;
            }
            world->scheduler().pause(node);
            paused_any = true;
            act.record.action += "paused " + name + " until " + fault_time_text(resume_at);
            world->scheduler().schedule_at(resume_at, kNoNode, kFaultResume, node,
                                           [world, node] { world->scheduler().resume(node); });
        }
        if (paused_any) act.lasts_until(resume_at);
        act.record.skipped = !paused_any;
    }
};

}  // namespace

void add_node_firings(FaultFirings& registry) {
    static const CrashFiring crash;
    static const PauseFiring pause;
    registry.add(crash);
    registry.add(pause);
}

}  // namespace eosim::sim
