// The generic outside-system fault kinds' firings: each acts on the `OutsideFaultTarget` registered
// under the fault's `system` (`OutsideFaults::systems`; sim/outside_fault_target.h).
#include "sim/fault_firing.h"

namespace eosim::sim {

namespace {

std::string ratio_text(Ratio ratio) {
    return std::to_string(ratio.numerator) + "/" + std::to_string(ratio.denominator);
}

// The common part: the named system must be in the run (and take the kind, `takes`).
class SystemFiring : public FaultFiring {
public:
    explicit SystemFiring(FaultKind kind) : FaultFiring(kind, FaultTargets::none) {}

    std::string check(const FaultSpec& spec, const OutsideFaults& hooks) const override {
        auto target = hooks.systems.find(spec.system);
        if (target == hooks.systems.end() || target->second == nullptr)
            return "no outside system '" + spec.system + "' in this run";
        return takes(spec.system, *target->second);
    }
    void fire(FaultAct& act) const override {
        act.record.action = act.spec.system + " " +
                            act_on(*act.hooks.systems.at(act.spec.system), act) + " until " +
                            fault_time_text(act.until());
        act.lasts_until(act.until());
    }

protected:
    // "" when `target` takes this kind, else why not.
    virtual std::string takes(const std::string&, const OutsideFaultTarget&) const { return ""; }
    // Acts on `target` until act.until(); returns what it did ("unavailable").
    virtual std::string act_on(OutsideFaultTarget& target, FaultAct& act) const = 0;
};

class SystemUnavailableFiring final : public SystemFiring {
public:
    SystemUnavailableFiring() : SystemFiring(FaultKind::system_unavailable) {}

protected:
    std::string act_on(OutsideFaultTarget& target, FaultAct& act) const override {
        target.set_unavailable_until(act.until());
        return "unavailable";
    }
};

class SystemWriteErrorsFiring final : public SystemFiring {
public:
    SystemWriteErrorsFiring() : SystemFiring(FaultKind::system_write_errors) {}

protected:
    std::string act_on(OutsideFaultTarget& target, FaultAct& act) const override {
        target.set_write_errors_until(act.until());
        return "writes fail";
    }
};

class BulkPartialFailureFiring final : public SystemFiring {
public:
    BulkPartialFailureFiring() : SystemFiring(FaultKind::bulk_partial_failure) {}

protected:
    std::string takes(const std::string& system, const OutsideFaultTarget& target) const override {
        return target.has_partial_batch_failures()
                   ? ""
                   : "system '" + system + "' has no batch requests";
    }
    std::string act_on(OutsideFaultTarget& target, FaultAct& act) const override {
        target.set_partial_batch_failure(act.spec.ratio, act.until());
        return "batch items fail with " + ratio_text(act.spec.ratio);
    }
};

class SystemCallRacesFiring final : public SystemFiring {
public:
    SystemCallRacesFiring() : SystemFiring(FaultKind::system_call_races) {}

protected:
    std::string takes(const std::string& system, const OutsideFaultTarget& target) const override {
        return target.has_call_races() ? "" : "system '" + system + "' has no calls that race";
    }
    std::string act_on(OutsideFaultTarget& target, FaultAct& act) const override {
        target.set_call_races(
            act.spec.ratio, act.until(),
            act.world.prng("call_races/" + act.spec.system + "/" + fault_time_text(act.now())));
        return "writes race with " + ratio_text(act.spec.ratio);
    }
};

}  // namespace

void add_system_firings(FaultFirings& registry) {
    static const SystemUnavailableFiring system_unavailable;
    static const SystemWriteErrorsFiring system_write_errors;
    static const BulkPartialFailureFiring bulk_partial_failure;
    static const SystemCallRacesFiring system_call_races;
    registry.add(system_unavailable);
    registry.add(system_write_errors);
    registry.add(bulk_partial_failure);
    registry.add(system_call_races);
}

}  // namespace eosim::sim
