#include "oracles/no_rollbacks_oracle.h"

#include <stdexcept>

#include "engine/connectors/kafka_sink.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

Verdict NoRollbacksOracle::verdict() const {
    const std::vector<Rollback>& rollbacks = detector_.rollbacks();
    if (rollbacks.empty())
        return {true, "no restore was older than a checkpoint an exactly-once sink had committed"};
    std::string message = "rollback: " + rollbacks.front().describe();
    if (rollbacks.size() > 1) message += "; and " + std::to_string(rollbacks.size() - 1) + " more";
    return {false, message};
}

OracleRegistration no_rollbacks_registration() {
    return {
        "no_rollbacks",
        "no restore is older than a checkpoint whose transactions an exactly-once sink committed",
        [](const OracleJobFacts& facts) -> std::string {
            for (const engine::VertexSpec& v : facts.job.vertices) {
                const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(v.sink.get());
                if (kafka != nullptr &&
                    kafka->options().guarantee == engine::DeliveryGuarantee::exactly_once)
                    return "";
            }
            return "a Kafka sink with guarantee exactly_once (a rollback is a restore older than what it committed)";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            if (run.rollbacks == nullptr)
                throw std::logic_error("no_rollbacks: the run has no rollback detector");
            return std::make_unique<NoRollbacksOracle>(*run.rollbacks);
        }};
}

}  // namespace eosim::oracles
