#pragma once
// The built-in fault types (scenarios/fault_types.h), one file per family in this folder, and what
// several of them share.
#include <string>
#include <vector>

#include "scenarios/fault_types.h"

namespace eosim::scenarios {

// The built-in kind's firing, registered in sim/ (sim/faults/).
const sim::FaultFiring& builtin_firing(sim::FaultKind kind);

// "1/10".
std::string ratio_text(sim::Ratio ratio);

// A kind whose only parameter is its duration (an outage of something for a while).
class DurationFaultType : public FaultType {
public:
    using FaultType::FaultType;
    std::vector<std::string> keys(FaultUse) const override { return {"duration"}; }
    void write(const sim::FaultSpec& fault, nlohmann::ordered_json& j) const override;
    sim::Duration draw(const RandomFaultKind& kind, sim::FaultSpec& fault,
                       sim::Prng& prng) const override;
};

// The built-in types, each defined in its family's file.
const FaultType& crash_type();                         // node_fault_types.cpp
const FaultType& pause_type();                         // node_fault_types.cpp
const FaultType& partition_type();                     // network_fault_types.cpp
const FaultType& slow_link_type();                     // network_fault_types.cpp
const FaultType& message_loss_type();                  // network_fault_types.cpp
const FaultType& storage_failure_type();               // storage_fault_types.cpp
const FaultType& storage_slow_type();                  // storage_fault_types.cpp
const FaultType& broker_unavailable_type();            // kafka_fault_types.cpp
const FaultType& kafka_write_failure_type();           // kafka_fault_types.cpp
const FaultType& transaction_abort_type();             // kafka_fault_types.cpp
const FaultType& kafka_commit_errors_type();           // kafka_fault_types.cpp
const FaultType& kafka_commit_outcome_unknown_type();  // kafka_fault_types.cpp
const FaultType& kafka_produce_ack_lost_type();        // kafka_fault_types.cpp
const FaultType& system_unavailable_type();            // system_fault_types.cpp
const FaultType& system_write_errors_type();           // system_fault_types.cpp
const FaultType& bulk_partial_failure_type();          // system_fault_types.cpp
const FaultType& system_call_races_type();             // system_fault_types.cpp

// Registers them (builtin_fault_types.cpp); FaultTypes::global() calls it once.
void register_builtin_fault_types(FaultTypes& registry);

}  // namespace eosim::scenarios
