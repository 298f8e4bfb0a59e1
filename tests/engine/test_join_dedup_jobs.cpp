// Whole runs of the join and dedup jobs (join-fast-slow.json, dedup-restore.json of the catalogue):
// - property: for random inputs (keys, rates, sizes, values; for the dedup also the disorder within
//   the watermark bound and the dedup bound) the engine's fault-free output equals the reference
//   model's exactly (the exactly-once output oracle compares the multisets);
// - the join through a two-input task with unaligned checkpoints (in-flight rows of both sides
//   persisted and replayed) and crashes stays exactly-once;
// - negative controls, with deliberately broken operators (here, never in the product): a join
// whose
//   restore loses the right side's rows misses pairs, and a dedup that forgets its periods on
//   restore emits duplicates; the output oracle and the state-after-restore oracle both fire.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "engine/runtime/dedup_operator.h"
#include "engine/runtime/join_operator.h"
#include "engine/runtime/operator_replacement.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

using scenarios::run_scenario;
using scenarios::RunOptions;

scenarios::Scenario shipped_scenario(const std::string& name) {
    return scenarios::load_scenario(testing::catalogue_scenario(name));
}

TEST_CASE("join job: fault-free output equals the model's for random inputs",
          "[join][join_property]") {
    const scenarios::Scenario base = shipped_scenario("join-fast-slow");
    rc::prop("random sizes, keys, rates and values of both sides", [&base] {
        scenarios::Scenario s = base;
        s.faults.clear();
        const int64_t keys = *rc::gen::inRange<int64_t>(1, 40);
        for (scenarios::InputSpec& in : s.inputs) {
            in.records = *rc::gen::inRange<int64_t>(0, 300);
            in.keys = keys;
            in.rate_per_second = *rc::gen::inRange<int64_t>(50, 2000);
            in.value_min = *rc::gen::inRange<int64_t>(-50, 50);
            in.value_max = in.value_min + *rc::gen::inRange<int64_t>(0, 50);
        }
        const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1000);
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        RC_LOG() << test::describe(result);
        RC_ASSERT(result.job_finished);
        RC_ASSERT(result.expectation_met);
    });
}

TEST_CASE(
    "dedup job: fault-free output equals the model's for random inputs and watermark strategies",
    "[dedup][dedup_property]") {
    const scenarios::Scenario base = shipped_scenario("dedup-restore");
    rc::prop(
        "random sizes, keys, rates, disorder within the watermark bound, and dedup bounds",
        [&base] {
            scenarios::Scenario s = base;
            s.faults.clear();
            const int64_t disorder_ms = *rc::gen::inRange<int64_t>(0, 300);
            const int64_t bound_ms = disorder_ms + *rc::gen::inRange<int64_t>(0, 200);
            for (VertexSpec& v : s.job.vertices) {
                if (v.kind == OperatorKind::kafka_source)
                    v.watermarks = WatermarkSpec{sim::Duration::millis(bound_ms), std::nullopt};
                if (v.kind == OperatorKind::dedup)
                    v.dedup.bound = sim::Duration::millis(*rc::gen::inRange<int64_t>(1, 1000));
            }
            for (scenarios::InputSpec& in : s.inputs) {
                in.records = *rc::gen::inRange<int64_t>(0, 400);
                in.keys = *rc::gen::inRange<int64_t>(1, 40);
                in.rate_per_second = *rc::gen::inRange<int64_t>(50, 3000);
                in.event_time = sim::external::EventTimeSpec{sim::Duration::millis(disorder_ms), 0,
                                                             sim::Duration::zero()};
            }
            const uint64_t seed = *rc::gen::inRange<uint64_t>(1, 1000);
            const auto result = run_scenario(s, RunOptions{seed, nullptr});
            RC_LOG() << "disorder " << disorder_ms << "ms, watermark bound " << bound_ms << "ms\n"
                     << test::describe(result);
            RC_ASSERT(result.job_finished);
            RC_ASSERT(result.expectation_met);
        });
}

TEST_CASE(
    "join job: unaligned checkpoints through the two-input task, with crashes, stay exactly-once",
    "[join]") {
    scenarios::Scenario s = shipped_scenario("join-fast-slow");
    s.job.checkpointing.unaligned = true;
    s.job.runtime.channel_credits = 1;  // little room: in-flight data for the barriers to overtake
    int64_t in_flight_checked = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        const auto result = run_scenario(s, RunOptions{seed, nullptr});
        INFO(test::describe(result));
        CHECK(result.expectation_met);
        CHECK(result.figures.restarts >= 1);
        if (test::verdict(result, "state_after_restore").message.find("in-flight") !=
            std::string::npos)
            ++in_flight_checked;
    }
    CHECK(in_flight_checked > 0);
}

// A join whose restore loses the right side: after its keyed state is restored (before anything
// else reaches it) it drops every right row it holds.
class RightSideLosingJoin final : public Operator {
public:
    explicit RightSideLosingJoin(std::unique_ptr<KeyedStateBackend> state)
        : join_(std::move(state)) {}
    void process(int32_t input, const Record& in, const Emit& out) override {
        if (!started_) forget_right_side();
        join_.process(input, in, out);
    }
    KeyedStateBackend* keyed_state() override { return join_.keyed_state(); }

private:
    void forget_right_side() {
        started_ = true;
        std::vector<StateKey> right;
        join_.keyed_state()->scan_state(
            kJoinRightState, [&right](const StateKey& cell, int64_t) { right.push_back(cell); });
        for (const StateKey& cell : right) join_.keyed_state()->remove(cell);
    }
    JoinOperator join_;
    bool started_ = false;
};

TEST_CASE(
    "join job negative control: a restore that loses one side's rows misses pairs, and both oracles see it",
    "[join]") {
    const ScopedOperatorReplacement broken(
        OperatorKind::join, [](const VertexSpec&, std::unique_ptr<KeyedStateBackend> state) {
            return std::make_unique<RightSideLosingJoin>(std::move(state));
        });
    const scenarios::Scenario s = shipped_scenario("join-fast-slow");
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(test::describe(result));
    CHECK(result.figures.restarts >= 1);
    CHECK_FALSE(result.expectation_met);
    CHECK_FALSE(test::verdict(result, "exactly_once_output").passed);
    CHECK(test::verdict(result, "exactly_once_output").message.find("missing") !=
          std::string::npos);
}

// A dedup that forgets its state on restore: it drops every cell (periods and their timers) it
// restored before anything reaches it.
class ForgetfulDedup final : public Operator {
public:
    ForgetfulDedup(int64_t bound_ms, std::unique_ptr<KeyedStateBackend> state)
        : dedup_(bound_ms, std::move(state)) {}
    void process(int32_t input, const Record& in, const Emit& out) override {
        forget();
        dedup_.process(input, in, out);
    }
    void advance_watermark(int64_t watermark, const Emit& out) override {
        forget();
        dedup_.advance_watermark(watermark, out);
    }
    KeyedStateBackend* keyed_state() override { return dedup_.keyed_state(); }

private:
    void forget() {
        if (started_) return;
        started_ = true;
        for (const auto& [cell, value] : dedup_.keyed_state()->cells())
            dedup_.keyed_state()->remove(cell);
    }
    DedupOperator dedup_;
    bool started_ = false;
};

TEST_CASE("dedup job negative control: a restore that forgets the periods lets duplicates through",
          "[dedup]") {
    const ScopedOperatorReplacement broken(
        OperatorKind::dedup, [](const VertexSpec& v, std::unique_ptr<KeyedStateBackend> state) {
            return std::make_unique<ForgetfulDedup>(v.dedup.bound.millis_count(), std::move(state));
        });
    const scenarios::Scenario s = shipped_scenario("dedup-restore");
    const auto result = run_scenario(s, RunOptions{1, nullptr});
    INFO(test::describe(result));
    CHECK(result.figures.restarts >= 1);
    CHECK_FALSE(result.expectation_met);
    CHECK_FALSE(test::verdict(result, "exactly_once_output").passed);
    CHECK(test::verdict(result, "exactly_once_output").message.find("duplicated") !=
          std::string::npos);
}

}  // namespace
}  // namespace eosim::engine
