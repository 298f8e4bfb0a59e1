#include "scenarios/fault_json.h"

#include <climits>
#include <cstdint>

namespace eosim::scenarios {

namespace {

struct Unit {
    int64_t ns;
    const char* suffix;
};
constexpr Unit kUnits[] = {{3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"},
                           {1'000'000, "ms"},        {1'000, "us"},         {1, "ns"}};

std::string format_ratio(sim::Ratio ratio) {
    return std::to_string(ratio.numerator) + "/" + std::to_string(ratio.denominator);
}

}  // namespace

std::string format_duration_exact(sim::Duration d) {
    for (const Unit& unit : kUnits) {
        if (d.ns != 0 && d.ns % unit.ns == 0) return std::to_string(d.ns / unit.ns) + unit.suffix;
    }
    return "0ms";
}

nlohmann::ordered_json fault_to_json(const sim::FaultSpec& fault) {
    using sim::FaultKind;
    nlohmann::ordered_json j;
    j["kind"] = sim::to_string(fault.kind);
    const sim::FaultTrigger& trigger = fault.trigger;
    if (trigger.point.empty()) {
        j["at"] = format_duration_exact(trigger.at - sim::Time::zero());
    } else {
        nlohmann::ordered_json at_point = {{"point", trigger.point}, {"occurrence", trigger.occurrence}};
        if (!trigger.point_node.empty()) at_point["node"] = trigger.point_node;
        if (!trigger.point_vertex.empty()) at_point["vertex"] = trigger.point_vertex;
        if (trigger.point_subtask >= 0) at_point["subtask"] = trigger.point_subtask;
        if (trigger.delay != sim::Duration::zero()) at_point["delay"] = format_duration_exact(trigger.delay);
        if (trigger.filters_attempt()) {
            nlohmann::ordered_json attempt = {{"min", trigger.attempt_min}};
            if (trigger.attempt_max != INT32_MAX) attempt["max"] = trigger.attempt_max;
            at_point["attempt"] = std::move(attempt);
        }
        if (trigger.not_after != sim::Time::never()) {
            at_point["not_after"] = format_duration_exact(trigger.not_after - sim::Time::zero());
        }
        j["at_point"] = std::move(at_point);
    }
    const std::string duration = format_duration_exact(fault.duration);
    if (fault.targets_running_task()) {
        j["task_manager_running"] = {{"vertex", fault.running_vertex}, {"subtask", fault.running_subtask}};
    }
    switch (fault.kind) {
        case FaultKind::crash:
            if (!fault.nodes.empty()) j["nodes"] = fault.nodes;
            j["restart"] = fault.restart;
            j["restart_delay"] = format_duration_exact(fault.restart_delay);
            break;
        case FaultKind::pause:
            if (!fault.nodes.empty()) j["nodes"] = fault.nodes;
            j["duration"] = duration;
            break;
        case FaultKind::partition:
            if (!fault.targets_running_task()) j["nodes"] = fault.nodes;
            if (!fault.other_nodes.empty()) j["other_nodes"] = fault.other_nodes;
            j["one_way"] = fault.one_way;
            j["duration"] = duration;
            break;
        case FaultKind::slow_link:
            j["nodes"] = fault.nodes;
            j["multiplier"] = fault.multiplier;
            j["duration"] = duration;
            break;
        case FaultKind::storage_slow:
            j["multiplier"] = fault.multiplier;
            j["duration"] = duration;
            break;
        case FaultKind::storage_failure:
        case FaultKind::broker_unavailable:
        case FaultKind::kafka_write_failure:
        case FaultKind::kafka_commit_errors:
        case FaultKind::kafka_commit_outcome_unknown:
        case FaultKind::kafka_produce_ack_lost: j["duration"] = duration; break;
        case FaultKind::transaction_abort: break;
        case FaultKind::system_unavailable:
        case FaultKind::system_write_errors:
            j["system"] = fault.system;
            j["duration"] = duration;
            break;
        case FaultKind::bulk_partial_failure:
        case FaultKind::system_call_races:
            j["system"] = fault.system;
            j["ratio"] = format_ratio(fault.ratio);
            j["duration"] = duration;
            break;
        case FaultKind::message_loss:
            j["messages"] = fault.messages;
            j["ratio"] = format_ratio(fault.ratio);
            j["duration"] = duration;
            break;
    }
    return j;
}

nlohmann::ordered_json faults_to_json(const std::vector<sim::FaultSpec>& faults) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const sim::FaultSpec& fault : faults) out.push_back(fault_to_json(fault));
    return out;
}

std::string describe_fault(const sim::FaultSpec& fault) { return fault_to_json(fault).dump(); }

}  // namespace eosim::scenarios
