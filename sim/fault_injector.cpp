#include "sim/fault_injector.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <stdexcept>

namespace eosim::sim {

namespace {

static_assert(static_cast<size_t>(FaultKind::system_call_races) + 1 == kFaultKindCount);

constexpr EventKind kFaultTrigger{"fault.trigger"};
constexpr EventKind kFaultRestart{"fault.restart"};
constexpr EventKind kFaultResume{"fault.resume"};
constexpr EventKind kFaultHeal{"fault.heal"};

// One trace kind per fault kind, indexed by FaultKind; the names are "fault." + to_string(kind).
constexpr EventKind kFaultFired[kFaultKindCount] = {
    EventKind{"fault.crash"},
    EventKind{"fault.pause"},
    EventKind{"fault.partition"},
    EventKind{"fault.slow_link"},
    EventKind{"fault.storage_failure"},
    EventKind{"fault.storage_slow"},
    EventKind{"fault.broker_unavailable"},
    EventKind{"fault.kafka_write_failure"},
    EventKind{"fault.transaction_abort"},
    EventKind{"fault.message_loss"},
    EventKind{"fault.system_unavailable"},
    EventKind{"fault.system_write_errors"},
    EventKind{"fault.bulk_partial_failure"},
    EventKind{"fault.kafka_commit_errors"},
    EventKind{"fault.kafka_commit_outcome_unknown"},
    EventKind{"fault.kafka_produce_ack_lost"},
    EventKind{"fault.system_call_races"},
};

// "12.345s": integer arithmetic, so a report reads the same everywhere.
std::string format_time(Time at) {
    char text[48];
    std::snprintf(text, sizeof text, "%lld.%03llds", static_cast<long long>(at.ns / 1'000'000'000),
                  static_cast<long long>((at.ns / 1'000'000) % 1000));
    return text;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& name : names) out += (out.empty() ? "" : ",") + name;
    return out;
}

bool targets_a_system(FaultKind kind) {
    return kind == FaultKind::system_unavailable || kind == FaultKind::system_write_errors ||
           kind == FaultKind::bulk_partial_failure || kind == FaultKind::system_call_races;
}

bool needs_targets(FaultKind kind) {
    return kind == FaultKind::crash || kind == FaultKind::pause || kind == FaultKind::partition ||
           kind == FaultKind::slow_link;
}

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
        world_.scheduler().schedule_at(at, kNoNode, kFaultTrigger, i, [this, i] { fire(i, kNoNode); });
    }
    if (listens) world_.on_point([this](const ProtocolPointEvent& event) { on_point(event); });
}

NodeId FaultInjector::resolve(const std::string& name, size_t index) const {
    const NodeId id = world_.nodes().find(name);
    if (id == kNoNode) {
        throw std::invalid_argument("fault " + std::to_string(index) + " (" + to_string(plan_[index].kind) +
                                    "): unknown node '" + name + "'");
    }
    return id;
}

void FaultInjector::validate_and_resolve(size_t index) {
    const FaultSpec& spec = plan_[index];
    Armed& armed = armed_[index];
    const std::string what = "fault " + std::to_string(index) + " (" + to_string(spec.kind) + "): ";
    for (const std::string& name : spec.nodes) armed.nodes.push_back(resolve(name, index));
    for (const std::string& name : spec.other_nodes) armed.other_nodes.push_back(resolve(name, index));
    if (!spec.trigger.point_node.empty()) armed.point_node = resolve(spec.trigger.point_node, index);

    const bool at_point = !spec.trigger.point.empty();
    if (!at_point && spec.trigger.at == Time::never()) throw std::invalid_argument(what + "no trigger (time or point)");
    if (at_point && spec.trigger.occurrence < 1) throw std::invalid_argument(what + "occurrence must be at least 1");
    if (spec.trigger.delay < Duration::zero()) throw std::invalid_argument(what + "negative delay");
    if (spec.trigger.attempt_min < 1 || spec.trigger.attempt_max < spec.trigger.attempt_min) {
        throw std::invalid_argument(what + "attempt range must be within [1, max] and not empty");
    }
    const bool announcer_or_task_allowed =
        (at_point || spec.targets_running_task()) &&
        (spec.kind == FaultKind::crash || spec.kind == FaultKind::pause || spec.kind == FaultKind::partition);
    if (spec.targets_running_task()) {
        if (!announcer_or_task_allowed) throw std::invalid_argument(what + "only a crash, pause or partition targets a running task");
        if (!armed.nodes.empty()) throw std::invalid_argument(what + "target nodes or a running task, not both");
        if (!hooks_.task_manager_running) throw std::invalid_argument(what + "no placement hook wired for a running task");
        if (spec.running_subtask < 0) throw std::invalid_argument(what + "negative subtask");
    }
    if (needs_targets(spec.kind) && armed.nodes.empty() && !announcer_or_task_allowed) {
        throw std::invalid_argument(what + "no target nodes");
    }
    if (spec.kind == FaultKind::slow_link && armed.nodes.size() != 2) {
        throw std::invalid_argument(what + "needs exactly two nodes");
    }
    if ((spec.kind == FaultKind::slow_link || spec.kind == FaultKind::storage_slow) && spec.multiplier < 1) {
        throw std::invalid_argument(what + "multiplier must be at least 1");
    }
    if (spec.duration < Duration::zero() || spec.restart_delay < Duration::zero()) {
        throw std::invalid_argument(what + "negative duration");
    }
    const bool hook_missing = (spec.kind == FaultKind::broker_unavailable && !hooks_.broker_unavailable) ||
                              (spec.kind == FaultKind::kafka_write_failure && !hooks_.kafka_write_failure) ||
                              (spec.kind == FaultKind::transaction_abort && !hooks_.transaction_abort) ||
                              (spec.kind == FaultKind::kafka_commit_errors && !hooks_.kafka_commit_errors) ||
                              (spec.kind == FaultKind::kafka_commit_outcome_unknown &&
                               !hooks_.kafka_commit_outcome_unknown) ||
                              (spec.kind == FaultKind::kafka_produce_ack_lost && !hooks_.kafka_produce_ack_lost);
    if (hook_missing) throw std::invalid_argument(what + "no outside-system hook wired for this kind");
    if (targets_a_system(spec.kind)) {
        auto target = hooks_.systems.find(spec.system);
        if (target == hooks_.systems.end() || target->second == nullptr) {
            throw std::invalid_argument(what + "no outside system '" + spec.system + "' in this run");
        }
        if (spec.kind == FaultKind::bulk_partial_failure && !target->second->has_partial_batch_failures()) {
            throw std::invalid_argument(what + "system '" + spec.system + "' has no batch requests");
        }
        if (spec.kind == FaultKind::system_call_races && !target->second->has_call_races()) {
            throw std::invalid_argument(what + "system '" + spec.system + "' has no calls that race");
        }
    }
    if (spec.ratio.denominator == 0 || spec.ratio.numerator > spec.ratio.denominator) {
        throw std::invalid_argument(what + "ratio must be in [0, 1]");
    }
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
            world_.scheduler().schedule(trigger.delay, kNoNode, kFaultTrigger, i, [this, i, announcer] { fire(i, announcer); });
            continue;
        }
        fire(i, event.node);
    }
}

std::vector<std::string> FaultInjector::names(const std::vector<NodeId>& ids) const {
    std::vector<std::string> out;
    for (NodeId id : ids) out.push_back(world_.nodes().name(id));
    return out;
}

void FaultInjector::extend_quiet(Time until) { quiet_since_ = std::max(quiet_since_, until); }

void FaultInjector::fire(size_t index, NodeId announcer) {
    Armed& armed = armed_[index];
    if (armed.fired) return;
    armed.fired = true;
    const FaultSpec& spec = plan_[index];
    const Time now = world_.now();
    FiredFault record{now, spec.kind, index, {}, {}, false, 0};
    extend_quiet(now);

    std::vector<NodeId> targets = armed.nodes;
    if (spec.targets_running_task()) {
        const NodeId running = hooks_.task_manager_running(spec.running_vertex, spec.running_subtask);
        if (running != kNoNode) targets.push_back(running);
    } else if (targets.empty() && announcer != kNoNode &&
               (spec.kind == FaultKind::crash || spec.kind == FaultKind::pause || spec.kind == FaultKind::partition)) {
        targets.push_back(announcer);
    }
    for (const FiringObserver& observer : firing_observers_) observer(index, targets);
    const std::string until = format_time(now + spec.duration);
    if (spec.targets_running_task() && targets.empty()) {
        record.skipped = true;
        record.action = "no target: no attempt deployed runs " + spec.running_vertex + "-" + std::to_string(spec.running_subtask);
    } else switch (spec.kind) {
        case FaultKind::crash: fire_crash(spec, targets, record); break;
        case FaultKind::pause: fire_pause(spec, targets, record); break;
        case FaultKind::partition: fire_partition(spec, targets, armed.other_nodes, record); break;
        case FaultKind::slow_link:
            world_.network().slow_link(targets[0], targets[1], spec.multiplier, spec.duration);
            record.nodes = names(targets);
            record.action = "latency x" + std::to_string(spec.multiplier) + " until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::storage_failure:
            world_.storage().fail_until(now + spec.duration);
            record.action = "durable storage fails until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::storage_slow:
            world_.storage().slow_until(now + spec.duration, spec.multiplier);
            record.action = "durable storage latency x" + std::to_string(spec.multiplier) + " until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::broker_unavailable:
            hooks_.broker_unavailable(now + spec.duration);
            record.action = "broker unavailable until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::kafka_write_failure:
            hooks_.kafka_write_failure(now + spec.duration);
            record.action = "Kafka writes fail until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::transaction_abort:
            hooks_.transaction_abort();
            record.action = "broker aborted every open transaction";
            break;
        case FaultKind::kafka_commit_errors:
            hooks_.kafka_commit_errors(now + spec.duration);
            record.action = "Kafka commits and aborts fail (retriable) until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::kafka_commit_outcome_unknown:
            hooks_.kafka_commit_outcome_unknown(now + spec.duration);
            record.action = "Kafka commits and aborts applied but answered with a timeout until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::kafka_produce_ack_lost:
            hooks_.kafka_produce_ack_lost(now + spec.duration);
            record.action = "Kafka produce requests written, every other answer lost until " + until;
            extend_quiet(now + spec.duration);
            break;
        case FaultKind::system_unavailable:
        case FaultKind::system_write_errors:
        case FaultKind::bulk_partial_failure:
        case FaultKind::system_call_races: fire_outside_system(spec, record); break;
        case FaultKind::message_loss: {
            std::vector<uint64_t> kinds;
            std::string names;
            for (const std::string& message : spec.messages) {
                kinds.push_back(stable_hash(message));
                names += (names.empty() ? "" : ", ") + message;
            }
            record.handle = world_.network().lose_datagrams(std::move(kinds), spec.ratio, now + spec.duration);
            record.action = "lose " + std::to_string(spec.ratio.numerator) + "/" + std::to_string(spec.ratio.denominator) +
                            " of " + names + " until " + until;
            extend_quiet(now + spec.duration);
            break;
        }
    }

    uint64_t digest = digest_mix(index, record.skipped ? 1 : 0);
    for (const std::string& name : record.nodes) digest = digest_mix(digest, digest_of(name));
    if (!spec.system.empty()) digest = digest_mix(digest, digest_of(spec.system));
    const NodeId traced_node = targets.size() == 1 ? targets[0] : kNoNode;
    world_.trace().record(kFaultFired[static_cast<size_t>(spec.kind)], now, traced_node, digest);
    ++counts_[static_cast<size_t>(spec.kind)];
    if (record.skipped) ++skipped_count_;
    fired_.push_back(std::move(record));
    for (const auto& observer : fired_observers_) observer(fired_.back());
}

void FaultInjector::fire_outside_system(const FaultSpec& spec, FiredFault& record) {
    OutsideFaultTarget& target = *hooks_.systems.at(spec.system);
    const Time until = world_.now() + spec.duration;
    switch (spec.kind) {
        case FaultKind::system_unavailable:
            target.set_unavailable_until(until);
            record.action = spec.system + " unavailable until " + format_time(until);
            break;
        case FaultKind::system_write_errors:
            target.set_write_errors_until(until);
            record.action = spec.system + " writes fail until " + format_time(until);
            break;
        case FaultKind::bulk_partial_failure:
            target.set_partial_batch_failure(spec.ratio, until);
            record.action = spec.system + " batch items fail with " + std::to_string(spec.ratio.numerator) + "/" +
                            std::to_string(spec.ratio.denominator) + " until " + format_time(until);
            break;
        case FaultKind::system_call_races:
            target.set_call_races(spec.ratio, until, world_.prng("call_races/" + spec.system + "/" + format_time(world_.now())));
            record.action = spec.system + " writes race with " + std::to_string(spec.ratio.numerator) + "/" +
                            std::to_string(spec.ratio.denominator) + " until " + format_time(until);
            break;
        default: assert(false && "not an outside-system kind");
    }
    extend_quiet(until);
}

void FaultInjector::fire_crash(const FaultSpec& spec, const std::vector<NodeId>& targets, FiredFault& record) {
    record.nodes = names(targets);
    if (targets.empty()) {
        record.skipped = true;
        record.action = "no target: the point was announced by no node";
        return;
    }
    bool crashed_any = false;
    for (NodeId node : targets) {
        const std::string& name = world_.nodes().name(node);
        if (!record.action.empty()) record.action += "; ";
        if (!world_.nodes().is_up(node)) {
            record.action += name + " already down (skipped)";
            continue;
        }
        world_.scheduler().crash(node);
        crashed_any = true;
        record.action += "crashed " + name;
        if (!spec.restart) continue;
        const Time restart_at = world_.now() + spec.restart_delay;
        record.action += ", restart at " + format_time(restart_at);
        extend_quiet(restart_at);
        world_.scheduler().schedule_at(restart_at, kNoNode, kFaultRestart, node, [this, node] {
            if (world_.nodes().state(node) == NodeState::down) world_.scheduler().restart(node);
        });
    }
    record.skipped = !crashed_any;
}

void FaultInjector::fire_pause(const FaultSpec& spec, const std::vector<NodeId>& targets, FiredFault& record) {
    record.nodes = names(targets);
    if (targets.empty()) {
        record.skipped = true;
        record.action = "no target: the point was announced by no node";
        return;
    }
    bool paused_any = false;
    const Time resume_at = world_.now() + spec.duration;
    for (NodeId node : targets) {
        const std::string& name = world_.nodes().name(node);
        if (!record.action.empty()) record.action += "; ";
        if (world_.scheduler().state(node) != NodeState::up) {  // a pause waiting for its handler counts
            record.action += name + " not running (skipped)";
            continue;
        }
        world_.scheduler().pause(node);
        paused_any = true;
        record.action += "paused " + name + " until " + format_time(resume_at);
        world_.scheduler().schedule_at(resume_at, kNoNode, kFaultResume, node,
                                       [this, node] { world_.scheduler().resume(node); });
    }
    if (paused_any) extend_quiet(resume_at);
    record.skipped = !paused_any;
}

void FaultInjector::fire_partition(const FaultSpec& spec, const std::vector<NodeId>& side_a,
                                   const std::vector<NodeId>& other_nodes, FiredFault& record) {
    std::vector<NodeId> side_b;
    for (NodeId id : other_nodes) {
        if (std::find(side_a.begin(), side_a.end(), id) == side_a.end()) side_b.push_back(id);
    }
    if (other_nodes.empty()) {  // every other node of the world
        for (NodeId id = 0; id < world_.nodes().size(); ++id) {
            if (std::find(side_a.begin(), side_a.end(), id) == side_a.end()) side_b.push_back(id);
        }
    }
    if (side_b.empty()) {  // the announcer is the other side itself: nothing to cut
        record.skipped = true;
        record.nodes = names(side_a);
        record.action = "skipped: the announcing node is on both sides of the partition";
        return;
    }
    record.nodes = names(side_a);
    const std::vector<std::string> other = names(side_b);
    record.nodes.insert(record.nodes.end(), other.begin(), other.end());
    const Time heal_at = world_.now() + spec.duration;
    const PartitionId partition = world_.network().partition(side_a, side_b, spec.one_way);
    record.handle = partition;
    record.action = "partitioned {" + join(names(side_a)) + "} " + (spec.one_way ? "-/->" : "<-/->") + " {" +
                    join(other) + "} until " + format_time(heal_at);
    extend_quiet(heal_at);
    world_.scheduler().schedule_at(heal_at, kNoNode, kFaultHeal, partition,
                                   [this, partition] { world_.network().heal(partition); });
}

}  // namespace eosim::sim
