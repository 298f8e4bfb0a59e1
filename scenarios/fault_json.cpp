#include "scenarios/fault_json.h"

#include <climits>
#include <cstdint>

#include "scenarios/fault_types.h"

namespace eosim::scenarios {

namespace {

struct Unit {
    int64_t ns;
    const char* suffix;
};
constexpr Unit kUnits[] = {{3'600'000'000'000, "h"}, {60'000'000'000, "m"}, {1'000'000'000, "s"},
                           {1'000'000, "ms"},        {1'000, "us"},         {1, "ns"}};

}  // namespace

std::string format_duration_exact(sim::Duration d) {
    for (const Unit& unit : kUnits) {
        if (d.ns != 0 && d.ns % unit.ns == 0) return std::to_string(d.ns / unit.ns) + unit.suffix;
    }
    return "0ms";
}

nlohmann::ordered_json fault_to_json(const sim::FaultSpec& fault) {
    nlohmann::ordered_json j;
    j["kind"] = sim::to_string(fault.kind);
    const sim::FaultTrigger& trigger = fault.trigger;
    if (trigger.point.empty()) {
        j["at"] = format_duration_exact(trigger.at - sim::Time::zero());
    } else {
        nlohmann::ordered_json at_point = {{"point", trigger.point},
                                           {"occurrence", trigger.occurrence}};
        if (!trigger.point_node.empty()) at_point["node"] = trigger.point_node;
        if (!trigger.point_vertex.empty()) at_point["vertex"] = trigger.point_vertex;
        if (trigger.point_subtask >= 0) at_point["subtask"] = trigger.point_subtask;
        if (trigger.delay != sim::Duration::zero())
            at_point["delay"] = format_duration_exact(trigger.delay);
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
    if (fault.targets_running_task()) {
        j["task_manager_running"] = {{"vertex", fault.running_vertex},
                                     {"subtask", fault.running_subtask}};
    }
    fault_type(fault.kind).write(fault, j);
    return j;
}

nlohmann::ordered_json faults_to_json(const std::vector<sim::FaultSpec>& faults) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const sim::FaultSpec& fault : faults) out.push_back(fault_to_json(fault));
    return out;
}

std::string describe_fault(const sim::FaultSpec& fault) { return fault_to_json(fault).dump(); }

}  // namespace eosim::scenarios
