// ReferenceModel::add_deployment (oracles/reference_model.h): a deployment that runs another
// program from a savepoint's offsets on. Hand-computed over a tiny input: the expected output is
// v1's output up to the offsets followed by v2's from them; operators that kept their uid continue
// their state, an added one starts empty, a removed one's state is gone, and a renamed uid starts
// afresh. A sink a later program adds expects that program's output over its own range only, and
// EverySinkOracle judges it next to the kept sink (negative controls: a duplicate, a record of v1's
// range).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracles/every_sink_oracle.h"
#include "oracles/exactly_once_output_oracle.h"
#include "oracles/reference_model.h"
#include "tests/oracles/model_fixture.h"

namespace eosim::oracles {
namespace {

using namespace model_fixture;
using State = std::map<int64_t, int64_t>;

// v1: source -> count (uid "c") -> sink (uid "out").
engine::JobSpec v1() { return count_job("c", "out"); }

// v2: source -> filter (drops odd values) -> count (uid `count_uid`) -> total (keyed_sum, new) ->
// sink.
engine::JobSpec v2(const std::string& count_uid) {
    engine::JobSpec job;
    VertexSpec filter = vertex("filter", OperatorKind::filter, {{"source", EdgeKind::forward}});
    filter.filter.modulus = 2;
    filter.filter.drop_remainder = 1;
    job.vertices = {
        vertex("source", OperatorKind::kafka_source, {}, "in"), filter,
        vertex("count", OperatorKind::keyed_count, {{"filter", EdgeKind::hash}}, {}, count_uid),
        vertex("total", OperatorKind::keyed_sum, {{"count", EdgeKind::hash}}, {}, "t"),
        vertex("sink", OperatorKind::sink, {{"total", EdgeKind::forward}}, "out", "out")};
    return job;
}

// Partition 0: (1,10) (2,3) | (1,5); partition 1: (3,4) | (1,7) (2,8); "|" is the savepoint.
ModelInput tiny_two_round_input() {
    return ModelInput{{"in", {{{1, 10}, {2, 3}, {1, 5}}, {{3, 4}, {1, 7}, {2, 8}}}}};
}
const SourceOffsets kSavepointOffsets{{{"in", 0}, 2}, {{"in", 1}, 1}};
const SourceOffsets kEnd{{{"in", 0}, 3}, {{"in", 1}, 3}};

std::vector<Record> records(const RecordMultiset& set) { return set.records(); }

TEST_CASE(
    "reference model deployments: an added filter and keyed_sum, the kept uid's state continues",
    "[reference_model][upgrade]") {
    const engine::JobSpec first = v1();
    const engine::JobSpec second = v2("c");
    ReferenceModel model(first, tiny_two_round_input());
    // Without the deployment: v1 over everything.
    CHECK(records(model.expected_output("sink")).size() == 6);
    model.add_deployment(second, kSavepointOffsets);
    // v1 before the savepoint: (1,10) (2,3) (3,4) counted once each. v2 after: only (2,8) passes
    // the filter; count continues (key 2: 2), total starts empty (key 2: 0 + 2).
    CHECK(records(model.expected_output("sink")) ==
          std::vector<Record>{{1, 1}, {2, 1}, {2, 2}, {3, 1}});
    CHECK(model.final_table("sink") == std::vector<Record>{{1, 1}, {2, 2}, {3, 1}});
    // State at the savepoint, in v2's vertices: count continues, total is new.
    CHECK(model.keyed_state("count", kSavepointOffsets) == State{{1, 1}, {2, 1}, {3, 1}});
    CHECK(model.keyed_state("total", kSavepointOffsets) == State{});
    CHECK(model.keyed_state("count", kEnd) == State{{1, 1}, {2, 2}, {3, 1}});
    CHECK(model.keyed_state("total", kEnd) == State{{2, 2}});
    // Before the savepoint the prefix is v1's.
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 1}, {{"in", 1}, 0}}) ==
          State{{1, 1}});
    // v2's segment alone (what a verification job of v2 writes), and up to a cut inside it.
    CHECK(records(model.segment_output(1, "out", nullptr)) == std::vector<Record>{{2, 2}});
    const SourceOffsets partway{{{"in", 0}, 3}, {{"in", 1}, 2}};
    CHECK(records(model.segment_output(1, "out", &partway)).empty());
}

TEST_CASE(
    "reference model deployments: a renamed uid starts afresh and a removed operator's state is gone",
    "[reference_model][upgrade]") {
    const engine::JobSpec first = v1();
    SECTION("renamed count") {
        const engine::JobSpec second = v2("c-renamed");
        ReferenceModel model(first, tiny_two_round_input());
        model.add_deployment(second, kSavepointOffsets);
        CHECK(model.keyed_state("count", kSavepointOffsets) == State{});
        CHECK(records(model.expected_output("sink")) ==
              std::vector<Record>{{1, 1}, {2, 1}, {2, 1}, {3, 1}});
    }
    SECTION("count removed: source -> sink") {
        engine::JobSpec second;
        second.vertices = {
            vertex("source", OperatorKind::kafka_source, {}, "in"),
            vertex("sink", OperatorKind::sink, {{"source", EdgeKind::forward}}, "out", "out")};
        ReferenceModel model(first, tiny_two_round_input());
        model.add_deployment(second, kSavepointOffsets);
        CHECK(records(model.expected_output("sink")) ==
              std::vector<Record>{{1, 1}, {1, 5}, {1, 7}, {2, 1}, {2, 8}, {3, 1}});
        // And back to v1's program: the count's state was dropped with v2, it starts again.
        const engine::JobSpec third = v1();
        model.add_deployment(third, kEnd);
        CHECK(model.keyed_state("count", kEnd) == State{});
    }
}

// v2 of v1 plus a sink v1 did not have: source -> filter (drops odd values) -> audit (uid "a").
engine::JobSpec v2_with_audit() {
    engine::JobSpec job = v1();
    VertexSpec filter = vertex("filter", OperatorKind::filter, {{"source", EdgeKind::forward}});
    filter.filter.modulus = 2;
    filter.filter.drop_remainder = 1;
    job.vertices.insert(job.vertices.begin() + 2, filter);
    job.vertices.push_back(
        vertex("audit", OperatorKind::sink, {{"filter", EdgeKind::forward}}, "audit", "a"));
    return job;
}

TEST_CASE(
    "reference model deployments: a sink added by a later program expects its output over that program's range only",
    "[reference_model][upgrade]") {
    const engine::JobSpec first = v1();
    const engine::JobSpec second = v2_with_audit();
    ReferenceModel model(first, tiny_two_round_input());
    // A sink of no program the model ran, nor declared: the caller's mistake.
    CHECK_THROWS_AS(model.expected_output("audit"), std::invalid_argument);
    CHECK_THROWS_AS(model.final_table("audit"), std::invalid_argument);
    // Declared (a later deployment's), before the deployment: nothing is expected of it.
    model.expect_sinks({"audit"});
    CHECK(records(model.expected_output("audit")).empty());
    model.add_deployment(second, kSavepointOffsets);
    // After the savepoint: (1,5) | (1,7) (2,8): only (2,8) has an even value. The kept sink
    // continues.
    CHECK(records(model.expected_output("audit")) == std::vector<Record>{{2, 8}});
    CHECK(model.final_table("audit") == std::vector<Record>{{2, 8}});
    CHECK(records(model.expected_output("sink")) ==
          std::vector<Record>{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {3, 1}});
    // A vertex that is no sink, and a mistyped id, are errors after the deployment too.
    CHECK_THROWS_AS(model.expected_output("filter"), std::invalid_argument);
    CHECK_THROWS_AS(model.expected_output("audti"), std::invalid_argument);
}

TEST_CASE(
    "every-sink oracle: passes when each sink's oracle passes, fires naming the sink whose oracle fired",
    "[oracles][upgrade]") {
    const engine::JobSpec first = v1();
    const engine::JobSpec second = v2_with_audit();
    ReferenceModel model(first, tiny_two_round_input());
    model.add_deployment(second, kSavepointOffsets);
    const std::vector<Record> sink = records(model.expected_output("sink"));
    auto judge = [&](const std::vector<Record>& audit) {
        EverySinkOracle every("exactly_once_output");
        every.add(std::make_unique<ExactlyOnceOutputOracle>(model, "sink",
                                                            engine::SinkOutputShape::appended,
                                                            [&] { return RecordMultiset(sink); }));
        every.add(std::make_unique<ExactlyOnceOutputOracle>(
            model, "audit", engine::SinkOutputShape::appended,
            [audit] { return RecordMultiset(audit); }));
        return every.verdict();
    };
    const Verdict good = judge({{2, 8}});
    INFO(good.message);
    CHECK(good.passed);
    CHECK(contains(good.message, "sink 'sink'"));
    CHECK(contains(good.message, "sink 'audit'"));
    // Negative controls: the added sink's record duplicated, or one of v1's range written into it.
    const Verdict duplicated = judge({{2, 8}, {2, 8}});
    CHECK_FALSE(duplicated.passed);
    CHECK(contains(duplicated.message, "sink 'audit'"));
    CHECK_FALSE(contains(duplicated.message, "sink 'sink'"));
    CHECK_FALSE(judge({{2, 8}, {2, 3}}).passed);
}

}  // namespace
}  // namespace eosim::oracles

namespace eosim::oracles {
namespace {

// A rollback: v1 runs to the savepoint, v2 (same program) from it to the end of the
// input and stops there, then v3 starts again from v1's savepoint: the records after it are
// processed twice, each deployment continuing the state at the savepoint.
TEST_CASE("reference model deployments: a rollback to an older savepoint processes its range again",
          "[reference_model][upgrade]") {
    const engine::JobSpec first = v1();
    const engine::JobSpec second = v1();
    const engine::JobSpec third = v1();
    ReferenceModel model(first, tiny_two_round_input());
    model.add_deployment(second, kSavepointOffsets, 0, kSavepointOffsets);
    // v3 from the savepoint v1 took (origin segment 0), after v2 stopped at the end.
    model.add_deployment(third, kSavepointOffsets, 0, kEnd);
    // v1: (1,10) (2,3) (3,4) -> (1,1) (2,1) (3,1); v2 and v3 each: (1,5) (1,7) (2,8) -> (1,2) (1,3)
    // (2,2).
    CHECK(records(model.expected_output("sink")) ==
          std::vector<Record>{
              {1, 1}, {1, 2}, {1, 2}, {1, 3}, {1, 3}, {2, 1}, {2, 2}, {2, 2}, {3, 1}});
    // v3's restores see v1's state at the savepoint, not v2's end state.
    CHECK(model.keyed_state("count", kSavepointOffsets) == State{{1, 1}, {2, 1}, {3, 1}});
    CHECK(model.keyed_state("count", kEnd) == State{{1, 3}, {2, 2}, {3, 1}});
    SECTION("a rollback that starts from the middle segment's state") {
        ReferenceModel again(first, tiny_two_round_input());
        const SourceOffsets partway{{{"in", 0}, 3}, {{"in", 1}, 2}};
        again.add_deployment(second, kSavepointOffsets, 0, kSavepointOffsets);
        // v3 from a savepoint v2 took at `partway`, after v2 ran to the end: (2,8) processed twice,
        // each time on v2's state at `partway`.
        again.add_deployment(third, partway, 1, kEnd);
        CHECK(records(again.expected_output("sink")) ==
              std::vector<Record>{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {2, 2}, {3, 1}});
        CHECK(again.keyed_state("count", partway) == State{{1, 3}, {2, 1}, {3, 1}});
    }
}

}  // namespace
}  // namespace eosim::oracles
