#include "sim/fault_injector.h"

#include <algorithm>
#include <stdexcept>

#include "sim/invariant.h"

namespace eosim::sim {

namespace {

constexpr EventKind kFaultTrigger{"fault.trigger"};

}  // namespace

FaultInjector::FaultInjector(World& world, std::vector<FaultSpec> plan, OutsideFaults hooks)
    : world_(world), plan_(std::move(plan)), hooks_(std::move(hooks)), armed_(plan_.size()) {
    // Everything is checked before anything is armed: a rejected plan leaves no callback behind.
    for (size_t i = 0; i < plan_.size(); ++i) validate_and_resolve(i);
    bool listens = false;
    for (size_t i = 0; i < plan_.size(); ++i) {
        const FaultTrigger& trigger = plan_[i].trigger;
        if (!trigger.point.empty()) {
            listens = true;
            continue;
        }
        const Time at = std::max(trigger.at, world_.now());
        world_.scheduler().schedule_at(at, kNoNode, kFaultTrigger, i,
                                       [this, i] { fire(i, kNoNode); });
    }
    if (listens) world_.on_point([this](const ProtocolPointEvent& event) { on_point(event); });
}

NodeId FaultInjector::resolve(const std::string& name, size_t index) const {
    const NodeId id = world_.nodes().find(name);
    if (id == kNoNode) {
        throw std::invalid_argument("fault " + std::to_string(index) + " (" +
                                    to_string(plan_[index].kind) + "): unknown node '" + name +
                                    "'");
    }
    return id;
}

void FaultInjector::validate_and_resolve(size_t index) {
    const FaultSpec& spec = plan_[index];
    Armed& armed = armed_[index];
    const std::string what = "fault " + std::to_string(index) + " (" + to_string(spec.kind) + "): ";
    armed.firing = FaultFirings::global().find(spec.kind);
    if (armed.firing == nullptr)
        throw std::invalid_argument(what + "no such fault kind is registered");
    for (const std::string& name : spec.nodes) armed.nodes.push_back(resolve(name, index));
    for (const std::string& name : spec.other_nodes)
        armed.other_nodes.push_back(resolve(name, index));
    if (!spec.trigger.point_node.empty())
        armed.point_node = resolve(spec.trigger.point_node, index);
    check_trigger(index, what);
    check_targets(index, what);
    if (spec.duration < Duration::zero() || spec.restart_delay < Duration::zero()) {
        throw std::invalid_argument(what + "negative duration");
    }
    if (spec.ratio.denominator == 0 || spec.ratio.numerator > spec.ratio.denominator) {
        throw std::invalid_argument(what + "ratio must be in [0, 1]");
    }
    const std::string problem = armed.firing->check(spec, hooks_);
    if (!problem.empty()) throw std::invalid_argument(what + problem);
}

void FaultInjector::check_trigger(size_t index, const std::string& what) const {
    const FaultTrigger& trigger = plan_[index].trigger;
    const bool at_point = !trigger.point.empty();
    if (!at_point && trigger.at == Time::never())
        throw std::invalid_argument(what + "no trigger (time or point)");
    if (at_point && trigger.occurrence < 1)
        throw std::invalid_argument(what + "occurrence must be at least 1");
    if (trigger.delay < Duration::zero()) throw std::invalid_argument(what + "negative delay");
    if (trigger.attempt_min < 1 || trigger.attempt_max < trigger.attempt_min) {
        throw std::invalid_argument(what + "attempt range must be within [1, max] and not empty");
    }
}

void FaultInjector::check_targets(size_t index, const std::string& what) const {
    const FaultSpec& spec = plan_[index];
    const Armed& armed = armed_[index];
    const FaultTargets takes = armed.firing->targets();
    const bool announcer_or_task_allowed =
        (!spec.trigger.point.empty() || spec.targets_running_task()) &&
        takes == FaultTargets::node_or_announcer;
    if (spec.targets_running_task()) {
        if (!announcer_or_task_allowed)
            throw std::invalid_argument(what +
                                        "only a crash, pause or partition targets a running task");
        if (!armed.nodes.empty())
            throw std::invalid_argument(what + "target nodes or a running task, not both");
        if (!hooks_.task_manager_running)
            throw std::invalid_argument(what + "no placement hook wired for a running task");
        if (spec.running_subtask < 0) throw std::invalid_argument(what + "negative subtask");
    }
    if (takes != FaultTargets::none && armed.nodes.empty() && !announcer_or_task_allowed) {
        throw std::invalid_argument(what + "no target nodes");
    }
    if (takes == FaultTargets::link && armed.nodes.size() != 2)
        throw std::invalid_argument(what + "needs exactly two nodes");
}

void FaultInjector::on_point(const ProtocolPointEvent& event) {
    for (size_t i = 0; i < plan_.size(); ++i) {
        Armed& armed = armed_[i];
        const FaultTrigger& trigger = plan_[i].trigger;
        if (armed.triggered || trigger.point.empty() || trigger.point != event.point) continue;
        if (armed.point_node != kNoNode && armed.point_node != event.node) continue;
        if (!trigger.point_vertex.empty() && trigger.point_vertex != event.task.vertex) continue;
        if (trigger.point_subtask >= 0 && trigger.point_subtask != event.task.subtask) continue;
        if (trigger.filters_attempt()) {
            const int64_t attempt = attempt_ ? attempt_() : 1;
            if (attempt < trigger.attempt_min || attempt > trigger.attempt_max) continue;
        }
        if (++armed.seen != trigger.occurrence) continue;
        armed.triggered = true;
        armed.triggered_at = world_.now();
        if (world_.now() + trigger.delay > trigger.not_after) {
            armed.fired = true;  // too late: dropped, never fires (it stays pending)
            continue;
        }
        if (trigger.delay > Duration::zero()) {
            const NodeId announcer = event.node;
            world_.scheduler().schedule(trigger.delay, kNoNode, kFaultTrigger, i,
                                        [this, i, announcer] { fire(i, announcer); });
            continue;
        }
        fire(i, event.node);
    }
}

uint64_t FaultInjector::count(FaultKind kind) const {
    auto it = counts_.find(kind.name());
    return it == counts_.end() ? 0 : it->second;
}

std::vector<NodeId> FaultInjector::targets_now(size_t index, NodeId announcer) const {
    const FaultSpec& spec = plan_[index];
    const Armed& armed = armed_[index];
    std::vector<NodeId> targets = armed.nodes;
    if (spec.targets_running_task()) {
        const NodeId running =
            hooks_.task_manager_running(spec.running_vertex, spec.running_subtask);
        if (running != kNoNode) targets.push_back(running);
    } else if (targets.empty() && announcer != kNoNode &&
               armed.firing->targets() == FaultTargets::node_or_announcer) {
        targets.push_back(announcer);
    }
    return targets;
}

void FaultInjector::fire(size_t index, NodeId announcer) {
    Armed& armed = armed_[index];
    if (armed.fired) return;
    armed.fired = true;
    const FaultSpec& spec = plan_[index];
    const Time now = world_.now();
    FiredFault record{now, spec.kind, index, {}, {}, false, 0};
    quiet_since_ = std::max(quiet_since_, now);
    const std::vector<NodeId> targets = targets_now(index, announcer);
    for (const FiringObserver& observer : firing_observers_) observer(index, targets);
    if (spec.targets_running_task() && targets.empty()) {
        record.skipped = true;
        record.action = "no target: no attempt deployed runs " + spec.running_vertex + "-" +
                        std::to_string(spec.running_subtask);
    } else {
        FaultAct act{world_, spec, hooks_, targets, armed.other_nodes, record, quiet_since_};
        armed.firing->fire(act);
    }
    this->record(index, std::move(record), targets);
}

void FaultInjector::record(size_t index, FiredFault record, const std::vector<NodeId>& targets) {
    const FaultSpec& spec = plan_[index];
    uint64_t digest = digest_mix(index, record.skipped ? 1 : 0);
    for (const std::string& name : record.nodes) digest = digest_mix(digest, digest_of(name));
    if (!spec.system.empty()) digest = digest_mix(digest, digest_of(spec.system));
    const NodeId traced_node = targets.size() == 1 ? targets[0] : kNoNode;
    world_.trace().record(armed_[index].firing->traced_as(), record.at, traced_node, digest);
    ++counts_[spec.kind.name()];
    if (record.skipped) ++skipped_count_;
    fired_.push_back(std::move(record));
    for (const auto& observer : fired_observers_) observer(fired_.back());
}

}  // namespace eosim::sim
