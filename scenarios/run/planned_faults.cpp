#include "scenarios/run/planned_faults.h"

#include "scenarios/fault_types.h"
#include "scenarios/point_reach.h"

namespace eosim::scenarios {

namespace {

// The explicit faults, then those drawn from `prng` (the run's stream "faults").
std::vector<sim::FaultSpec> plan_faults(const Scenario& scenario, sim::Prng prng,
                                        std::optional<FaultDraw>& draw) {
    std::vector<sim::FaultSpec> plan = scenario.faults;
    if (scenario.random_faults) {
        draw = draw_random_faults(*scenario.random_faults, prng);
        plan.insert(plan.end(), draw->faults.begin(), draw->faults.end());
    }
    return plan;
}

}  // namespace

std::vector<sim::FaultSpec> fault_plan(const Scenario& scenario, uint64_t seed) {
    std::optional<FaultDraw> draw;
    return plan_faults(scenario, sim::World::prng_of(seed, kFaultStream), draw);
}

PlannedFaults::PlannedFaults(const Scenario& scenario, RunWorld& run, DeploymentRun& deployments,
                             CoverageTracker& coverage) {
    sim::World& world = run.world;
    std::vector<sim::FaultSpec> plan = plan_faults(scenario, world.prng(kFaultStream), draw_);
    world.on_point([&coverage, &world](const sim::ProtocolPointEvent& event) {
        coverage.point(world.now(), event.point, world.nodes().name(event.node), event.detail);
    });
    sim::OutsideFaults hooks = run.outside.fault_hooks();
    hooks.task_manager_running = [&deployments](const std::string& vertex, int32_t subtask) {
        return deployments.current().task_manager_running(vertex, subtask);
    };
    injector_.emplace(world, std::move(plan), std::move(hooks));
    sim::FaultInjector& injector = *injector_;
    injector.on_fired([&coverage, &injector](const sim::FiredFault& fired) {
        coverage.fault(fired, injector.plan()[fired.plan_index]);
    });
    EffectProbes probes = run.outside.effect_probes();
    probes.load_of = [&deployments](sim::NodeId node) { return deployments.load_of(node); };
    accounting_.emplace(world, injector, scenario.faults.size(), std::move(probes),
                        [](const std::string& point) {
                            const PointAnnouncer* announcer = point_announcer(point);
                            return announcer == nullptr ? std::string("no component")
                                                        : std::string(announcer->component);
                        });
    // at_point's "attempt": 1 + the running deployment's failovers.
    injector.set_attempt([&deployments] { return deployments.current().stats().failovers + 1; });
}

bool PlannedFaults::effect_during(sim::Time from, sim::Time to) const {
    for (const sim::FiredFault& fired : injector_->fired()) {
        if (fired.skipped || fired.at > to) continue;
        const sim::FaultSpec& spec = injector_->plan()[fired.plan_index];
        const std::optional<sim::Duration> lasts = fault_type(spec.kind).effect_length(spec);
        const sim::Time end = lasts ? fired.at + *lasts : sim::Time::never();
        if (end >= from) return true;
    }
    return false;
}

}  // namespace eosim::scenarios
