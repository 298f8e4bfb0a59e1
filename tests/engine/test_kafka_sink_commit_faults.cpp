// The Kafka sink under commit faults alone: EndTxn failing retriably while
// produce works, and EndTxn applied but answered with a timeout. The sink retries and the output
// stays exactly-once without any failover; a deliberately broken committer (defined here, never in
// the product) that drops a commit after a failure instead of retrying it -- the FLINK-23896 class
// -- is caught by the exactly-once oracle; a transaction timeout shorter than the commit-fault
// window (a real misconfiguration) loses data, the sink says so, and the oracle fires.
#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using sim::FaultKind;
using namespace eosim::engine::test;

// The broken component: a committer that gives a commit up after its first failure, whatever the
// error -- as if a RetriableException were treated as final (FLINK-23896 class: a committable
// dropped instead of retried). Everything else is the product's KafkaSink.
class DroppingCommitKafkaSink final : public KafkaSink {
public:
    using KafkaSink::KafkaSink;

protected:
    bool retry_commit(sim::external::KafkaError) const override { return false; }
};

class DroppingCommitKafkaSinkConfig final : public SinkConfig {
public:
    explicit DroppingCommitKafkaSinkConfig(KafkaSinkOptions options)
        : options_(std::move(options)), product_(options_) {}
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig& runtime) const override {
        return std::make_unique<DroppingCommitKafkaSink>(options_, context, *systems.kafka,
                                                         runtime);
    }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        return product_.read_output(systems);
    }
    std::string kafka_topic() const override { return options_.topic; }
    std::vector<std::string> claims() const override { return product_.claims(); }
    std::vector<std::string_view> announced_points() const override {
        return product_.announced_points();
    }

private:
    KafkaSinkOptions options_;
    KafkaSinkConfig product_;
};

// 6000 records at 1000/s: commit errors from 1.2s for 1.5s, lost commit answers from 3.7s for 1.5s.
scenarios::Scenario commit_fault_scenario() {
    auto s = count_scenario(6000, 2);
    s.faults = {
        timed_fault(FaultKind::kafka_commit_errors, Duration::millis(1200), Duration::millis(1500)),
        timed_fault(FaultKind::kafka_commit_outcome_unknown, Duration::millis(3700),
                    Duration::millis(1500))};
    return s;
}

void use_dropping_committer(scenarios::Scenario& s) {
    for (VertexSpec& v : s.job.vertices) {
        if (v.kind != OperatorKind::sink) continue;
        v.sink = std::make_shared<DroppingCommitKafkaSinkConfig>(
            KafkaSinkOptions{"output", DeliveryGuarantee::exactly_once, "sink"});
    }
}

TEST_CASE(
    "kafka sink: commit errors and lost commit answers are retried, exactly-once without a failover",
    "[kafka_sink][commit_faults]") {
    for (uint64_t seed : {1, 2, 3}) {
        const auto result = run_scenario(commit_fault_scenario(), RunOptions{seed, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.job_finished);
        CHECK(verdict(result, "exactly_once_output").passed);
        CHECK(result.figures.commit_errors > 0);
        CHECK(result.figures.commit_outcomes_unknown > 0);
        CHECK(result.figures.transactions_lost == 0);
        CHECK(result.figures.restarts == 0);  // the commit faults alone never fail the job over
        // Every pre-committed transaction is committed exactly once, though some commits were
        // retried.
        CHECK(result.figures.transactions_committed == count_events(result, "txn.precommitted"));
    }
}

TEST_CASE(
    "kafka sink: a committer that drops a commit after a failure is caught (broken component)",
    "[kafka_sink][commit_faults]") {
    for (FaultKind kind :
         {FaultKind::kafka_commit_errors, FaultKind::kafka_commit_outcome_unknown}) {
        auto s = commit_fault_scenario();
        s.faults = {timed_fault(kind, Duration::millis(1200), Duration::millis(1500))};
        use_dropping_committer(s);
        const auto result = run_scenario(s, RunOptions{1, nullptr});
        INFO(sim::to_string(kind) << "\n" << describe(result));
        CHECK(result.figures.restarts ==
              0);  // no failover whose commit-on-recovery would hide the drop
        if (kind == FaultKind::kafka_commit_errors) {
            // The dropped transactions stay open: their records never become committed.
            const auto& exactly_once = verdict(result, "exactly_once_output");
            CHECK_FALSE(exactly_once.passed);
            CHECK(exactly_once.message.find("missing") != std::string::npos);
            CHECK_FALSE(result.expectation_met);
        } else {
            // A commit whose answer was lost had been applied: dropping its retry loses nothing.
            // (This is why the lost-answer fault alone cannot catch a dropping committer.)
            CHECK(verdict(result, "exactly_once_output").passed);
        }
    }
}

TEST_CASE(
    "kafka sink: a transaction timeout shorter than a commit-fault window loses data (negative control)",
    "[kafka_sink][commit_faults]") {
    // Flink's documented pitfall from the commit side: commits keep failing retriably for 3s, the
    // broker aborts the pre-committed transactions after 1.5s and fences their epoch; the retried
    // commits answer PRODUCER_FENCED, which the sink reports as likely data loss.
    auto s = count_scenario(6000, 2);
    s.world.kafka.transaction_timeout = Duration::millis(1500);
    s.faults = {
        timed_fault(FaultKind::kafka_commit_errors, Duration::millis(1200), Duration::seconds(3))};
    s.expect.pass = false;
    s.expect.violation = "exactly_once_output";
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(describe(result));
    CHECK(result.figures.transactions_lost >= 1);
    bool fenced = false;
    for (const auto& e : events(result, "txn.lost"))
        fenced = fenced || e.detail.find("(fenced)") != std::string::npos;
    CHECK(fenced);
    CHECK_FALSE(verdict(result, "exactly_once_output").passed);
    CHECK(result.expectation_met);  // exactly-once fires, and only it
}

}  // namespace
}  // namespace eosim::engine
