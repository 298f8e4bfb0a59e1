#include "scenarios/faults/builtin_fault_types.h"

#include <stdexcept>

#include "scenarios/fault_json.h"

namespace eosim::scenarios {

const sim::FaultFiring& builtin_firing(sim::FaultKind kind) {
    const sim::FaultFiring* firing = sim::FaultFirings::global().find(kind);
    if (firing == nullptr)
        throw std::logic_error(std::string("no firing for the built-in fault kind ") + kind.name());
    return *firing;
}

std::string ratio_text(sim::Ratio ratio) {
    return std::to_string(ratio.numerator) + "/" + std::to_string(ratio.denominator);
}

void DurationFaultType::write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const {
    j["duration"] = format_duration_exact(fault.duration);
}

sim::Duration DurationFaultType::draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                                      sim::Prng& prng) const {
    fault.duration = draw_duration(kind.duration, prng);
    return fault.duration;
}

// In the order scenarios have always listed them, the order faults.random draws kinds in (a seed's
// draw depends on it): a new kind goes last.
void register_builtin_fault_types(FaultTypes& registry) {
    registry.add(crash_type());
    registry.add(pause_type());
    registry.add(partition_type());
    registry.add(slow_link_type());
    registry.add(storage_failure_type());
    registry.add(storage_slow_type());
    registry.add(broker_unavailable_type());
    registry.add(kafka_write_failure_type());
    registry.add(transaction_abort_type());
    registry.add(message_loss_type());
    registry.add(system_unavailable_type());
    registry.add(system_write_errors_type());
    registry.add(bulk_partial_failure_type());
    registry.add(kafka_commit_errors_type());
    registry.add(kafka_commit_outcome_unknown_type());
    registry.add(kafka_produce_ack_lost_type());
    registry.add(system_call_races_type());
}

}  // namespace eosim::scenarios
