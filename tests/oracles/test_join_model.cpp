// The reference model and the state-after-restore oracle for joins (oracles/reference_model.h,
// oracles/state_after_restore_oracle.h), on hand-computed inputs: the join's output and both
// sides' cells after a prefix, also evaluated incrementally; the oracle passing the right restored
// state and firing when a join side is missing or past the cut; in-flight rows of a join replayed
// by their side.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/runtime/join_operator.h"
#include "oracles/reference_model.h"
#include "oracles/state_after_restore_oracle.h"
#include "tests/oracles/model_fixture.h"

namespace eosim::oracles {
namespace {

using namespace model_fixture;
using engine::StateKey;
using sim::Duration;
using sim::Time;

// (The input carries no event time yet: every row's timestamp is 0.)
sim::external::KafkaRecord input(int64_t key, int64_t value) {
    return sim::external::KafkaRecord{key, value};
}

// left (1 partition), right (1 partition) -> join -> sink.
engine::JobSpec join_job() {
    engine::JobSpec job;
    job.vertices = {
        vertex("left", OperatorKind::kafka_source, {}, "l"),
        vertex("right", OperatorKind::kafka_source, {}, "r"),
        vertex("join", OperatorKind::join, {{"left", EdgeKind::hash}, {"right", EdgeKind::hash}}),
        vertex("sink", OperatorKind::sink, {{"join", EdgeKind::forward}}, "out")};
    return with_parallelism(job, 1);
}

// Left: (1, 10) (2, 20) (1, 11); right: (1, 3) (3, 4) (1, 5).
ModelInput join_input() {
    return ModelInput{{"l", {{input(1, 10), input(2, 20), input(1, 11)}}},
                      {"r", {{input(1, 3), input(3, 4), input(1, 5)}}}};
}

TEST_CASE("model: a join emits every pair of equal keys once, and holds both sides' rows",
          "[join][model]") {
    const engine::JobSpec job = join_job();
    const ReferenceModel model(job, join_input());
    const std::vector<Record> expected{record(1, 10003, 0), record(1, 10005, 0),
                                       record(1, 11003, 0), record(1, 11005, 0)};
    CHECK(model.sink_output("sink") == expected);
    const SourceOffsets prefix{{{"l", 0}, 2}, {{"r", 0}, 1}};
    const std::map<StateKey, int64_t> cells{{StateKey{1, engine::kJoinLeftState, 0, 10}, 1},
                                            {StateKey{2, engine::kJoinLeftState, 0, 20}, 1},
                                            {StateKey{1, engine::kJoinRightState, 0, 3}, 1}};
    CHECK(model.keyed_cells("join", prefix) == cells);
    // Continuing from that prefix gives what a fresh evaluation gives.
    const SourceOffsets all{{{"l", 0}, 3}, {{"r", 0}, 3}};
    const auto continued = model.keyed_cells("join", all);
    const ReferenceModel fresh(job, join_input());
    CHECK(continued == fresh.keyed_cells("join", all));
    CHECK(continued.size() == 6);
}

TEST_CASE("state-after-restore oracle: a join's restored rows must be the model's at the cut",
          "[join][oracles]") {
    const engine::JobSpec job = join_job();
    const ReferenceModel model(job, join_input());
    const SourceOffsets offsets{{{"l", 0}, 2}, {{"r", 0}, 1}};
    const Time at = Time::zero() + Duration::seconds(2);
    const std::map<StateKey, int64_t> left{{StateKey{1, engine::kJoinLeftState, 0, 10}, 1},
                                           {StateKey{2, engine::kJoinLeftState, 0, 20}, 1}};
    const std::map<StateKey, int64_t> right{{StateKey{1, engine::kJoinRightState, 0, 3}, 1}};
    using InFlight = std::vector<engine::InFlightRecords>;
    auto run = [&](const std::map<StateKey, int64_t>& cells, const InFlight& join_in_flight) {
        StateAfterRestoreOracle oracle(model, job);
        oracle.restore_started(at, 2, 4, offsets);
        for (const char* v : {"left", "right", "sink"})
            oracle.channel_state_restored(at, 2, v, 0, {});
        oracle.channel_state_restored(at, 2, "join", 0, join_in_flight);
        oracle.keyed_state_restored(at, 2, "join", 0, {});
        oracle.keyed_cells_restored(at, 2, "join", 0, cells);
        return oracle.verdict();
    };
    std::map<StateKey, int64_t> both = left;
    both.insert(right.begin(), right.end());
    SECTION("both sides at the cut: passes") {
        const Verdict v = run(both, {});
        CHECK(v.passed);
        CHECK(contains(v.message, "3 join rows"));
    }
    SECTION("the right side lost: fails naming the row") {
        const Verdict v = run(left, {});
        CHECK_FALSE(v.passed);
        CHECK(contains(v.message,
                       "key 1, right row (timestamp 0, value 3): expected 1 of it, restored none"));
    }
    SECTION("a right side restored past the cut: fails") {
        std::map<StateKey, int64_t> later = both;
        later[StateKey{3, engine::kJoinRightState, 0, 4}] = 1;
        CHECK_FALSE(run(later, {}).passed);
    }
    SECTION("the right row in flight (unaligned) completes the state, on its side") {
        const Verdict v = run(left, {{"right", "join", {record(1, 3, 0)}}});
        CHECK(v.passed);
        // The same row replayed as a left row is not the model's state.
        CHECK_FALSE(run(left, {{"left", "join", {record(1, 3, 0)}}}).passed);
    }
}

}  // namespace
}  // namespace eosim::oracles
