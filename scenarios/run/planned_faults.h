#pragma once
// Step 3 of a run: the fault plan -- the scenario's explicit faults, then those drawn for this
// seed (from the PRNG stream "faults", so drawing them shifts no other component's randomness) --
// and the injector that fires them at their times and protocol points through the outside
// systems' fault hooks. Coverage hears every point before the injector does, so a fault placed at
// a point sees it, and every fault that fires. The accounting (scenarios/fault_accounting.h)
// watches every planned fault to the end of the run: fired with an effect, without, or never.
#include <optional>
#include <string>
#include <vector>

#include "scenarios/coverage.h"
#include "scenarios/deployment_run.h"
#include "scenarios/fault_accounting.h"
#include "scenarios/random_faults.h"
#include "scenarios/run/run_world.h"
#include "sim/fault_injector.h"

namespace eosim::scenarios {

// The PRNG stream the random faults are drawn from.
inline constexpr const char* kFaultStream = "faults";

// The plan a run of `scenario` with `seed` follows, known without running it: the explicit faults,
// then those faults.random draws for the seed. The shrinker needs it for a run that never ends (one
// that broke an engine invariant).
std::vector<sim::FaultSpec> fault_plan(const Scenario& scenario, uint64_t seed);

class PlannedFaults {
public:
    PlannedFaults(const Scenario& scenario, RunWorld& run, DeploymentRun& deployments,
                  CoverageTracker& coverage);

    sim::FaultInjector& injector() { return *injector_; }
    const sim::FaultInjector& injector() const { return *injector_; }
    // What faults.random drew for this seed; none without it.
    std::optional<FaultDraw>& draw() { return draw_; }
    // Whether the effect of a fault that fired overlaps [from, to]: from its firing to its end (a
    // crash's restart, the end of a duration); a skipped fault had no effect.
    bool effect_during(sim::Time from, sim::Time to) const;
    // Before every event: the accounting reads the counters of faults whose effect just ended.
    void tick() { accounting_->tick(); }
    // After the run (`run_end`: how it ended): one account per planned fault, in plan order.
    std::vector<FaultAccount> accounts(const std::string& run_end) {
        return accounting_->finish(run_end);
    }

private:
    std::optional<FaultDraw> draw_;
    std::optional<sim::FaultInjector> injector_;  // made once the plan is drawn; never moves
    std::optional<FaultAccounting> accounting_;   // watches the run, never changes it
};

}  // namespace eosim::scenarios
