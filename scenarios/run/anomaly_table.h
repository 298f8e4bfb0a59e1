#pragma once
// A step after judging: the run's anomaly table (scenarios/anomalies.h). The sinks' records are
// examined only when an output oracle fired (exactly_once_output: lost and duplicated records;
// at_least_once_output: lost ones, duplicates being allowed there), so a passing run pays nothing
// for them; the Kafka transactions' timeout margins are measured on every run.
#include <vector>

#include "oracles/oracle_registry.h"
#include "oracles/reference_model.h"
#include "scenarios/run_result.h"
#include "sim/external/kafka.h"

namespace eosim::scenarios {

struct AnomalySources {
    const oracles::ReferenceModel& model;
    const std::vector<oracles::JudgedSink>& sinks;
    const sim::external::KafkaCluster* kafka;  // nullptr: none
    sim::Time end;                             // the run's end (for transactions still open)
};

// Fills result.anomalies from the sources, the verdicts, the fired faults and the deployments.
void find_anomalies(const AnomalySources& from, RunResult& result);

}  // namespace eosim::scenarios
