#pragma once
// The fault registry: one `FaultType` per fault kind, registered under its name (the "kind" of a
// scenario's fault). A type owns everything that differs between kinds:
// - its firing (what it does to the world): a `sim::FaultFiring`, which the injector finds by name
//   in `sim::FaultFirings` (sim/ cannot include this folder). The built-in kinds' firings live in
//   sim/faults/ so that sim/'s own tests fire them; a type may bring its own (as the test kind in
//   tests/scenarios/test_fault_registry.cpp does), which `FaultTypes::add` registers there too;
// - its JSON: the keys it takes (the loader reads and checks the common ones: nodes, durations,
//   ratios, systems, messages; scenarios/loader/read_faults.cpp) and how it is written back
//   (scenarios/fault_json.cpp);
// - its random draw (faults.random; scenarios/random_faults.h): default ranges and the draw of its
//   own parameters, consuming the PRNG in a fixed order (the golden hashes depend on it);
// - its effect's length (the schedule mutator, the shrinker, the oracles' "a fault's effect
//   overlaps") and its accounting (scenarios/fault_accounting.h): what it hits, how that is
//   counted, why it hit nothing;
// - what it does to its nodes for the coverage tracker (scenarios/coverage.h) and its words in the
//   sink testkit (testkit/contract_harness.cpp).
// Nothing outside a type switches on a kind.
//
// The built-in types live in scenarios/faults/, one file per family (node_fault_types.cpp: crash,
// pause; network_fault_types.cpp: partition, slow_link, message_loss; storage_fault_types.cpp;
// kafka_fault_types.cpp; system_fault_types.cpp), and register in builtin_fault_types.cpp, one
// line each, in the order scenarios list them (the order faults.random draws kinds in: a new kind
// goes last). Adding a kind: a type in its family's file (or a file of its own), its declaration in
// faults/builtin_fault_types.h, one registration line; its firing in sim/faults/ (or in the type).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/fault_accounting.h"
#include "scenarios/random_faults.h"
#include "sim/fault_firing.h"

namespace eosim::scenarios {

// A scheduled fault (faults.schedule) or a drawn kind (faults.random.kinds).
enum class FaultUse : uint8_t { scheduled, drawn };

// Which outside systems a kind's "system" (scheduled) or "systems" (drawn) may name.
enum class SystemTarget : uint8_t {
    none,     // it names none
    any,      // any outside system, or one of the scenario's databases
    batches,  // an outside system with bulk requests
    races,    // an outside system whose calls race (or a database whose calls race)
};

// What a fault that fired does to its nodes, as the coverage tracker (scenarios/coverage.h) sees
// it.
enum class CoverageNodes : uint8_t {
    untouched,  // nothing it tracks per node
    ended,      // their processes end (a crash): what they held is forgotten
    frozen,     // frozen for `duration` (a pause): "<kind>@zombie-resumed" when a failover came
             // meanwhile and they resumed before the run ended
    cut_off,  // cut off for `duration` (a partition): "<kind>@zombie-writes" when a failover came
              // meanwhile and fenced writes were refused
};

// A duration field of a fault the shrinker shortens, and the least it tries (in milliseconds).
struct ShrinkableDuration {
    sim::Duration sim::FaultSpec::*field;
    int64_t least_ms;
};

// What the accounting reads a kind's hits from.
struct FaultCounters {
    sim::World& world;
    const EffectProbes& probes;
    const sim::FiredFault* fired;  // its record once it fired (null before)
};

class FaultType {
public:
    explicit FaultType(const sim::FaultFiring& firing) : firing_(firing) {}
    virtual ~FaultType() = default;
    FaultType(const FaultType&) = delete;
    FaultType& operator=(const FaultType&) = delete;

    sim::FaultKind kind() const { return firing_.kind(); }
    const char* name() const { return kind().name(); }
    const sim::FaultFiring& firing() const { return firing_; }
    sim::FaultTargets targets() const { return firing_.targets(); }

    // --- JSON ---
    // The keys it takes besides "kind", "at", "at_point" (scheduled) or "weight" (drawn).
    virtual std::vector<std::string> keys(FaultUse use) const = 0;
    virtual SystemTarget system_target() const { return SystemTarget::none; }
    virtual bool reads_messages() const { return false; }  // "messages": control messages
    // Its own fields of `fault` as JSON (the common ones, kind and trigger, are written already).
    virtual void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const = 0;

    // --- random draw ---
    // The candidate nodes of a drawn kind that targets nodes, by default: the TaskManagers.
    virtual std::vector<std::string> candidate_nodes(int32_t task_managers) const;
    virtual DurationRange default_duration() const {
        return {sim::Duration::millis(100), sim::Duration::seconds(2)};
    }
    virtual RatioRange default_ratio() const { return {}; }
    // Draws its own parameters into `fault`; returns how long its effect lasts (0: at once).
    virtual sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                               sim::Prng& prng) const = 0;
    // Whether half of those drawn at a point hit whichever node announced it (crash, pause).
    virtual bool drawn_at_announcer() const { return false; }

    // --- its effect ---
    // How long its effect lasts once fired; nullopt: it never ends (a crash without restart).
    virtual std::optional<sim::Duration> effect_length(const sim::FaultSpec& fault) const {
        return fault.duration;
    }
    // Shortens the effect to `limit`.
    virtual void clip_effect(sim::FaultSpec& fault, sim::Duration limit) const {
        fault.duration = limit;
    }
    virtual std::vector<ShrinkableDuration> shrinkable(const sim::FaultSpec&) const {
        return {{&sim::FaultSpec::duration, 1}};
    }

    // --- accounting ---
    // Whether its hits are what ran on its target nodes when it fired (crash, pause) instead of a
    // counter read when its effect ends.
    virtual bool accounts_targets() const { return false; }
    // Whether its counter is its own (starts at zero when it fires) rather than one shared with
    // earlier faults (read before and after).
    virtual bool counter_per_fault() const { return false; }
    // How long after firing its counter is read.
    virtual sim::Duration counted_for(const sim::FaultSpec& fault) const { return fault.duration; }
    virtual int64_t counter(const FaultCounters&, const sim::FaultSpec&) const { return 0; }
    virtual std::string hit_unit() const = 0;  // "hit: 3 <unit>"
    virtual std::string nothing_hit(const sim::FaultSpec& fault) const = 0;

    // --- coverage ---
    virtual CoverageNodes coverage_nodes() const { return CoverageNodes::untouched; }

    // --- reports ---
    // The timeline lane of its bars and marks (reports/timeline_model.cpp); empty: one lane per
    // node it hit (a crash, a pause).
    virtual std::string timeline_lane() const { return "faults"; }

    // --- the sink testkit ---
    virtual std::string testkit_words() const {
        return name();
    }  // "fault: kafka <words> for 500 ms"

private:
    const sim::FaultFiring& firing_;
};

class FaultTypes {
public:
    // The process-wide registry, with the built-in types registered on first use.
    static FaultTypes& global();
    // Registers `type` (which must outlive the registry: a static) and its firing. Adding the same
    // object again does nothing; another with a taken name throws std::logic_error.
    void add(const FaultType& type);
    const FaultType* find(std::string_view name) const;
    // The type of a kind that must be registered (a plan's: the loader took it from here).
    const FaultType& of(sim::FaultKind kind) const;
    // In registration order.
    const std::vector<const FaultType*>& all() const { return types_; }
    std::vector<std::string> names() const;

private:
    std::vector<const FaultType*> types_;
};

// The type of `kind` in the global registry (throws std::logic_error when none).
inline const FaultType& fault_type(sim::FaultKind kind) { return FaultTypes::global().of(kind); }

}  // namespace eosim::scenarios
