// A failed job judged on its committed prefix (oracles/committed_prefix_comparison.h): the model's
// output through a prefix; exactly_once_output between the lower and upper cuts (appended and keyed
// table) with its negative controls (a record lost before the lower cut, a duplicate, a record
// beyond the upper cut, a stale key); at_least_once_output on the lower cut; liveness, freshness'
// and no_leaks' handling of an expected failure; checkpoint_history over JobManager losses.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "oracles/at_least_once_output_oracle.h"
#include "oracles/checkpoint_history_oracle.h"
#include "oracles/exactly_once_output_oracle.h"
#include "oracles/liveness_oracle.h"
#include "oracles/no_leaks_oracle.h"
#include "oracles/reference_model.h"
#include "tests/oracles/model_fixture.h"

namespace eosim::oracles {
namespace {

using namespace model_fixture;
using sim::Duration;
using sim::Time;

constexpr auto kPrefixAppended = engine::SinkOutputShape::appended;
constexpr auto kPrefixKeyedTable = engine::SinkOutputShape::keyed_table;
constexpr auto kPrefixKeyCounts = engine::SinkOutputShape::key_counts;

// Partition 0: keys 1 1 2; partition 1: keys 3 1. Whole output: (1,1) (1,2) (1,3) (2,1) (3,1).
ModelInput failed_count_input() {
    return ModelInput{{"in", {{{1, 0}, {1, 0}, {2, 0}}, {{3, 0}, {1, 0}}}}};
}

// Lower cut: partition 0 read up to 1 -> (1,1). Upper cut: 0 up to 2, 1 up to 1 -> (1,1) (1,2)
// (3,1).
CommittedPrefix failed_count_prefix() {
    return CommittedPrefix{SourceOffsets{{{"in", 0}, 1}},
                           SourceOffsets{{{"in", 0}, 2}, {{"in", 1}, 1}}, "checkpoint 3",
                           "checkpoint 4", "restart strategy exhausted"};
}

TEST_CASE("reference model: a sink's output and table through a prefix", "[oracles][failed_job]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, failed_count_input());
    const auto upper = model.output_through("sink", failed_count_prefix().upper);
    CHECK(upper.records.records() == std::vector<Record>{{1, 1}, {1, 2}, {3, 1}});
    CHECK(upper.table == std::vector<Record>{{1, 2}, {3, 1}});
    CHECK(model.output_through("sink", {}).records.empty());
    CHECK(model.output_through("sink", failed_count_prefix().lower).records.records() ==
          std::vector<Record>{{1, 1}});
}

TEST_CASE(
    "exactly-once output oracle on a failed job: between its committed cuts, not the input it never read",
    "[oracles][failed_job]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, failed_count_input());
    std::vector<Record> shown{{1, 1}, {1, 2}};
    ExactlyOnceOutputOracle oracle(model, "sink", kPrefixAppended, [&] { return shown; });
    CHECK_FALSE(oracle.verdict().passed);  // against the whole input: 3 "missing"
    oracle.set_job_failed(failed_count_prefix());
    const Verdict v = oracle.verdict();
    CHECK(v.passed);
    CHECK(contains(
        v.message,
        "2 committed records, 1 to 3 expected by the committed prefix (checkpoint 3 .. checkpoint 4)"));
    shown = {{1, 1}, {1, 2}, {3, 1}};  // the upper cut committed as well
    CHECK(oracle.verdict().passed);
    // Negative controls: lost before the lower cut, duplicated, beyond what a completed snapshot
    // covers.
    shown = {{1, 2}};
    CHECK(
        contains(oracle.verdict().message,
                 "1 missing, 0 duplicated or beyond what it read; first missing (key=1, value=1)"));
    shown = {{1, 1}, {1, 1}};
    CHECK_FALSE(oracle.verdict().passed);
    shown = {{1, 1}, {1, 2}, {2, 1}};
    const Verdict beyond = oracle.verdict();
    CHECK_FALSE(beyond.passed);
    CHECK(contains(beyond.message,
                   "first beyond (key=2, value=1) expected 0x, found 1x by checkpoint 4"));
}

TEST_CASE(
    "exactly-once output oracle on a failed job's keyed table: each key at its lower-cut value or a later one",
    "[oracles][failed_job]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, failed_count_input());
    std::vector<Record> table{{1, 1}};
    ExactlyOnceOutputOracle oracle(model, "sink", kPrefixKeyedTable, [&] { return table; });
    oracle.set_job_failed(failed_count_prefix());
    CHECK(oracle.verdict().passed);
    table = {{1, 3}, {2, 1}};  // an idempotent sink writes past the upper cut at once
    CHECK(oracle.verdict().passed);
    table = {};
    CHECK(contains(oracle.verdict().message, "key 1 missing (1 at checkpoint 3)"));
    table = {{1, 7}};
    CHECK(contains(oracle.verdict().message,
                   "key 1 holds 7, the model's value at checkpoint 3 being 1"));
    table = {{1, 1}, {9, 1}};
    CHECK(contains(oracle.verdict().message, "key 9 holds 1, a value the model never gives it"));
    // Key counts: between the lower cut's count and the whole input's.
    std::vector<Record> counts{{1, 2}};
    ExactlyOnceOutputOracle counted(model, "sink", kPrefixKeyCounts, [&] { return counts; });
    counted.set_job_failed(failed_count_prefix());
    CHECK(counted.verdict().passed);
    counts = {{1, 4}};
    CHECK_FALSE(counted.verdict().passed);
}

TEST_CASE(
    "at-least-once output oracle on a failed job: nothing up to the lower cut lost, duplicates allowed",
    "[oracles][failed_job]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, failed_count_input());
    std::vector<Record> shown{{1, 1}, {1, 1}, {1, 2}};
    AtLeastOnceOutputOracle oracle(model, "sink", [&] { return shown; });
    oracle.set_job_failed(failed_count_prefix());
    CHECK(oracle.verdict().passed);
    shown = {{1, 2}};
    const Verdict lost = oracle.verdict();
    CHECK_FALSE(lost.passed);
    CHECK(contains(lost.message, "1 missing of 1 expected by the committed prefix"));
}

TEST_CASE(
    "liveness, no_leaks on an expected failure: the failure is the job's end, what it left open is reported",
    "[oracles][failed_job]") {
    const Time quiet = Time::zero() + Duration::seconds(10);
    LivenessOracle liveness(Duration::seconds(30), [quiet] { return quiet; });
    liveness.job_failed(Time::zero() + Duration::seconds(12), "restart strategy exhausted");
    CHECK_FALSE(liveness.verdict().passed);
    liveness.expect_failure();
    CHECK(contains(liveness.verdict().message, "the job failed as expected at 12.000s"));
    LivenessOracle late(Duration::seconds(30), [quiet] { return quiet; });
    late.expect_failure();
    late.job_failed(Time::zero() + Duration::seconds(50), "restart strategy exhausted");
    CHECK_FALSE(late.verdict().passed);  // a job that hangs before it fails

    NoLeaksOracle leaks(
        [] { return std::string("2 Kafka transaction(s) on out (counted per partition)"); });
    CHECK_FALSE(leaks.verdict().passed);
    leaks.expect_failure();
    CHECK(leaks.verdict().passed);
    CHECK(contains(leaks.verdict().message, "leaving open (not judged"));
    leaks.closed_sink_timer_fired(Time::zero() + Duration::seconds(20), "sink", 0,
                                  Time::zero() + Duration::seconds(1));
    CHECK_FALSE(leaks.verdict().passed);  // a closed task's timers are judged as always
}

TEST_CASE(
    "checkpoint history oracle: every checkpoint ends, lost with a JobManager counts, an aborted one restored fires",
    "[oracles][failed_job][history]") {
    const Time t = Time::zero();
    CheckpointHistoryOracle oracle;
    oracle.restore_started(t, 1001, 0, {});
    oracle.checkpoint_triggered(t, 1, {});
    oracle.checkpoint_completed(t, 1, {});
    oracle.checkpoint_triggered(t, 2, {});
    oracle.checkpoint_triggered(t, 3, {});
    oracle.job_finished(t);
    CHECK_FALSE(oracle.verdict().passed);  // 2 and 3 never ended in a job that finished
    CHECK(contains(oracle.verdict().message,
                   "2 checkpoint(s) never ended in the history; first: checkpoint 2"));
    oracle.job_manager_lost(
        t, 2001,
        "the JobManager on jobmanager-1 lost its leadership");  // not the one that triggered them
    CHECK_FALSE(oracle.verdict().passed);
    oracle.job_manager_lost(t, 1001, "the JobManager on jobmanager crashed");
    oracle.restore_started(t, 2001, 3, {});  // found in storage: never completed by a JobManager
    const Verdict v = oracle.verdict();
    CHECK(v.passed);
    CHECK(contains(v.message,
                   "2 lost with 2 JobManager(s), 1 restored though no JobManager completed it"));
    oracle.checkpoint_triggered(t, 4, {});
    oracle.checkpoint_aborted(t, 4, engine::CheckpointFailureReason::checkpoint_expired, "expired");
    oracle.restore_started(t, 3001, 4, {});
    CHECK(contains(oracle.verdict().message,
                   "restores checkpoint 4 at 0.000s, which its coordinator aborted"));
    CheckpointHistoryOracle cut;
    cut.checkpoint_triggered(t, 1, {});
    cut.set_run_cut();
    CHECK(cut.verdict().passed);  // a run cut short may end with a checkpoint under way
    CheckpointHistoryOracle failed;
    failed.checkpoint_triggered(t, 1, {});
    failed.job_failed(t, "restart strategy exhausted");
    CHECK(contains(
        failed.verdict().message,
        "1 under way when the job failed (not judged)"));  // a metadata write left to settle
}

}  // namespace
}  // namespace eosim::oracles
