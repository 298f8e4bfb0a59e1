// The node fault types: crash and pause (scenarios/fault_types.h). Their firings:
// sim/faults/node_faults.cpp.
#include "scenarios/fault_json.h"
#include "scenarios/faults/builtin_fault_types.h"

namespace eosim::scenarios {

namespace {

// What crashes and pauses share: a target node (or the announcer, or a running task's
// TaskManager), hits counted as what ran there when it fired.
class NodeFaultType : public FaultType {
public:
    using FaultType::FaultType;
    DurationRange default_duration() const override {
        return {sim::Duration::millis(200), sim::Duration::seconds(3)};
    }
    bool drawn_at_announcer() const override { return true; }
    bool accounts_targets() const override { return true; }
    std::string hit_unit() const override { return "tasks or processes"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no task and no JobManager on the node";
    }
    std::string timeline_lane() const override { return ""; }  // each node it hit
};

class CrashType final : public NodeFaultType {
public:
    CrashType() : NodeFaultType(builtin_firing(sim::FaultKind::crash)) {}

    std::vector<std::string> keys(FaultUse use) const override {
        if (use == FaultUse::drawn) return {"nodes", "restart_delay"};
        return {"nodes", "restart_delay", "restart", "task_manager_running"};
    }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        if (!fault.nodes.empty()) j["nodes"] = fault.nodes;
        j["restart"] = fault.restart;
        j["restart_delay"] = format_duration_exact(fault.restart_delay);
    }
    // A drawn crash always restarts; its effect lasts until the restart.
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        fault.nodes = {pick(kind.nodes, prng)};
        fault.restart = true;
        fault.restart_delay = draw_duration(kind.restart_delay, prng);
        return fault.restart_delay;
    }
    std::optional<sim::Duration> effect_length(const sim::FaultSpec& fault) const override {
        if (!fault.restart) return std::nullopt;
        return fault.restart_delay;
    }
    void clip_effect(sim::FaultSpec& fault, sim::Duration limit) const override {
        fault.restart_delay = limit;
    }
    CoverageNodes coverage_nodes() const override { return CoverageNodes::ended; }
    std::vector<ShrinkableDuration> shrinkable(const sim::FaultSpec& fault) const override {
        if (!fault.restart) return {};
        return {{&sim::FaultSpec::restart_delay, 0}};
    }
};

class PauseType final : public NodeFaultType {
public:
    PauseType() : NodeFaultType(builtin_firing(sim::FaultKind::pause)) {}

    std::vector<std::string> keys(FaultUse use) const override {
        if (use == FaultUse::drawn) return {"nodes", "duration"};
        return {"nodes", "duration", "task_manager_running"};
    }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        if (!fault.nodes.empty()) j["nodes"] = fault.nodes;
        j["duration"] = format_duration_exact(fault.duration);
    }
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        fault.nodes = {pick(kind.nodes, prng)};
        fault.duration = draw_duration(kind.duration, prng);
        return fault.duration;
    }
    CoverageNodes coverage_nodes() const override { return CoverageNodes::frozen; }
};

}  // namespace

const FaultType& crash_type() {
    static const CrashType type;
    return type;
}

const FaultType& pause_type() {
    static const PauseType type;
    return type;
}

}  // namespace eosim::scenarios
