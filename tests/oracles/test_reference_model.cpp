// ReferenceModel (oracles/reference_model.h): the job evaluated directly over a tiny hand-written
// input gives the hand-computed sink output and keyed state after input prefixes; prefixes
// evaluated incrementally agree with fresh evaluations (property).
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "oracles/reference_model.h"

namespace eosim::oracles {
namespace {

using engine::EdgeKind;
using engine::OperatorKind;
using engine::Record;
using engine::SourceOffsets;
using engine::VertexSpec;

// source -> map (key mod 2, value + 1) -> filter (drops odd values) -> keyed_count -> sink.
engine::JobSpec pipeline(OperatorKind keyed = OperatorKind::keyed_count) {
    engine::JobSpec job;
    VertexSpec source;
    source.id = "source";
    source.kind = OperatorKind::kafka_source;
    source.topic = "in";
    source.parallelism = 2;
    VertexSpec map;
    map.id = "map";
    map.kind = OperatorKind::map;
    map.parallelism = 2;
    map.inputs = {{"source", EdgeKind::forward}};
    map.map.key_modulus = 2;
    map.map.value_offset = 1;
    VertexSpec filter;
    filter.id = "filter";
    filter.kind = OperatorKind::filter;
    filter.parallelism = 2;
    filter.inputs = {{"map", EdgeKind::forward}};
    filter.filter.modulus = 2;
    filter.filter.drop_remainder = 1;
    VertexSpec count;
    count.id = "count";
    count.kind = keyed;
    count.parallelism = 2;
    count.inputs = {{"filter", EdgeKind::hash}};
    VertexSpec sink;
    sink.id = "sink";
    sink.kind = OperatorKind::sink;
    sink.parallelism = 2;
    sink.inputs = {{"count", EdgeKind::forward}};
    job.vertices = {source, map, filter, count, sink};
    return job;
}

// Partition 0: (1,10) (2,3) (1,5); partition 1: (3,4) (1,7) (2,8).
// After map:    (1,11) (0,4) (1,6);             (1,5) (1,8) (0,9).
// After filter:        (0,4) (1,6);                   (1,8).
ModelInput tiny_input() {
    return ModelInput{{"in", {{{1, 10}, {2, 3}, {1, 5}}, {{3, 4}, {1, 7}, {2, 8}}}}};
}

std::vector<Record> sorted(std::vector<Record> records) {
    std::sort(records.begin(), records.end());
    return records;
}

TEST_CASE("reference model: source -> map -> filter -> keyed_count -> sink over a tiny input",
          "[reference_model]") {
    const engine::JobSpec job = pipeline();
    const ReferenceModel model(job, tiny_input());
    CHECK(model.input_records() == 6);
    // Running counts: key 0 once, key 1 twice.
    CHECK(sorted(model.sink_output("sink")) == std::vector<Record>{{0, 1}, {1, 1}, {1, 2}});
    // Intermediate vertices are not sinks but their output is there too.
    CHECK(sorted(model.sink_output("filter")) == std::vector<Record>{{0, 4}, {1, 6}, {1, 8}});
    CHECK(model.sink_output("map").size() == 6);
}

TEST_CASE("reference model: keyed state after input prefixes", "[reference_model]") {
    const engine::JobSpec job = pipeline();
    const ReferenceModel model(job, tiny_input());
    using State = std::map<int64_t, int64_t>;
    // Nothing consumed.
    CHECK(model.keyed_state("count", SourceOffsets{}) == State{});
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 0}, {{"in", 1}, 0}}) == State{});
    // The first two records of each partition: (0,4) and (1,8) pass.
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 2}, {{"in", 1}, 2}}) ==
          State{{0, 1}, {1, 1}});
    // Partition 0 only (partition 1 not named counts as not consumed): (0,4) (1,6).
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 3}}) == State{{0, 1}, {1, 1}});
    // Partition 1 only: (1,8).
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 1}, 3}}) == State{{1, 1}});
    // The whole input, and offsets past the end are clamped.
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 3}, {{"in", 1}, 3}}) ==
          State{{0, 1}, {1, 2}});
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 99}, {{"in", 1}, 99}}) ==
          State{{0, 1}, {1, 2}});
    // Offsets of another topic do not count.
    CHECK(model.keyed_state("count", SourceOffsets{{{"other", 0}, 3}}) == State{});
}

TEST_CASE(
    "reference model: keyed state after prefixes queried in any order equals a fresh evaluation",
    "[reference_model]") {
    // keyed_state continues from the previous prefix when the new one extends it; that must give
    // what evaluating the prefix from scratch gives, for any input and any sequence of prefixes.
    rc::prop("incremental prefixes agree with fresh models", [] {
        const bool sum = *rc::gen::arbitrary<bool>();
        const engine::JobSpec job =
            pipeline(sum ? OperatorKind::keyed_sum : OperatorKind::keyed_count);
        ModelInput input{{"in", {{}, {}}}};
        for (auto& partition : input["in"]) {
            const auto records =
                *rc::gen::container<std::vector<Record>>(rc::gen::construct<Record>(
                    rc::gen::inRange<int64_t>(0, 5), rc::gen::inRange<int64_t>(-10, 10)));
            for (const Record& r : records) partition.push_back({r.key, r.value});
        }
        const ReferenceModel model(job, input);
        const auto prefixes = *rc::gen::container<std::vector<std::pair<int64_t, int64_t>>>(
            rc::gen::pair(rc::gen::inRange<int64_t>(0, 40), rc::gen::inRange<int64_t>(0, 40)));
        for (const auto& [p0, p1] : prefixes) {
            const SourceOffsets prefix{{{"in", 0}, p0}, {{"in", 1}, p1}};
            const ReferenceModel fresh(job, input);
            RC_ASSERT(model.keyed_state("count", prefix) == fresh.keyed_state("count", prefix));
        }
    });
}

TEST_CASE("reference model: keyed_sum sums the mapped values", "[reference_model]") {
    const engine::JobSpec job = pipeline(OperatorKind::keyed_sum);
    const ReferenceModel model(job, tiny_input());
    CHECK(sorted(model.sink_output("sink")) == std::vector<Record>{{0, 4}, {1, 6}, {1, 14}});
    CHECK(model.keyed_state("count", SourceOffsets{{{"in", 0}, 3}, {{"in", 1}, 3}}) ==
          std::map<int64_t, int64_t>{{0, 4}, {1, 14}});
}

TEST_CASE("reference model: a union of two sources sees both inputs", "[reference_model]") {
    engine::JobSpec job;
    VertexSpec a;
    a.id = "a";
    a.kind = OperatorKind::kafka_source;
    a.topic = "left";
    VertexSpec b;
    b.id = "b";
    b.kind = OperatorKind::kafka_source;
    b.topic = "right";
    VertexSpec u;
    u.id = "u";
    u.kind = OperatorKind::union_all;
    u.inputs = {{"a", EdgeKind::forward}, {"b", EdgeKind::forward}};
    VertexSpec c;
    c.id = "c";
    c.kind = OperatorKind::keyed_count;
    c.inputs = {{"u", EdgeKind::hash}};
    VertexSpec sink;
    sink.id = "sink";
    sink.kind = OperatorKind::sink;
    sink.inputs = {{"c", EdgeKind::forward}};
    job.vertices = {a, b, u, c, sink};
    const ReferenceModel model(job,
                               ModelInput{{"left", {{{5, 1}, {6, 1}}}}, {"right", {{{5, 2}}}}});
    CHECK(model.input_records() == 3);
    CHECK(sorted(model.sink_output("sink")) == std::vector<Record>{{5, 1}, {5, 2}, {6, 1}});
    CHECK(model.keyed_state("c", SourceOffsets{{{"right", 0}, 1}}) ==
          std::map<int64_t, int64_t>{{5, 1}});
}

}  // namespace
}  // namespace eosim::oracles
