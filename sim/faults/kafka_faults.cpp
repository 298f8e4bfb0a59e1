// The Kafka fault kinds' firings, through the runner's `OutsideFaults` hooks so that sim/ does not
// depend on the models in sim/external/ (sim/fault_firing.h).
#include "sim/fault_firing.h"

namespace eosim::sim {

namespace {

using UntilHook = std::function<void(Time)> OutsideFaults::*;

// A Kafka fault with a duration: its hook is called with the effect's end.
class KafkaUntilFiring final : public FaultFiring {
public:
    KafkaUntilFiring(FaultKind kind, UntilHook hook, const char* action)
        : FaultFiring(kind, FaultTargets::none), hook_(hook), action_(action) {}

    std::string check(const FaultSpec&, const OutsideFaults& hooks) const override {
        return hooks.*hook_ ? "" : "no outside-system hook wired for this kind";
    }
    void fire(FaultAct& act) const override {
        (act.hooks.*hook_)(act.until());
        act.record.action = std::string(action_) + " until " + fault_time_text(act.until());
        act.lasts_until(act.until());
    }

private:
    UntilHook hook_;
    const char* action_;
};

// The broker aborts every open transaction now (as on a transaction timeout).
class TransactionAbortFiring final : public FaultFiring {
public:
    TransactionAbortFiring() : FaultFiring(FaultKind::transaction_abort, FaultTargets::none) {}

    std::string check(const FaultSpec&, const OutsideFaults& hooks) const override {
        return hooks.transaction_abort ? "" : "no outside-system hook wired for this kind";
    }
    void fire(FaultAct& act) const override {
        act.hooks.transaction_abort();
        act.record.action = "broker aborted every open transaction";
    }
};

}  // namespace

void add_kafka_firings(FaultFirings& registry) {
    static const KafkaUntilFiring broker_unavailable(
        FaultKind::broker_unavailable, &OutsideFaults::broker_unavailable, "broker unavailable");
    static const KafkaUntilFiring kafka_write_failure(
        FaultKind::kafka_write_failure, &OutsideFaults::kafka_write_failure, "Kafka writes fail");
    static const TransactionAbortFiring transaction_abort;
    static const KafkaUntilFiring kafka_commit_errors(FaultKind::kafka_commit_errors,
                                                      &OutsideFaults::kafka_commit_errors,
                                                      "Kafka commits and aborts fail (retriable)");
    static const KafkaUntilFiring kafka_commit_outcome_unknown(
        FaultKind::kafka_commit_outcome_unknown, &OutsideFaults::kafka_commit_outcome_unknown,
        "Kafka commits and aborts applied but answered with a timeout");
    static const KafkaUntilFiring kafka_produce_ack_lost(
        FaultKind::kafka_produce_ack_lost, &OutsideFaults::kafka_produce_ack_lost,
        "Kafka produce requests written, every other answer lost");
    registry.add(broker_unavailable);
    registry.add(kafka_write_failure);
    registry.add(transaction_abort);
    registry.add(kafka_commit_errors);
    registry.add(kafka_commit_outcome_unknown);
    registry.add(kafka_produce_ack_lost);
}

}  // namespace eosim::sim
