// The Kafka fault types (scenarios/fault_types.h): outages of the broker or of some of its calls,
// and the broker aborting every open transaction. Their firings: sim/faults/kafka_faults.cpp.
#include "scenarios/faults/builtin_fault_types.h"

namespace eosim::scenarios {

namespace {

using Probe = std::function<uint64_t()> EffectProbes::*;

// A Kafka outage of some calls for `duration`, counted by one of the run's probes.
class KafkaOutageType final : public DurationFaultType {
public:
    std::string timeline_lane() const override { return "kafka"; }
    struct Words {
        const char* hit_unit;
        const char* nothing_hit;
        const char* testkit;  // nullptr: the kind's name
    };
    KafkaOutageType(sim::FaultKind kind, Probe probe, Words words)
        : DurationFaultType(builtin_firing(kind)), probe_(probe), words_(words) {}

    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        const std::function<uint64_t()>& probe = c.probes.*probe_;
        return probe ? static_cast<int64_t>(probe()) : 0;
    }
    std::string hit_unit() const override { return words_.hit_unit; }
    std::string nothing_hit(const sim::FaultSpec&) const override { return words_.nothing_hit; }
    std::string testkit_words() const override {
        return words_.testkit == nullptr ? name() : words_.testkit;
    }

private:
    Probe probe_;
    Words words_;
};

class TransactionAbortType final : public FaultType {
public:
    std::string timeline_lane() const override { return "kafka"; }
    TransactionAbortType() : FaultType(builtin_firing(sim::FaultKind::transaction_abort)) {}

    std::vector<std::string> keys(FaultUse) const override { return {}; }
    void write(const sim::FaultSpec&, nlohmann::ordered_json&) const override {}
    DurationRange default_duration() const override {
        return {sim::Duration::millis(500), sim::Duration::seconds(5)};
    }
    sim::Duration draw(const RandomFaultKind&, sim::FaultSpec&, sim::Prng&) const override {
        return sim::Duration::zero();
    }
    // Instantaneous: what it hits is known when it fires.
    std::optional<sim::Duration> effect_length(const sim::FaultSpec&) const override {
        return sim::Duration::zero();
    }
    std::vector<ShrinkableDuration> shrinkable(const sim::FaultSpec&) const override { return {}; }
    sim::Duration counted_for(const sim::FaultSpec&) const override {
        return sim::Duration::zero();
    }
    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        return c.probes.kafka_transactions_aborted
                   ? static_cast<int64_t>(c.probes.kafka_transactions_aborted())
                   : 0;
    }
    std::string hit_unit() const override { return "transactions aborted"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no transaction was open";
    }
};

}  // namespace

const FaultType& broker_unavailable_type() {
    static const KafkaOutageType type(
        sim::FaultKind::broker_unavailable, &EffectProbes::kafka_refused_calls,
        {"Kafka calls refused", "nobody called Kafka while it lasted", "unavailable"});
    return type;
}

const FaultType& kafka_write_failure_type() {
    static const KafkaOutageType type(
        sim::FaultKind::kafka_write_failure, &EffectProbes::kafka_refused_calls,
        {"Kafka calls refused", "nobody called Kafka while it lasted", "write errors"});
    return type;
}

const FaultType& transaction_abort_type() {
    static const TransactionAbortType type;
    return type;
}

const FaultType& kafka_commit_errors_type() {
    static const KafkaOutageType type(
        sim::FaultKind::kafka_commit_errors, &EffectProbes::kafka_commit_errors,
        {"commits or aborts failed", "no transaction was committed or aborted while it lasted",
         "commits and aborts fail (retriable)"});
    return type;
}

const FaultType& kafka_commit_outcome_unknown_type() {
    static const KafkaOutageType type(sim::FaultKind::kafka_commit_outcome_unknown,
                                      &EffectProbes::kafka_commit_outcomes_unknown,
                                      {"commits or aborts answered with a timeout",
                                       "no transaction was committed or aborted while it lasted",
                                       "commits and aborts applied, answers lost (timeout)"});
    return type;
}

const FaultType& kafka_produce_ack_lost_type() {
    static const KafkaOutageType type(
        sim::FaultKind::kafka_produce_ack_lost, &EffectProbes::kafka_produce_acks_lost,
        {"produce answers lost", "nobody wrote to Kafka while it lasted", nullptr});
    return type;
}

}  // namespace eosim::scenarios
