#pragma once
// What a fault kind does to the world when it fires: one `FaultFiring` per kind, registered in
// `FaultFirings` under the kind's name. The injector (sim/fault_injector.h) checks a plan's faults
// and fires them through it, and switches on no kind.
//
// The built-in kinds' firings live in sim/faults/, one file per family (node_faults.cpp: crash,
// pause; network_faults.cpp: partition, slow_link, message_loss; storage_faults.cpp;
// kafka_faults.cpp; system_faults.cpp: the generic outside-system kinds), each registered by one
// line of its family's add_*_firings. Everything else a kind owns (its JSON, its random draw, its
// accounting) is its `FaultType` (scenarios/fault_types.h); a type may bring its own firing (a kind
// outside sim/, e.g. a test's), which registering the type adds here.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/fault_plan.h"
#include "sim/outside_fault_target.h"
#include "sim/world.h"

namespace eosim::sim {

// Hooks into the outside systems, wired by the runner (e.g. to `external::KafkaCluster`).
// A plan that uses a kind whose hook is empty is rejected at construction.
struct OutsideFaults {
    std::function<void(Time until)> broker_unavailable;   // answers nothing until `until`
    std::function<void(Time until)> kafka_write_failure;  // writes fail until `until`
    std::function<void()> transaction_abort;              // aborts every open transaction now
    // The generic kinds' targets, by system name (a plan naming a system not here is rejected).
    std::map<std::string, OutsideFaultTarget*> systems;
    std::function<void(Time until)> kafka_commit_errors;  // EndTxn fails retriably until `until`
    std::function<void(Time until)>
        kafka_commit_outcome_unknown;  // EndTxn applied, answer lost until `until`
    std::function<void(Time until)>
        kafka_produce_ack_lost;  // produce written, every other answer lost until `until`
    // The job's placement (FaultSpec::running_vertex): the TaskManager node the latest attempt
    // deployed runs (vertex, subtask) on, kNoNode when none.
    std::function<NodeId(const std::string& vertex, int32_t subtask)> task_manager_running;
};

struct FiredFault {
    Time at;
    FaultKind kind = FaultKind::crash;
    size_t plan_index = 0;  // position in the plan
    std::vector<std::string>
        nodes;             // target node names (both sides of a partition: nodes, then other_nodes)
    std::string action;    // what it did, for people ("crashed tm1; restart at 5.000s")
    bool skipped = false;  // it fired but had nothing to do (e.g. the node was already down)
    // partition: its PartitionId; message_loss: its loss rule (sim::Network's hit counters).
    uint64_t handle = 0;
};

// "12.345s": integer arithmetic, so a report reads the same everywhere.
std::string fault_time_text(Time at);

// Which nodes a kind acts on (the injector resolves and checks them before the kind fires).
enum class FaultTargets : uint8_t {
    none,               // no node: storage, Kafka, an outside system, datagrams by kind
    link,               // exactly two `nodes`: the ends of a link
    node_or_announcer,  // `nodes`; or, at a protocol point without them, the node that announced
                        // it; or the TaskManager running a task (FaultSpec::running_vertex)
};

// One firing of a fault: what the kind acts on, and where it says what it did.
struct FaultAct {
    World& world;
    const FaultSpec& spec;
    const OutsideFaults& hooks;
    const std::vector<NodeId>&
        targets;  // resolved `nodes` (or the announcer, or the running task's TaskManager)
    const std::vector<NodeId>& other_nodes;  // resolved `other_nodes`
    FiredFault& record;  // its `action`, `nodes`, `skipped`, `handle` are the kind's to fill
    Time& quiet_since;   // the injector's FaultInjector::quiet_since

    Time now() const { return world.now(); }
    Time until() const { return world.now() + spec.duration; }  // when a `duration` effect ends
    // The effect lasts until `end` (a restart, a resume, a heal): the liveness bound counts from
    // there.
    void lasts_until(Time end) { quiet_since = std::max(quiet_since, end); }
    std::vector<std::string> names(const std::vector<NodeId>& ids) const;
};

class FaultFiring {
public:
    FaultFiring(FaultKind kind, FaultTargets targets);
    virtual ~FaultFiring() = default;
    FaultFiring(const FaultFiring&) = delete;
    FaultFiring& operator=(const FaultFiring&) = delete;

    FaultKind kind() const { return kind_; }
    FaultTargets targets() const { return targets_; }
    // The trace event kind of its firings: "fault.<kind>".
    const EventKind& traced_as() const { return traced_as_; }

    // What is wrong with a fault of this kind beyond the injector's common checks (names, trigger,
    // durations, ratio, targets), "" when nothing: e.g. a hook not wired, a multiplier below 1.
    virtual std::string check(const FaultSpec& spec, const OutsideFaults& hooks) const;
    // Acts on the world now; undoing events it schedules are world-owned (owner kNoNode).
    virtual void fire(FaultAct& act) const = 0;

private:
    FaultKind kind_;
    FaultTargets targets_;
    std::string trace_name_;
    EventKind traced_as_;
};

class FaultFirings {
public:
    // The process-wide registry, with the built-in kinds registered on first use.
    static FaultFirings& global();
    // Registers `firing` (which must outlive the registry: a static). Adding the same object again
    // does nothing; another with a taken name throws std::logic_error.
    void add(const FaultFiring& firing);
    const FaultFiring* find(FaultKind kind) const;
    // In registration order.
    std::vector<FaultKind> kinds() const;

private:
    std::vector<const FaultFiring*> firings_;
};

// The built-in families (sim/faults/*.cpp); FaultFirings::global() calls them once, in this order.
void add_node_firings(FaultFirings& registry);
void add_network_firings(FaultFirings& registry);
void add_storage_firings(FaultFirings& registry);
void add_kafka_firings(FaultFirings& registry);
void add_system_firings(FaultFirings& registry);

}  // namespace eosim::sim
