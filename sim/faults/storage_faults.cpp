// The durable-storage fault kinds' firings: storage_failure, storage_slow (sim/fault_firing.h).
#include "sim/fault_firing.h"

namespace eosim::sim {

namespace {

// Every durable-storage operation fails until now + duration (`DurableStorage::fail_until`).
class StorageFailureFiring final : public FaultFiring {
public:
    StorageFailureFiring() : FaultFiring(FaultKind::storage_failure, FaultTargets::none) {}

    void fire(FaultAct& act) const override {
        act.world.storage().fail_until(act.until());
        act.record.action = "durable storage fails until " + fault_time_text(act.until());
        act.lasts_until(act.until());
    }
};

// Durable-storage latency multiplied until now + duration (`DurableStorage::slow_until`).
class StorageSlowFiring final : public FaultFiring {
public:
    StorageSlowFiring() : FaultFiring(FaultKind::storage_slow, FaultTargets::none) {}

    std::string check(const FaultSpec& spec, const OutsideFaults&) const override {
        return spec.multiplier < 1 ? "multiplier must be at least 1" : "";
    }
    void fire(FaultAct& act) const override {
        act.world.storage().slow_until(act.until(), act.spec.multiplier);
        act.record.action = "durable storage latency x" + std::to_string(act.spec.multiplier) +
                            " until " + fault_time_text(act.until());
        act.lasts_until(act.until());
    }
};

}  // namespace

void add_storage_firings(FaultFirings& registry) {
    static const StorageFailureFiring storage_failure;
    static const StorageSlowFiring storage_slow;
    registry.add(storage_failure);
    registry.add(storage_slow);
}

}  // namespace eosim::sim
