// The contract harness's outside faults and call races: a fault kind fires through the fault
// registry (scenarios/fault_types.h) against the harness's own systems.
#include <stdexcept>
#include <string>

#include "scenarios/fault_types.h"
#include "testkit/contract_harness.h"
#include "testkit/contract_instances.h"

namespace eosim::testkit {

namespace {

// The append store as a fault target: it has only unavailability (the testkit draws no other of its
// faults).
class AppendStoreTarget final : public sim::OutsideFaultTarget {
public:
    explicit AppendStoreTarget(sim::external::AppendStore& store) : store_(store) {}
    void set_unavailable_until(sim::Time until) override { store_.set_unavailable_until(until); }
    void set_write_errors_until(sim::Time) override {
        throw std::logic_error("the append store has no write errors, only unavailability");
    }

private:
    sim::external::AppendStore& store_;
};

std::string race_words(const sim::external::RaceStep& step) {
    switch (step.delivery) {
        case sim::external::CallDelivery::now: return "answered";
        case sim::external::CallDelivery::answer_lost: return "applied, answer LOST";
        case sim::external::CallDelivery::late:
            return "LATE (lands after " + std::to_string(step.late_by_calls) + " more call(s))";
        case sim::external::CallDelivery::request_lost: return "request LOST";
    }
    return "?";
}

}  // namespace

sim::external::CallRaces* ContractHarness::races_of(const std::string& system) {
    if (system == "objects") return &objects_.races();
    if (system == "documents") return &documents_.races();
    if (system == "key_values") return &key_values_.races();
    if (system == "database") return &database_.races();
    return nullptr;
}

void ContractHarness::race(const std::string& system,
                           const std::vector<sim::external::RaceStep>& steps) {
    races_of(system)->script(steps);
    std::string text;
    for (const auto& step : steps) text += (text.empty() ? "" : ", ") + race_words(step);
    line("calls race: the next " + std::to_string(steps.size()) + " write(s) to " + system +
         " (after any raced before): " + text);
}

sim::OutsideFaultTarget* ContractHarness::target(const std::string& system) {
    if (system == "objects") return &objects_;
    if (system == "documents") return &documents_;
    if (system == "key_values") return &key_values_;
    if (system == "database") return &database_;
    return nullptr;
}

// Through the fault registry (scenarios/fault_types.h): the kind's firing acts on the harness's
// systems, as the fault injector's acts on a run's.
void ContractHarness::fault(const FaultChoice& choice, int64_t millis) {
    const scenarios::FaultType* type = scenarios::FaultTypes::global().find(choice.kind);
    if (type == nullptr)
        throw std::invalid_argument("no fault kind \"" + choice.kind + "\" is registered");
    sim::FaultSpec spec;
    spec.kind = type->kind();
    spec.system = choice.system;
    spec.duration = sim::Duration::millis(millis);
    spec.ratio = sim::Ratio{1, 2};  // bulk_partial_failure: half of every bulk request's items
    AppendStoreTarget store(store_);
    sim::OutsideFaults hooks;
    hooks.broker_unavailable = [this](sim::Time until) { kafka_.set_unavailable_until(until); };
    hooks.kafka_write_failure = [this](sim::Time until) { kafka_.set_write_failures_until(until); };
    hooks.kafka_commit_errors = [this](sim::Time until) { kafka_.set_commit_errors_until(until); };
    hooks.kafka_commit_outcome_unknown = [this](sim::Time until) {
        kafka_.set_commit_outcome_unknown_until(until);
    };
    hooks.systems = {{"append_store", &store},
                     {"objects", target("objects")},
                     {"documents", target("documents")},
                     {"key_values", target("key_values")},
                     {"database", target("database")}};
    const std::string problem = type->firing().check(spec, hooks);
    if (!problem.empty())
        throw std::invalid_argument("fault " + choice.kind + " on " + choice.system + ": " +
                                    problem);
    sim::FiredFault record;
    sim::Time quiet = world_.now();
    const std::vector<sim::NodeId> no_nodes;
    sim::FaultAct act{world_, spec, hooks, no_nodes, no_nodes, record, quiet};
    type->firing().fire(act);
    line("fault: " + choice.system + " " + type->testkit_words() + " for " +
         std::to_string(millis) + " ms");
}

}  // namespace eosim::testkit
