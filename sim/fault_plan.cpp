#include "sim/fault_plan.h"

namespace eosim::sim {

const char* to_string(FaultKind kind) {
    switch (kind) {
        case FaultKind::crash: return "crash";
        case FaultKind::pause: return "pause";
        case FaultKind::partition: return "partition";
        case FaultKind::slow_link: return "slow_link";
        case FaultKind::storage_failure: return "storage_failure";
        case FaultKind::storage_slow: return "storage_slow";
        case FaultKind::broker_unavailable: return "broker_unavailable";
        case FaultKind::kafka_write_failure: return "kafka_write_failure";
        case FaultKind::transaction_abort: return "transaction_abort";
        case FaultKind::kafka_commit_errors: return "kafka_commit_errors";
        case FaultKind::kafka_commit_outcome_unknown: return "kafka_commit_outcome_unknown";
        case FaultKind::kafka_produce_ack_lost: return "kafka_produce_ack_lost";
        case FaultKind::message_loss: return "message_loss";
        case FaultKind::system_unavailable: return "system_unavailable";
        case FaultKind::system_write_errors: return "system_write_errors";
        case FaultKind::bulk_partial_failure: return "bulk_partial_failure";
        case FaultKind::system_call_races: return "system_call_races";
    }
    return "unknown";
}

}  // namespace eosim::sim
