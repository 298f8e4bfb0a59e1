// The network fault types: partition, slow_link, message_loss (scenarios/fault_types.h). Their
// firings: sim/faults/network_faults.cpp.
#include <algorithm>

#include "scenarios/fault_json.h"
#include "scenarios/faults/builtin_fault_types.h"

namespace eosim::scenarios {

namespace {

bool lists(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

class PartitionType final : public FaultType {
public:
    std::string timeline_lane() const override { return "network"; }
    PartitionType() : FaultType(builtin_firing(sim::FaultKind::partition)) {}

    // Scheduled, it names the other side; drawn, how often a TaskManager is cut from the JobManager
    // only.
    std::vector<std::string> keys(FaultUse use) const override {
        if (use == FaultUse::drawn) return {"nodes", "duration", "one_way", "job_manager_cut"};
        return {"nodes", "duration", "one_way", "task_manager_running", "other_nodes"};
    }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        if (!fault.targets_running_task()) j["nodes"] = fault.nodes;
        if (!fault.other_nodes.empty()) j["other_nodes"] = fault.other_nodes;
        j["one_way"] = fault.one_way;
        j["duration"] = format_duration_exact(fault.duration);
    }
    std::vector<std::string> candidate_nodes(int32_t task_managers) const override {
        std::vector<std::string> nodes{"jobmanager"};
        for (const std::string& tm : FaultType::candidate_nodes(task_managers)) nodes.push_back(tm);
        return nodes;
    }
    DurationRange default_duration() const override {
        return {sim::Duration::millis(200), sim::Duration::seconds(5)};
    }
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        draw_sides(kind, fault, prng);
        fault.duration = draw_duration(kind.duration, prng);
        return fault.duration;
    }
    CoverageNodes coverage_nodes() const override { return CoverageNodes::cut_off; }
    bool counter_per_fault() const override { return true; }
    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        if (c.fired == nullptr || c.fired->skipped) return 0;
        return static_cast<int64_t>(c.world.network().partition_hits(c.fired->handle));
    }
    std::string hit_unit() const override { return "messages or connections cut"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "nothing crossed it: the nodes exchanged no message while it lasted";
    }

private:
    static void draw_sides(const RandomFaultKind& kind, sim::FaultSpec& fault, sim::Prng& prng) {
        fault.nodes = {pick(kind.nodes, prng)};
        // `job_manager_cut` of the partitions of a TaskManager (when the JobManager is a candidate
        // too) cut it off from the JobManager only, one way: what it sends to the JobManager is
        // lost, while the JobManager, Kafka and the other TaskManagers still reach it. The
        // JobManager drops it and fails over; its tasks run on and write -- a zombie -- until it
        // misses the JobManager's heartbeats.
        if (fault.nodes.front().rfind("tm", 0) == 0 && lists(kind.nodes, "jobmanager") &&
            prng.chance(kind.job_manager_cut)) {
            fault.other_nodes = {"jobmanager"};
            fault.one_way = true;
            return;
        }
        std::vector<std::string> others;
        for (const std::string& node : kind.nodes) {
            if (node != fault.nodes.front()) others.push_back(node);
        }
        // Half of the partitions cut one node from everything else, half from one other node.
        if (!others.empty() && prng.chance(sim::Ratio{1, 2}))
            fault.other_nodes = {pick(others, prng)};
        fault.one_way = prng.chance(kind.one_way);
    }
};

class SlowLinkType final : public FaultType {
public:
    std::string timeline_lane() const override { return "network"; }
    SlowLinkType() : FaultType(builtin_firing(sim::FaultKind::slow_link)) {}

    std::vector<std::string> keys(FaultUse) const override {
        return {"nodes", "multiplier", "duration"};
    }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        j["nodes"] = fault.nodes;
        j["multiplier"] = fault.multiplier;
        j["duration"] = format_duration_exact(fault.duration);
    }
    std::vector<std::string> candidate_nodes(int32_t task_managers) const override {
        std::vector<std::string> nodes{"jobmanager"};
        for (const std::string& tm : FaultType::candidate_nodes(task_managers)) nodes.push_back(tm);
        nodes.push_back("kafka");
        return nodes;
    }
    DurationRange default_duration() const override {
        return {sim::Duration::millis(500), sim::Duration::seconds(5)};
    }
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        const size_t first = prng.below(kind.nodes.size());
        size_t second = prng.below(kind.nodes.size() - 1);
        if (second >= first) ++second;
        fault.nodes = {kind.nodes[first], kind.nodes[second]};
        fault.multiplier =
            static_cast<uint32_t>(prng.between(kind.multiplier.min, kind.multiplier.max));
        fault.duration = draw_duration(kind.duration, prng);
        return fault.duration;
    }
    // Counted per link over every slow fault on it (a later one on the same link replaces the
    // earlier).
    int64_t counter(const FaultCounters& c, const sim::FaultSpec& spec) const override {
        if (c.fired == nullptr) return 0;
        const sim::NodeId a = c.world.nodes().find(spec.nodes[0]);
        const sim::NodeId b = c.world.nodes().find(spec.nodes[1]);
        return static_cast<int64_t>(c.world.network().slow_link_hits(a, b));
    }
    std::string hit_unit() const override { return "messages slowed"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no message travelled the link while it was slow";
    }
};

class MessageLossType final : public FaultType {
public:
    std::string timeline_lane() const override { return "network"; }
    MessageLossType() : FaultType(builtin_firing(sim::FaultKind::message_loss)) {}

    std::vector<std::string> keys(FaultUse) const override {
        return {"messages", "ratio", "duration"};
    }
    bool reads_messages() const override { return true; }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        j["messages"] = fault.messages;
        j["ratio"] = ratio_text(fault.ratio);
        j["duration"] = format_duration_exact(fault.duration);
    }
    DurationRange default_duration() const override {
        return {sim::Duration::millis(500), sim::Duration::seconds(5)};
    }
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        for (const std::string& message : kind.messages) {
            if (prng.chance(sim::Ratio{1, 2})) fault.messages.push_back(message);
        }
        if (fault.messages.empty()) fault.messages.push_back(pick(kind.messages, prng));
        fault.ratio = draw_ratio(kind.ratio, prng);
        fault.duration = draw_duration(kind.duration, prng);
        return fault.duration;
    }
    bool counter_per_fault() const override { return true; }
    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        return c.fired == nullptr
                   ? 0
                   : static_cast<int64_t>(c.world.network().loss_rule_hits(c.fired->handle));
    }
    std::string hit_unit() const override { return "datagrams lost"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no datagram of those kinds was sent while it lasted";
    }
};

}  // namespace

const FaultType& partition_type() {
    static const PartitionType type;
    return type;
}

const FaultType& slow_link_type() {
    static const SlowLinkType type;
    return type;
}

const FaultType& message_loss_type() {
    static const MessageLossType type;
    return type;
}

}  // namespace eosim::scenarios
