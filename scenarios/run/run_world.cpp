#include "scenarios/run/run_world.h"

namespace eosim::scenarios {

RunWorld::RunWorld(const Scenario& scenario, const RunOptions& options)
    : world(sim::WorldOptions{options.seed, scenario.world.network, scenario.world.storage}),
      outside(scenario, world),
      input(outside.input()),
      services{outside.systems(), input.end_offsets},
      model(scenario.job, std::move(input.topics), std::move(input.tables)) {
    world.trace().set_log(options.trace_log);
}

engine::HighAvailability high_availability(const Scenario& scenario,
                                           const engine::OutsideSystems& systems) {
    engine::HighAvailability ha;
    ha.without_ha = scenario.without_ha;
    if (!scenario.high_availability) return ha;
    ha.service = systems.coordination;
    ha.job_managers = scenario.high_availability->job_managers;
    ha.session_timeout = scenario.high_availability->session_timeout;
    ha.tolerate_suspended_connections = scenario.high_availability->tolerate_suspended_connections;
    ha.tell_leader_loss = scenario.high_availability->tell_leader_loss;
    return ha;
}

}  // namespace eosim::scenarios
