// The durable-storage fault types: storage_failure, storage_slow (scenarios/fault_types.h). Their
// firings: sim/faults/storage_faults.cpp.
#include "scenarios/fault_json.h"
#include "scenarios/faults/builtin_fault_types.h"

namespace eosim::scenarios {

namespace {

class StorageFailureType final : public DurationFaultType {
public:
    std::string timeline_lane() const override { return "storage"; }
    StorageFailureType() : DurationFaultType(builtin_firing(sim::FaultKind::storage_failure)) {}

    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        return static_cast<int64_t>(c.world.storage().operations_failed_by_fault());
    }
    std::string hit_unit() const override { return "storage operations failed"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no storage operation completed while storage was failing";
    }
};

class StorageSlowType final : public FaultType {
public:
    std::string timeline_lane() const override { return "storage"; }
    StorageSlowType() : FaultType(builtin_firing(sim::FaultKind::storage_slow)) {}

    std::vector<std::string> keys(FaultUse) const override { return {"multiplier", "duration"}; }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override {
        j["multiplier"] = fault.multiplier;
        j["duration"] = format_duration_exact(fault.duration);
    }
    DurationRange default_duration() const override {
        return {sim::Duration::millis(500), sim::Duration::seconds(5)};
    }
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override {
        fault.multiplier =
            static_cast<uint32_t>(prng.between(kind.multiplier.min, kind.multiplier.max));
        fault.duration = draw_duration(kind.duration, prng);
        return fault.duration;
    }
    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        return static_cast<int64_t>(c.world.storage().operations_slowed_by_fault());
    }
    std::string hit_unit() const override { return "storage operations slowed"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no storage operation started while storage was slow";
    }
};

}  // namespace

const FaultType& storage_failure_type() {
    static const StorageFailureType type;
    return type;
}

const FaultType& storage_slow_type() {
    static const StorageSlowType type;
    return type;
}

}  // namespace eosim::scenarios
