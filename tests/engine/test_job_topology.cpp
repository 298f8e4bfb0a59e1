// JobTopology (engine/job_topology.h): both ends of every channel agree on its numbering. For each
// consumer input channel, the producer's output channel at the stated index names the consumer
// back (and vice versa); output groups agree with output channels; channel counts follow the edge
// kinds. Hand-written graphs with forward, hash and rebalance edges and a union of two sources,
// then random layered graphs.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/runtime/job_topology.h"

namespace eosim::engine {
namespace {

VertexSpec vertex(std::string id, OperatorKind kind, int32_t parallelism,
                  std::vector<InputEdge> inputs = {}) {
    VertexSpec v;
    v.id = std::move(id);
    v.kind = kind;
    v.parallelism = parallelism;
    v.inputs = std::move(inputs);
    if (kind == OperatorKind::kafka_source) v.topic = "input";
    return v;
}

// Checks every invariant of the topology of `job`: returns the first violation ("" when none) and
// counts the input channels checked in `*channels`.
std::string check_topology(const JobSpec& job, int64_t* channels = nullptr) {
    const JobTopology topology(job);
    int64_t counted = 0;
    int32_t total = 0;
    auto where = [&](int32_t v, int32_t s) {
        return job.vertices[static_cast<size_t>(v)].id + "-" + std::to_string(s);
    };
    for (int32_t v = 0; v < static_cast<int32_t>(job.vertices.size()); ++v) {
        const VertexSpec& spec = job.vertices[static_cast<size_t>(v)];
        total += spec.parallelism;
        for (int32_t s = 0; s < spec.parallelism; ++s) {
            // The number of input channels each edge kind implies.
            int32_t expected_inputs = 0;
            for (const InputEdge& in : spec.inputs) {
                expected_inputs +=
                    in.kind == EdgeKind::forward ? 1 : job.find(in.from)->parallelism;
            }
            const auto inputs = topology.input_channels(v, s);
            if (static_cast<int32_t>(inputs.size()) != expected_inputs) {
                return where(v, s) + ": " + std::to_string(inputs.size()) +
                       " input channels, expected " + std::to_string(expected_inputs);
            }
            std::set<std::pair<int32_t, int32_t>> producers;
            for (int32_t c = 0; c < static_cast<int32_t>(inputs.size()); ++c) {
                const ChannelEnd& producer = inputs[static_cast<size_t>(c)];
                const std::string at = where(v, s) + " input " + std::to_string(c);
                const auto outputs = topology.output_channels(producer.vertex, producer.subtask);
                if (producer.channel < 0 ||
                    producer.channel >= static_cast<int32_t>(outputs.size())) {
                    return at + ": producer channel index " + std::to_string(producer.channel) +
                           " out of range";
                }
                const ChannelEnd& back = outputs[static_cast<size_t>(producer.channel)];
                if (back.vertex != v || back.subtask != s || back.channel != c) {
                    return at + ": producer " + where(producer.vertex, producer.subtask) +
                           " output " + std::to_string(producer.channel) + " names " +
                           where(back.vertex, back.subtask) + " input " +
                           std::to_string(back.channel);
                }
                if (!producers.insert({producer.vertex, producer.subtask}).second)
                    return at + ": a second channel from one producer";
                ++counted;
            }
            // Every output channel names a consumer whose input at that index names us back.
            const auto outputs = topology.output_channels(v, s);
            for (int32_t o = 0; o < static_cast<int32_t>(outputs.size()); ++o) {
                const ChannelEnd& consumer = outputs[static_cast<size_t>(o)];
                const std::string at = where(v, s) + " output " + std::to_string(o);
                const auto consumer_inputs =
                    topology.input_channels(consumer.vertex, consumer.subtask);
                if (consumer.channel < 0 ||
                    consumer.channel >= static_cast<int32_t>(consumer_inputs.size())) {
                    return at + ": consumer channel index " + std::to_string(consumer.channel) +
                           " out of range";
                }
                const ChannelEnd& back = consumer_inputs[static_cast<size_t>(consumer.channel)];
                if (back.vertex != v || back.subtask != s || back.channel != o) {
                    return at + ": consumer " + where(consumer.vertex, consumer.subtask) +
                           " input " + std::to_string(consumer.channel) + " names another end";
                }
            }
            // Output groups (what emit() routes by) agree with the output channels.
            size_t grouped = 0;
            for (const OutputGroup& group : topology.output_groups(v)) {
                const int32_t consumer_parallelism =
                    job.vertices[static_cast<size_t>(group.consumer_vertex)].parallelism;
                const size_t expected =
                    group.kind == EdgeKind::forward ? 1 : static_cast<size_t>(consumer_parallelism);
                if (group.channel_of_subtask.size() != expected)
                    return where(v, s) + ": output group of the wrong size";
                for (size_t t = 0; t < expected; ++t) {
                    const int32_t channel = group.channel_of_subtask[t];
                    if (channel < 0 || channel >= static_cast<int32_t>(outputs.size()))
                        return where(v, s) + ": group channel out of range";
                    const ChannelEnd& end = outputs[static_cast<size_t>(channel)];
                    const int32_t want_subtask =
                        group.kind == EdgeKind::forward ? s : static_cast<int32_t>(t);
                    if (end.vertex != group.consumer_vertex || end.subtask != want_subtask) {
                        return where(v, s) + ": output group channel " + std::to_string(channel) +
                               " names " + where(end.vertex, end.subtask);
                    }
                }
                grouped += group.channel_of_subtask.size();
            }
            if (grouped != outputs.size())
                return where(v, s) + ": output groups do not cover the output channels";
        }
    }
    if (topology.total_subtasks() != total)
        return "total_subtasks " + std::to_string(topology.total_subtasks());
    if (channels != nullptr) *channels = counted;
    return "";
}

int64_t checked_channels(const JobSpec& job) {
    int64_t channels = 0;
    const std::string problem = check_topology(job, &channels);
    CHECK(problem == "");
    return channels;
}

TEST_CASE("topology: source -> forward map -> hash count -> rebalance sink", "[topology]") {
    JobSpec job;
    job.vertices = {
        vertex("source", OperatorKind::kafka_source, 3),
        vertex("map", OperatorKind::map, 3, {{"source", EdgeKind::forward}}),
        vertex("count", OperatorKind::keyed_count, 2, {{"map", EdgeKind::hash}}),
        vertex("sink", OperatorKind::sink, 4, {{"count", EdgeKind::rebalance}}),
    };
    // forward: 3 x 1; hash: 2 x 3; rebalance: 4 x 2.
    CHECK(checked_channels(job) == 3 + 6 + 8);
    const JobTopology topology(job);
    CHECK(topology.input_channels(1, 2).size() == 1);
    CHECK(topology.input_channels(1, 2)[0].subtask == 2);  // forward: the same subtask index
    CHECK(topology.output_channels(2, 1).size() == 4);
}

TEST_CASE("topology: a union of two sources with different parallelism and edge kinds",
          "[topology]") {
    JobSpec job;
    job.vertices = {
        vertex("left", OperatorKind::kafka_source, 2),
        vertex("right", OperatorKind::kafka_source, 3),
        vertex("union", OperatorKind::union_all, 2,
               {{"left", EdgeKind::forward}, {"right", EdgeKind::hash}}),
        vertex("count", OperatorKind::keyed_count, 3, {{"union", EdgeKind::hash}}),
        vertex("sink", OperatorKind::sink, 3, {{"count", EdgeKind::forward}}),
    };
    CHECK(checked_channels(job) == 2 * (1 + 3) + 3 * 2 + 3);
    // The union's channels: first the left edge (forward: one), then the right edge (three).
    const JobTopology topology(job);
    const auto inputs = topology.input_channels(2, 1);
    REQUIRE(inputs.size() == 4);
    CHECK(inputs[0].vertex == 0);
    CHECK(inputs[0].subtask == 1);
    for (int32_t p = 0; p < 3; ++p) {
        CHECK(inputs[static_cast<size_t>(1 + p)].vertex == 1);
        CHECK(inputs[static_cast<size_t>(1 + p)].subtask == p);
    }
}

TEST_CASE(
    "topology: each input channel knows its input edge, and an edge reading \"late\" makes a late output group",
    "[topology]") {
    JobSpec job;
    job.vertices = {
        vertex("left", OperatorKind::kafka_source, 2),
        vertex("right", OperatorKind::kafka_source, 3),
        vertex("union", OperatorKind::union_all, 2,
               {{"left", EdgeKind::forward}, {"right", EdgeKind::hash}}),
        vertex("sink", OperatorKind::sink, 2, {{"union", EdgeKind::forward}}),
        vertex("late_sink", OperatorKind::sink, 1, {{"union", EdgeKind::rebalance}}),
    };
    job.vertices[4].inputs[0].output = InputEdge::kLateOutput;
    const JobTopology topology(job);
    CHECK(topology.input_edges(2, 1) == std::vector<int32_t>{0, 1, 1, 1});
    CHECK(topology.input_edges(3, 0) == std::vector<int32_t>{0});
    const auto groups = topology.output_groups(2);
    REQUIRE(groups.size() == 2);
    CHECK_FALSE(groups[0].late);
    CHECK(groups[1].late);
    CHECK(groups[1].consumer_vertex == 4);
}

TEST_CASE("topology: one producer feeding two consumers, and a union of the same source twice",
          "[topology]") {
    JobSpec job;
    job.vertices = {
        vertex("source", OperatorKind::kafka_source, 2),
        vertex("even", OperatorKind::filter, 2, {{"source", EdgeKind::forward}}),
        vertex("mapped", OperatorKind::map, 3, {{"source", EdgeKind::rebalance}}),
        vertex("union", OperatorKind::union_all, 4,
               {{"even", EdgeKind::hash}, {"mapped", EdgeKind::rebalance}}),
        vertex("count", OperatorKind::keyed_count, 4, {{"union", EdgeKind::hash}}),
        vertex("sink", OperatorKind::sink, 4, {{"count", EdgeKind::forward}}),
    };
    CHECK(checked_channels(job) == 2 * 1 + 3 * 2 + 4 * (2 + 3) + 4 * 4 + 4);
    const JobTopology topology(job);
    // The source's outputs: the forward channel to "even", then the three to "mapped".
    const auto outputs = topology.output_channels(0, 1);
    REQUIRE(outputs.size() == 4);
    CHECK(outputs[0].vertex == 1);
    CHECK(outputs[0].subtask == 1);
    CHECK(outputs[3].vertex == 2);
    CHECK(outputs[3].subtask == 2);
}

TEST_CASE("topology: random layered graphs number channels consistently", "[topology]") {
    rc::prop("both ends agree on every channel", [] {
        JobSpec job;
        const int32_t sources = *rc::gen::inRange(1, 3);
        for (int32_t i = 0; i < sources; ++i) {
            job.vertices.push_back(vertex("src" + std::to_string(i), OperatorKind::kafka_source,
                                          *rc::gen::inRange(1, 5)));
        }
        const int32_t operators = *rc::gen::inRange(1, 5);
        for (int32_t i = 0; i < operators; ++i) {
            VertexSpec v =
                vertex("op" + std::to_string(i), OperatorKind::union_all, *rc::gen::inRange(1, 5));
            const int32_t existing = static_cast<int32_t>(job.vertices.size());
            const int32_t fan_in = *rc::gen::inRange(1, std::min(existing, 3) + 1);
            std::set<int32_t> used;
            for (int32_t e = 0; e < fan_in; ++e) {
                const int32_t from = *rc::gen::inRange(0, existing);
                if (!used.insert(from).second) continue;
                const VertexSpec& upstream = job.vertices[static_cast<size_t>(from)];
                EdgeKind kind =
                    *rc::gen::element(EdgeKind::forward, EdgeKind::hash, EdgeKind::rebalance);
                if (kind == EdgeKind::forward && upstream.parallelism != v.parallelism)
                    kind = EdgeKind::hash;
                v.inputs.push_back(InputEdge{upstream.id, kind});
            }
            job.vertices.push_back(std::move(v));
        }
        int64_t channels = 0;
        const std::string problem = check_topology(job, &channels);
        RC_ASSERT(problem == "");
        RC_ASSERT(channels > 0);
    });
}

}  // namespace
}  // namespace eosim::engine
