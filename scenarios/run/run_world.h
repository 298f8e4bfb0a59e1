#pragma once
// Step 1 of a run: the world. The simulator seeded for the run, every outside system the scenario
// has (scenarios/outside_system_registry.h), what the engine reaches of them, and the reference
// model over the input they feed the job.
#include "engine/runtime/engine.h"
#include "oracles/reference_model.h"
#include "scenarios/outside_system_registry.h"
#include "scenarios/run_result.h"
#include "scenarios/scenario.h"
#include "sim/world.h"

namespace eosim::scenarios {

struct RunWorld {
    sim::World world;
    RunOutsideSystems outside;
    RunInput input;  // its records and tables move into the model; its end offsets stay
    engine::EngineServices services;
    oracles::ReferenceModel model;

    RunWorld(const Scenario& scenario, const RunOptions& options);
};

// The engine's JobManager high availability: the scenario's settings and the coordination service.
engine::HighAvailability high_availability(const Scenario& scenario,
                                           const engine::OutsideSystems& systems);

}  // namespace eosim::scenarios
