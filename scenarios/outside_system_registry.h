#pragma once
// The registry of outside systems: one registration per system kind -- Kafka, the append store,
// the document, key-value and object stores, the databases and the coordination service -- with
// its name (also its node's), when a run has it, which generic faults it takes, and how to build
// it. What a built system does for the run it does through `RunSystem`: it hands its model to the
// connectors, wires its fault hooks, feeds its input to the job and the reference model, reads
// what a committed reader sees of a sink writing into it, and adds its figures. No system is named
// in the run's code (scenarios/run/); adding one is its model in sim/external/, a RunSystem and one
// registration in outside_system_registry.cpp.
//
// A run builds the systems it has in registration order, each on a node of its own named after
// it, before the engine's nodes: Kafka and the append store always; a document, key-value or
// object store when the scenario names it (`Scenario::outside_systems`: a fault's "system" or
// nodes, or a sink kind asking through engine::SinkWorld::has_system); a database when the scenario
// has its part (the CDC source's "database", an upsert sink); the coordination service with HA.
// A scenario that uses none of the optional ones adds no node, so its trace hash is unchanged.
//
// Not here: the models themselves (sim/external/), and which sink uses which system (the sink kind
// says so).
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/connectors/outside_systems.h"
#include "engine/connectors/sink_registry.h"
#include "engine/runtime/engine.h"
#include "oracles/record_multiset.h"
#include "oracles/reference_model.h"
#include "scenarios/run_result.h"
#include "scenarios/scenario.h"
#include "sim/fault_injector.h"
#include "sim/world.h"

namespace eosim::scenarios {

// The input the outside systems feed a run: the records of Kafka's input topics and the final rows
// of a source database's tables (what the reference model runs over), and where each source
// partition ends (the bounded input, for the engine).
struct RunInput {
    oracles::ModelInput topics;
    std::map<std::string, std::vector<engine::Record>> tables;
    engine::SourceOffsets end_offsets;
};

// One outside system of a run, built.
class RunSystem {
public:
    virtual ~RunSystem() = default;
    // Hands the model to the connectors and the engine (sets its pointer in `systems`).
    virtual void expose(engine::OutsideSystems& systems) = 0;
    // Its fault hooks: the target of the generic kinds under its name, Kafka its own kinds.
    virtual void add_fault_hooks(sim::OutsideFaults& hooks) = 0;
    virtual void add_input(RunInput& input) const { (void)input; }
    // Its own activity, started before the job (input producers, an application's workload).
    virtual void start() {}
    // What a committed reader of this system sees of `sink`, when the sink writes here and the
    // system reads it faster than sink.read_output; nullopt otherwise.
    virtual std::optional<oracles::RecordMultiset> committed_content(
        const engine::SinkConfig& sink) const {
        (void)sink;
        return std::nullopt;
    }
    virtual void add_figures(RunFigures& figures) const = 0;
    // A digest of what it holds now (its model's content_digest): folded into the run's state hash.
    virtual uint64_t content_digest() const = 0;
    // For the fault accounting (scenarios/fault_accounting.h): the counters that tell whether a
    // fault aimed at this system hit a call -- Kafka's own probes, or its calls failed by a fault
    // under its name in `failed_calls`.
    virtual void add_effect_probes(
        EffectProbes& probes,
        std::map<std::string, std::function<uint64_t()>>& failed_calls) const = 0;
};

struct OutsideSystemRegistration {
    std::string_view name;         // in faults' "system" and as the node's name
    std::string_view description;  // for people (schema, README, error messages)
    // When a run has it; nullptr: when the scenario names it (Scenario::outside_systems).
    bool (*present)(const Scenario& scenario) = nullptr;
    bool generic_faults = false;          // accepts system_unavailable and system_write_errors
    bool partial_batch_failures = false;  // accepts bulk_partial_failure
    // Builds the system on `node`; `world` gives its PRNG streams (world.prng(name)) if it needs
    // them.
    std::unique_ptr<RunSystem> (*make)(const Scenario& scenario, sim::World& world,
                                       sim::NodeId node) = nullptr;
    bool call_races = false;  // accepts system_call_races (sim/external/call_races.h)
};

// Every registered system, in registration order (the order a run builds them in).
const std::vector<OutsideSystemRegistration>& outside_system_registrations();
// nullptr when no system has that name.
const OutsideSystemRegistration* find_outside_system(std::string_view name);
// The systems a scenario may name freely (documents, key_values, objects), in registration order.
std::vector<std::string> optional_outside_system_names();
bool is_optional_outside_system(std::string_view name);
// The systems `scenario` has through its own parts that take the generic faults (its databases, the
// coordination service), in registration order; with `races`, those whose calls can race.
std::vector<std::string> scenario_fault_systems(const Scenario& scenario, bool races = false);

// The outside systems of one run, built in registration order.
class RunOutsideSystems {
public:
    RunOutsideSystems(const Scenario& scenario, sim::World& world);

    // The connectors' and the engine's view of every system.
    const engine::OutsideSystems& systems() const { return systems_; }
    // Every system's fault hooks.
    sim::OutsideFaults fault_hooks() const;
    RunInput input() const;
    void start();
    // What a committed reader sees of `sink` (read by the system that holds it, or read_output).
    oracles::RecordMultiset committed_content(const engine::SinkConfig& sink) const;
    void add_figures(RunFigures& figures) const;
    // What every system holds now, as one hash (each system's content_digest, in registration
    // order): the run's state hash, reported and checked beside the trace hash.
    uint64_t state_hash() const;
    // Every system's effect probes; `probes.load_of` is the caller's to set.
    EffectProbes effect_probes() const;

private:
    std::vector<std::unique_ptr<RunSystem>> built_;
    engine::OutsideSystems systems_;
};

}  // namespace eosim::scenarios
