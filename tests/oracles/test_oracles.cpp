// The oracles (oracles/*.h), each with a passing case and negative controls that make it fail:
// OutputComparison counts and first offenders; ExactlyOnceOutputOracle on a duplicated and a
// missing record; AtLeastOnceOutputOracle passing with duplicates and failing on a missing record;
// StateAfterRestoreOracle fed restored state that disagrees with the model prefix;
// VisibilityOracle against a Kafka model whose read_committed ignores the last stable offset;
// LivenessOracle on a job that never finished, failed, or finished after the bound.
// sort_records against std::sort over small and huge spans.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <map>
#include <string>
#include <vector>

#include "oracles/at_least_once_output_oracle.h"
#include "oracles/exactly_once_output_oracle.h"
#include "oracles/liveness_oracle.h"
#include "oracles/output_comparison.h"
#include "oracles/record_sort.h"
#include "oracles/reference_model.h"
#include "oracles/state_after_restore_oracle.h"
#include "oracles/visibility_oracle.h"
#include "sim/external/kafka.h"
#include "sim/world.h"
#include "tests/oracles/model_fixture.h"

namespace eosim::oracles {
namespace {

using namespace model_fixture;
using sim::Duration;
using sim::Time;

// Partition 0: keys 1 1 2; partition 1: keys 3 1. Sink output: (1,1) (1,2) (1,3) (2,1) (3,1).
ModelInput count_input() {
    return ModelInput{{"in", {{{1, 0}, {1, 0}, {2, 0}}, {{3, 0}, {1, 0}}}}};
}

// ---- OutputComparison
// ------------------------------------------------------------------------------

TEST_CASE("output comparison: equal multisets in any order", "[oracles]") {
    const auto c = OutputComparison::of({{1, 1}, {2, 2}, {1, 1}}, {{1, 1}, {1, 1}, {2, 2}});
    CHECK(c.expected_records == 3);
    CHECK(c.actual_records == 3);
    CHECK(c.missing_records == 0);
    CHECK(c.duplicate_records == 0);
    CHECK_FALSE(c.first_missing);
    CHECK_FALSE(c.first_duplicate);
}

TEST_CASE("output comparison: finds the first missing and the first duplicate with counts",
          "[oracles]") {
    const auto c = OutputComparison::of({{3, 3}, {1, 1}, {2, 5}, {1, 1}},
                                        {{4, 4}, {2, 5}, {1, 1}, {2, 5}, {2, 5}});
    CHECK(c.expected_records == 4);
    CHECK(c.actual_records == 5);
    CHECK(c.missing_records == 2);    // one (1,1), one (3,3)
    CHECK(c.duplicate_records == 3);  // two extra (2,5), one unexpected (4,4)
    REQUIRE(c.first_missing);
    CHECK(c.first_missing->record == Record{1, 1});
    CHECK(c.first_missing->expected == 2);
    CHECK(c.first_missing->actual == 1);
    REQUIRE(c.first_duplicate);
    CHECK(c.first_duplicate->record == Record{2, 5});
    CHECK(c.first_duplicate->expected == 1);
    CHECK(c.first_duplicate->actual == 3);
    CHECK(OutputComparison::describe(*c.first_missing) == "(key=1, value=1) expected 2x, found 1x");
}

TEST_CASE("output comparison: empty sides", "[oracles]") {
    const auto nothing_out = OutputComparison::of({{1, 1}}, {});
    CHECK(nothing_out.missing_records == 1);
    CHECK(nothing_out.duplicate_records == 0);
    const auto nothing_expected = OutputComparison::of({}, {{1, 1}, {1, 1}});
    CHECK(nothing_expected.missing_records == 0);
    CHECK(nothing_expected.duplicate_records == 2);
    REQUIRE(nothing_expected.first_duplicate);
    CHECK(nothing_expected.first_duplicate->expected == 0);
    CHECK(nothing_expected.first_duplicate->actual == 2);
}

// ---- output oracles
// -------------------------------------------------------------------------------

constexpr auto kAppended = engine::SinkOutputShape::appended;
constexpr auto kKeyedTable = engine::SinkOutputShape::keyed_table;

TEST_CASE(
    "exactly-once output oracle: passes on the model output, fails on a duplicate or a missing record",
    "[oracles]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, count_input());
    const std::vector<Record> exact = model.sink_output("sink");
    REQUIRE(exact.size() == 5);

    ExactlyOnceOutputOracle good(model, "sink", kAppended, [&] { return exact; });
    CHECK(good.verdict().passed);
    CHECK(std::string(good.name()) == "exactly_once_output");

    std::vector<Record> duplicated = exact;
    duplicated.push_back(Record{1, 2});
    ExactlyOnceOutputOracle dup(model, "sink", kAppended, [&] { return duplicated; });
    const Verdict d = dup.verdict();
    CHECK_FALSE(d.passed);
    CHECK(contains(d.message, "0 missing, 1 duplicated"));
    CHECK(contains(d.message, "first duplicated (key=1, value=2) expected 1x, found 2x"));

    std::vector<Record> missing = exact;
    missing.erase(std::find(missing.begin(), missing.end(), Record{2, 1}));
    ExactlyOnceOutputOracle miss(model, "sink", kAppended, [&] { return missing; });
    const Verdict m = miss.verdict();
    CHECK_FALSE(m.passed);
    CHECK(contains(m.message, "1 missing, 0 duplicated"));
    CHECK(contains(m.message, "first missing (key=2, value=1) expected 1x, found 0x"));

    // The reader is asked at verdict time, not at construction.
    std::vector<Record> later;
    ExactlyOnceOutputOracle late(model, "sink", kAppended, [&] { return later; });
    later = exact;
    CHECK(late.verdict().passed);
}

TEST_CASE(
    "exactly-once output oracle on a cut run: missing output is noted, not judged, duplicates still are",
    "[oracles]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, count_input());
    const std::vector<Record> exact = model.sink_output("sink");
    std::vector<Record> prefix(exact.begin(), exact.begin() + 2);
    ExactlyOnceOutputOracle cut(model, "sink", kAppended, [&] { return prefix; });
    cut.set_run_cut("cut at the time_limit (60.000s) before the job finished");
    const Verdict c = cut.verdict();
    CHECK(c.passed);
    CHECK(contains(c.message,
                   "3 not (yet) committed: not judged, the run was cut (cut at the time_limit"));
    // Negative control: a duplicate in a cut run's output is still a violation.
    prefix.push_back(prefix.front());
    CHECK_FALSE(cut.verdict().passed);
    // And for a keyed table: a key the model has not got is still one.
    std::vector<Record> table{Record{99, 1}};
    ExactlyOnceOutputOracle keyed(model, "sink", kKeyedTable, [&] { return table; });
    keyed.set_run_cut("cut");
    CHECK_FALSE(keyed.verdict().passed);
    table.clear();
    CHECK(keyed.verdict().passed);
}

TEST_CASE(
    "exactly-once output oracle on a keyed table: the model's last value per key, nothing else",
    "[oracles]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, count_input());
    // Partition 0: keys 1 1 2; partition 1: keys 3 1 -> counts: key 1 ends at 3, keys 2 and 3 at 1.
    const std::vector<Record> table{{1, 3}, {2, 1}, {3, 1}};
    CHECK(model.final_table("sink") == table);
    const auto check = [&](std::vector<Record> shown) {
        return ExactlyOnceOutputOracle(model, "sink", kKeyedTable, [shown] { return shown; })
            .verdict();
    };
    CHECK(check(table).passed);
    CHECK(check({{3, 1}, {1, 3}, {2, 1}}).passed);  // any order
    const Verdict stale = check({{1, 2}, {2, 1}, {3, 1}});
    CHECK_FALSE(stale.passed);
    CHECK(contains(stale.message, "key 1 holds 2, expected 3"));
    const Verdict lost = check({{1, 3}, {3, 1}});
    CHECK_FALSE(lost.passed);
    CHECK(contains(lost.message, "key 2 missing (expected value 1)"));
    const Verdict extra = check({{1, 3}, {2, 1}, {3, 1}, {9, 1}});
    CHECK_FALSE(extra.passed);
    CHECK(contains(extra.message, "key 9 present (value 1), the model has no such key"));
    const Verdict twice = check({{1, 3}, {2, 1}, {3, 1}, {3, 1}});
    CHECK_FALSE(twice.passed);
    CHECK(contains(twice.message, "1 shown twice"));
}

TEST_CASE("at-least-once output oracle: passes with duplicates, fails on a missing record",
          "[oracles]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, count_input());
    const std::vector<Record> exact = model.sink_output("sink");

    AtLeastOnceOutputOracle good(model, "sink", [&] { return exact; });
    CHECK(good.verdict().passed);

    std::vector<Record> duplicated = exact;
    duplicated.insert(duplicated.end(), exact.begin(), exact.end());
    AtLeastOnceOutputOracle dup(model, "sink", [&] { return duplicated; });
    const Verdict d = dup.verdict();
    CHECK(d.passed);
    CHECK(contains(d.message, "0 missing, 5 duplicates"));

    std::vector<Record> missing = duplicated;
    std::erase(missing, Record{3, 1});  // both copies
    AtLeastOnceOutputOracle miss(model, "sink", [&] { return missing; });
    const Verdict m = miss.verdict();
    CHECK_FALSE(m.passed);
    CHECK(contains(m.message, "1 missing"));
    CHECK(contains(m.message, "first missing (key=3, value=1)"));
}

// ---- state after restore
// --------------------------------------------------------------------------

// What every subtask of an aligned checkpoint reports on restore: nothing in flight.
void report_no_channel_state(StateAfterRestoreOracle& oracle, int64_t attempt) {
    for (const char* v : {"source", "count", "sink"}) {
        for (int32_t s = 0; s < 2; ++s)
            oracle.channel_state_restored(Time::zero(), attempt, v, s, {});
    }
}

TEST_CASE(
    "state-after-restore oracle: restored state must equal the model over the checkpoint's prefix",
    "[oracles]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, count_input());
    // Checkpoint 3 covers partition 0 up to offset 2 (keys 1 1) and partition 1 up to 1 (key 3).
    const SourceOffsets offsets{{{"in", 0}, 2}, {{"in", 1}, 1}};
    REQUIRE(model.keyed_state("count", offsets) == std::map<int64_t, int64_t>{{1, 2}, {3, 1}});
    const Time at = Time::zero() + Duration::seconds(4);

    SECTION("agreeing state, split over the subtasks, passes") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 3, offsets);
        report_no_channel_state(oracle, 2);
        oracle.keyed_state_restored(at, 2, "count", 0,
                                    {});  // keys 1 and 3 are in subtask 1's key groups
        oracle.keyed_state_restored(at, 2, "count", 1, {{1, 2}, {3, 1}});
        const Verdict v = oracle.verdict();
        CHECK(v.passed);
        CHECK(contains(v.message, "1 restored keyed states matched"));
    }
    SECTION("an over-counted key fails, naming the checkpoint and the key") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 3, offsets);
        report_no_channel_state(oracle, 2);
        oracle.keyed_state_restored(at, 2, "count", 1, {{1, 3}, {3, 1}});
        CHECK(oracle.verdict().passed);  // not all subtasks in yet: nothing checked
        oracle.keyed_state_restored(at, 2, "count", 0, {});
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "restore of checkpoint 3"));
        CHECK(contains(v.message, "vertex 'count'"));
        CHECK(contains(v.message, "key 1: expected 2, restored 3 (over-counted)"));
    }
    SECTION("a missing key fails") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 3, offsets);
        report_no_channel_state(oracle, 2);
        oracle.keyed_state_restored(at, 2, "count", 0, {});
        oracle.keyed_state_restored(at, 2, "count", 1, {{1, 2}});
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "key 3: expected 1, restored nothing"));
    }
    SECTION("a key the prefix never reached fails") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 3, offsets);
        report_no_channel_state(oracle, 2);
        oracle.keyed_state_restored(at, 2, "count", 0, {{2, 1}});
        oracle.keyed_state_restored(at, 2, "count", 1, {{1, 2}, {3, 1}});
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "key 2: expected nothing, restored 1"));
    }
    SECTION("the state of the whole input does not pass for an earlier checkpoint") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 3, offsets);
        report_no_channel_state(oracle, 2);
        oracle.keyed_state_restored(at, 2, "count", 0, {{2, 1}});
        oracle.keyed_state_restored(at, 2, "count", 1, {{1, 3}, {3, 1}});
        CHECK_FALSE(oracle.verdict().passed);
    }
    SECTION("restores from scratch and unknown attempts are not checked") {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 1, 0, SourceOffsets{});
        oracle.keyed_state_restored(at, 1, "count", 0, {{1, 99}});
        oracle.keyed_state_restored(at, 1, "count", 1, {{7, 99}});
        oracle.keyed_state_restored(at, 5, "count", 0, {{1, 99}});
        oracle.keyed_state_restored(at, 5, "count", 1, {{1, 99}});
        const Verdict v = oracle.verdict();
        CHECK(v.passed);
        CHECK(contains(v.message, "0 restored"));
    }
}

// Unaligned checkpoints: the restored state plus the restored in-flight records make the model's
// state; a record lost from channel state, or both in state and in flight, is caught.
TEST_CASE("state-after-restore oracle: restored in-flight records complete the restored state",
          "[oracles]") {
    const engine::JobSpec job = count_job();
    const ReferenceModel model(job, count_input());
    const SourceOffsets offsets{{{"in", 0}, 2}, {{"in", 1}, 1}};  // model: {1: 2, 3: 1}
    const Time at = Time::zero() + Duration::seconds(4);
    using InFlight = std::vector<engine::InFlightRecords>;
    auto run = [&](const std::map<int64_t, int64_t>& state0, const InFlight& source0,
                   const InFlight& count1) {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 3, offsets);
        oracle.keyed_state_restored(at, 2, "count", 0, {});
        oracle.keyed_state_restored(at, 2, "count", 1,
                                    state0);  // key 1 is in subtask 1's key groups
        oracle.channel_state_restored(at, 2, "source", 0,
                                      source0);  // output channel state, toward count
        oracle.channel_state_restored(at, 2, "source", 1, {});
        oracle.channel_state_restored(at, 2, "count", 0, {});
        oracle.channel_state_restored(at, 2, "count", 1, count1);  // input channel state
        oracle.channel_state_restored(at, 2, "sink", 0, {});
        oracle.channel_state_restored(at, 2, "sink", 1, {});
        return std::make_pair(oracle.verdict(), oracle.in_flight_records_checked());
    };
    SECTION("one record in an output channel, one in an input channel: exact") {
        const auto [v, replayed] =
            run({{1, 1}}, {{"source", "count", {{1, 0}}}}, {{"source", "count", {{3, 0}}}});
        CHECK(v.passed);
        CHECK(replayed == 2);
    }
    SECTION("an in-flight record lost from channel state under-counts") {
        const auto [v, replayed] = run({{1, 1}}, {}, {{"source", "count", {{3, 0}}}});
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "key 1: expected 2, restored 1 (under-counted)"));
    }
    SECTION("a record both in the state and in flight over-counts") {
        const auto [v, replayed] =
            run({{1, 2}}, {{"source", "count", {{1, 0}}}}, {{"source", "count", {{3, 0}}}});
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "key 1: expected 2, restored 3 (over-counted)"));
    }
}

// ---- visibility
// -----------------------------------------------------------------------------------

struct KafkaWorld {
    explicit KafkaWorld(bool ignores_lso)
        : kafka(world.scheduler(), world.network(), broker,
                sim::external::KafkaOptions{Duration::seconds(60), true, ignores_lso}) {
        kafka.create_topic("out", 2);
    }
    sim::World world{sim::WorldOptions{}};
    sim::NodeId broker = world.nodes().add("kafka");
    sim::NodeId producer = world.nodes().add("producer");
    sim::external::KafkaCluster kafka;

    sim::external::ProducerHandle open_transaction(const std::string& id, int64_t key) {
        sim::external::ProducerHandle handle;
        REQUIRE(kafka.init_transactions(producer, id, &handle) == sim::external::KafkaError::none);
        REQUIRE(kafka.begin(producer, handle) == sim::external::KafkaError::none);
        REQUIRE(kafka.send(producer, handle, "out", 0, {key, 1}) ==
                sim::external::KafkaError::none);
        return handle;
    }
    void run_for(Duration d) { world.scheduler().run_until(world.now() + d); }
};

TEST_CASE("visibility oracle: committed and aborted transactions and plain appends are fine",
          "[oracles]") {
    KafkaWorld w(false);
    VisibilityOracle oracle(w.world.scheduler(), w.kafka, "out", Duration::millis(10));
    oracle.start();
    const auto committed = w.open_transaction("t-1", 1);
    const auto aborted = w.open_transaction("t-2", 2);
    w.open_transaction("t-3", 3);  // stays open: its records are behind the last stable offset
    REQUIRE(w.kafka.append(w.producer, "out", 1, {4, 1}) == sim::external::KafkaError::none);
    w.run_for(Duration::millis(100));
    REQUIRE(w.kafka.commit(w.producer, committed) == sim::external::KafkaError::none);
    REQUIRE(w.kafka.abort(w.producer, aborted) == sim::external::KafkaError::none);
    w.run_for(Duration::millis(100));
    const Verdict v = oracle.verdict();
    CHECK(v.passed);
    // The plain append, then t-1's record once it committed; t-2's is skipped, t-3's is behind the
    // LSO.
    CHECK(contains(v.message, "2 records read"));
}

TEST_CASE(
    "visibility oracle: fails when read_committed ignores the last stable offset and a transaction is open",
    "[oracles]") {
    KafkaWorld w(true);
    VisibilityOracle oracle(w.world.scheduler(), w.kafka, "out", Duration::millis(10));
    oracle.start();
    w.open_transaction("t-1", 42);
    w.run_for(Duration::millis(100));
    const Verdict v = oracle.verdict();
    CHECK_FALSE(v.passed);
    CHECK(contains(v.message, "(key=42, value=1)"));
    CHECK(contains(v.message, "still open"));
    CHECK(contains(v.message, "out/0@0"));
}

TEST_CASE(
    "visibility oracle: the same negative control with the transaction committed before the first poll passes",
    "[oracles]") {
    KafkaWorld w(true);
    VisibilityOracle oracle(w.world.scheduler(), w.kafka, "out", Duration::millis(10));
    oracle.start();
    const auto handle = w.open_transaction("t-1", 42);
    REQUIRE(w.kafka.commit(w.producer, handle) == sim::external::KafkaError::none);
    w.run_for(Duration::millis(100));
    CHECK(oracle.verdict().passed);
}

// ---- liveness
// -------------------------------------------------------------------------------------

TEST_CASE("liveness oracle: the job must finish within the bound after the faults stop",
          "[oracles]") {
    const Time quiet = Time::zero() + Duration::seconds(5);
    auto quiet_since = [quiet] { return quiet; };
    const Duration bound = Duration::seconds(10);

    SECTION("finished in time") {
        LivenessOracle oracle(bound, quiet_since);
        oracle.job_finished(Time::zero() + Duration::seconds(12));
        CHECK(oracle.verdict().passed);
    }
    SECTION("finished exactly at the bound") {
        LivenessOracle oracle(bound, quiet_since);
        oracle.job_finished(quiet + bound);
        CHECK(oracle.verdict().passed);
    }
    SECTION("never finished") {
        LivenessOracle oracle(bound, quiet_since);
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "did not finish"));
        CHECK(contains(v.message, "5.000s"));
    }
    SECTION("failed for good") {
        LivenessOracle oracle(bound, quiet_since);
        oracle.job_failed(Time::zero() + Duration::seconds(7), "restart strategy exhausted");
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "failed for good: restart strategy exhausted"));
    }
    SECTION("finished after the bound") {
        LivenessOracle oracle(bound, quiet_since);
        oracle.job_finished(Time::zero() + Duration::seconds(20));
        const Verdict v = oracle.verdict();
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message, "finished at 20.000s, later than 15.000s"));
    }
}

}  // namespace
TEST_CASE("record sort: the same order as std::sort, for every span of keys and values",
          "[oracles]") {
    rc::prop("sort_records agrees with std::sort", [] {
        // Small spans take the radix path (above its size threshold), huge ones the fallback.
        const auto span = *rc::gen::element<int64_t>(3, 1000, int64_t{1} << 40, INT64_MAX);
        const auto size = *rc::gen::inRange<size_t>(0, 2000);
        std::vector<Record> records;
        for (size_t i = 0; i < size; ++i) {
            const int64_t key = *rc::gen::inRange<int64_t>(-span / 2, span / 2);
            const int64_t value = *rc::gen::inRange<int64_t>(-span / 2, span / 2);
            records.push_back(Record{key, value});
        }
        if (*rc::gen::arbitrary<bool>())
            records.push_back(Record{INT64_MIN, INT64_MAX});  // spans of 2^64
        std::vector<Record> expected = records;
        std::sort(expected.begin(), expected.end());
        sort_records(records);
        RC_ASSERT(records == expected);
    });
}

}  // namespace eosim::oracles
