// KafkaSink (engine/kafka_sink.h), driven through a whole small job in the real engine
// (scenarios::run_scenario): two-phase commit without faults commits every pre-committed
// transaction; a crash right after a pre-commit keeps the output exactly-once; a transaction
// timeout shorter than the recovery loses data and the oracles say so (negative control); an
// at-least-once sink duplicates under a crash but loses nothing; a failed write fails the
// checkpoint instead of being dropped; transactions with nothing in them commit cleanly.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "engine/vocabulary/protocol_points.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;
using sim::Duration;
using namespace eosim::engine::test;

TEST_CASE("kafka sink: without faults every pre-committed transaction is committed, exactly once",
          "[kafka_sink]") {
    for (int32_t parallelism : {1, 2, 4}) {
        auto s = count_scenario(2500, parallelism);
        const auto result = run_scenario(s, RunOptions{21, nullptr});
        INFO("parallelism " << parallelism << "\n" << describe(result));
        CHECK(result.expectation_met);
        CHECK(result.job_finished);
        CHECK(verdict(result, "exactly_once_output").passed);
        const int64_t precommitted = count_events(result, "txn.precommitted");
        CHECK(precommitted >= parallelism * 4);
        CHECK(count_events(result, "txn.committed") == precommitted);
        CHECK(result.figures.transactions_committed == precommitted);
        CHECK(result.figures.transactions_aborted == 0);
        CHECK(count_events(result, "txn.lost") == 0);
        CHECK(count_events(result, "txn.aborted-lingering") == 0);
        CHECK(result.figures.records_out ==
              result.figures.records_in);  // a running count emits one record per input
        // Every committed transaction was pre-committed first.
        std::set<std::string> precommitted_ids;
        for (const auto& e : events(result, "txn.precommitted")) precommitted_ids.insert(e.detail);
        for (const auto& e : events(result, "txn.committed"))
            CHECK(precommitted_ids.contains(e.detail));
    }
}

TEST_CASE("kafka sink: a crash right after a pre-commit keeps the output exactly-once",
          "[kafka_sink]") {
    for (int32_t occurrence : {1, 3, 6}) {
        auto s = count_scenario(3000, 2);
        s.faults = {crash_at_point(std::string(points::kSinkPrecommitted), occurrence,
                                   Duration::millis(700))};
        const auto result = run_scenario(s, RunOptions{static_cast<uint64_t>(occurrence), nullptr});
        INFO("occurrence " << occurrence << "\n" << describe(result));
        REQUIRE(result.faults.size() == 1);
        CHECK_FALSE(result.faults.front().skipped);
        CHECK(result.expectation_met);
        CHECK(verdict(result, "exactly_once_output").passed);
        CHECK(result.figures.restarts >= 1);
        CHECK(count_events(result, "failover") >= 1);
        CHECK(count_events(result, "txn.lost") == 0);
        // The transaction that was pre-committed when the node died lingers and is aborted on
        // recovery.
        CHECK(count_events(result, "txn.aborted-lingering") >= 1);
    }
}

TEST_CASE("kafka sink: a crash between completion and notification keeps the output exactly-once",
          "[kafka_sink]") {
    // The TaskManager dies when the checkpoint is durable but before notifyCheckpointComplete
    // reaches it: its sinks' transactions must be committed on recovery (commit-on-recovery).
    auto s = count_scenario(3000, 2);
    s.faults = {crash_at_point(std::string(points::kCheckpointCompleted), 2, Duration::millis(700),
                               {"tm1"})};
    const auto result = run_scenario(s, RunOptions{4, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
    CHECK(result.figures.restarts >= 1);
    CHECK(count_events(result, "txn.lost") == 0);
}

TEST_CASE(
    "kafka sink: a transaction timeout shorter than the recovery loses data (negative control)",
    "[kafka_sink]") {
    // tm1 dies as checkpoint 2 completes, before its sink hears of it; it comes back only after the
    // broker has aborted the pre-committed transaction by timeout. The restore's commit fails: data
    // is lost, the sink says so (txn.lost), and the exactly-once oracle finds records missing.
    auto s = count_scenario(3000, 2);
    s.world.kafka.transaction_timeout = Duration::millis(1500);
    s.faults = {crash_at_point(std::string(points::kCheckpointCompleted), 2, Duration::seconds(4),
                               {"tm1"})};
    s.expect.pass = false;
    s.expect.violation = "exactly_once_output";
    const auto result = run_scenario(s, RunOptions{4, nullptr});
    INFO(describe(result));
    CHECK(count_events(result, "txn.lost") >= 1);
    const auto& exactly_once = verdict(result, "exactly_once_output");
    CHECK_FALSE(exactly_once.passed);
    CHECK(exactly_once.message.find("missing") != std::string::npos);
    CHECK(result.expectation_met);  // exactly-once fires, and only it
}

TEST_CASE(
    "kafka sink: a crash at sink.precommitted with a transaction timeout shorter than the restart delay",
    "[kafka_sink]") {
    // The crashed sink's pre-committed transaction was never part of a completed checkpoint: the
    // broker's timeout only aborts what recovery would abort anyway. Nothing is lost.
    auto s = count_scenario(3000, 2);
    s.world.kafka.transaction_timeout = Duration::millis(1500);
    s.faults = {crash_at_point(std::string(points::kSinkPrecommitted), 3, Duration::seconds(4))};
    const auto result = run_scenario(s, RunOptions{4, nullptr});
    INFO(describe(result));
    CHECK(result.figures.restarts >= 1);
    CHECK(count_events(result, "txn.lost") == 0);
    CHECK(result.expectation_met);
}

TEST_CASE("kafka sink: at-least-once duplicates under a crash but loses nothing", "[kafka_sink]") {
    auto s = count_scenario(3000, 2, DeliveryGuarantee::at_least_once);
    s.oracles = {"exactly_once_output", "at_least_once_output", "state_after_restore", "liveness"};
    s.faults = {crash_at("tm1", Duration::millis(1300), Duration::millis(500))};
    s.expect.pass = false;
    s.expect.violation = "exactly_once_output";
    const auto result = run_scenario(s, RunOptions{8, nullptr});
    INFO(describe(result));
    const auto& exactly_once = verdict(result, "exactly_once_output");
    CHECK_FALSE(exactly_once.passed);
    CHECK(exactly_once.message.find("duplicated") != std::string::npos);
    CHECK(exactly_once.message.find("0 missing") != std::string::npos);
    const auto& at_least_once = verdict(result, "at_least_once_output");
    CHECK(at_least_once.passed);
    CHECK(at_least_once.message.find(" 0 missing") != std::string::npos);
    CHECK(verdict(result, "state_after_restore").passed);  // checkpoints are still aligned
    CHECK(result.figures.records_out > result.figures.records_in);
    CHECK(count_events(result, "txn.begun") == 0);  // no transactions at all
    CHECK(result.expectation_met);
}

TEST_CASE("kafka sink: at-least-once without faults is exactly-once", "[kafka_sink]") {
    auto s = count_scenario(2000, 2, DeliveryGuarantee::at_least_once);
    s.oracles = {"exactly_once_output", "at_least_once_output", "liveness"};
    const auto result = run_scenario(s, RunOptions{8, nullptr});
    INFO(describe(result));
    CHECK(result.expectation_met);
}

TEST_CASE("kafka sink: a failed write fails the checkpoint instead of being dropped",
          "[kafka_sink]") {
    for (uint64_t seed : {1, 2, 3}) {
        auto s = count_scenario(3000, 2);
        s.faults = {timed_fault(sim::FaultKind::kafka_write_failure, Duration::millis(1200),
                                Duration::millis(300))};
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(describe(result));
        // The sink fails its pre-commit and with it the task: the job fails over naming the write.
        const auto failovers = events(result, "failover");
        REQUIRE_FALSE(failovers.empty());
        CHECK(failovers.front().detail.find("write failed") != std::string::npos);
        // No checkpoint completes between the failed write and the failover: the failed write's
        // transaction is never committed.
        for (const auto& e : events(result, "checkpoint.completed")) {
            CHECK((e.at_ns < Duration::millis(1200).ns || e.at_ns > failovers.front().at_ns));
        }
        CHECK(result.figures.restarts >= 1);
        CHECK(verdict(result, "exactly_once_output").passed);
        CHECK(result.expectation_met);
        CHECK(count_events(result, "txn.lost") == 0);
    }
}

TEST_CASE("kafka sink: transactions with nothing written commit cleanly", "[kafka_sink]") {
    SECTION("one key: all but one sink subtask never write") {
        auto s = count_scenario(1500, 4);
        s.inputs[0].keys = 1;
        const auto result = run_scenario(s, RunOptions{12, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        const int64_t precommitted = count_events(result, "txn.precommitted");
        CHECK(precommitted >= 4 * 3);
        CHECK(count_events(result, "txn.committed") == precommitted);
        CHECK(count_events(result, "txn.lost") == 0);
        CHECK(result.figures.records_out == 1500);
    }
    SECTION("a filter that drops everything: no sink ever writes") {
        auto s = count_scenario(1500, 2);
        VertexSpec drop;
        drop.id = "drop";
        drop.kind = OperatorKind::filter;
        drop.parallelism = 2;
        drop.filter.modulus = 1;  // every value mod 1 is 0
        drop.filter.drop_remainder = 0;
        drop.inputs = {{"count", EdgeKind::forward}};
        s.job.vertices.insert(s.job.vertices.begin() + 2, drop);
        s.job.vertices[3].inputs = {{"drop", EdgeKind::forward}};
        const auto result = run_scenario(s, RunOptions{12, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.job_finished);
        CHECK(result.figures.records_out == 0);
        const int64_t precommitted = count_events(result, "txn.precommitted");
        CHECK(precommitted >= 2 * 2);
        CHECK(count_events(result, "txn.committed") == precommitted);
        CHECK(count_events(result, "txn.lost") == 0);
    }
    SECTION(
        "input finishing while checkpoints fail: a later completion commits every earlier pre-commit") {
        // The input ends at 0.6 s; checkpoints fail while storage is down (0.25 s - 1.25 s), so the
        // transactions pre-committed for them (the last ones empty) wait in the sink's state until
        // a later checkpoint completes and subsumes them.
        auto s = count_scenario(600, 2);
        s.job.checkpointing.interval = Duration::millis(300);
        s.job.checkpointing.tolerable_failures = 100;
        s.faults = {timed_fault(sim::FaultKind::storage_failure, Duration::millis(250),
                                Duration::seconds(1))};
        const auto result = run_scenario(s, RunOptions{13, nullptr});
        INFO(describe(result));
        CHECK(result.expectation_met);
        CHECK(result.job_finished);
        CHECK(result.figures.restarts == 0);
        CHECK(result.figures.checkpoints_aborted >= 2);
        const int64_t precommitted = count_events(result, "txn.precommitted");
        CHECK(count_events(result, "txn.committed") == precommitted);
        CHECK(result.figures.transactions_committed == precommitted);
        CHECK(count_events(result, "txn.lost") == 0);
        CHECK(result.figures.records_out == 600);
    }
}

}  // namespace
}  // namespace eosim::engine
