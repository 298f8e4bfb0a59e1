#pragma once
// Step 3 of a run: the fault plan -- the scenario's explicit faults, then those drawn for this
// seed (from the PRNG stream "faults", so drawing them shifts no other component's randomness) --
// and the injector that fires them at their times and protocol points through the outside
// systems' fault hooks. Coverage hears every point before the injector does, so a fault placed at
// a point sees it, and every fault that fires.
#include <optional>

#include "scenarios/random_faults.h"
#include "scenarios/run/run_world.h"
#include "scenarios/coverage.h"
#include "sim/fault_injector.h"

namespace eosim::scenarios {

class PlannedFaults {
public:
    PlannedFaults(const Scenario& scenario, RunWorld& run, CoverageTracker& coverage);

    sim::FaultInjector& injector() { return *injector_; }
    const sim::FaultInjector& injector() const { return *injector_; }
    // What faults.random drew for this seed; none without it.
    std::optional<FaultDraw>& draw() { return draw_; }
    // Whether the effect of a fault that fired overlaps [from, to]: from its firing to its end (a
    // crash's restart, the end of a duration); a skipped fault had no effect.
    bool effect_during(sim::Time from, sim::Time to) const;

private:
    std::optional<FaultDraw> draw_;
    std::optional<sim::FaultInjector> injector_;  // made once the plan is drawn; never moves
};

}  // namespace eosim::scenarios
