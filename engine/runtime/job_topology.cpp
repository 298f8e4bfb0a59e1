#include "engine/runtime/job_topology.h"

namespace eosim::engine {

namespace {
int32_t fan_in(EdgeKind kind, int32_t producer_parallelism) {
    return kind == EdgeKind::forward ? 1 : producer_parallelism;
}
}  // namespace

int32_t JobTopology::input_index(int32_t consumer, int32_t edge, int32_t producer_subtask) const {
    const VertexSpec& v = job_.vertices[static_cast<size_t>(consumer)];
    int32_t index = 0;
    for (int32_t e = 0; e < edge; ++e) {
        const InputEdge& in = v.inputs[static_cast<size_t>(e)];
        index += fan_in(in.kind, job_.find(in.from)->parallelism);
    }
    const InputEdge& in = v.inputs[static_cast<size_t>(edge)];
    return index + (in.kind == EdgeKind::forward ? 0 : producer_subtask);
}

std::vector<ChannelEnd> JobTopology::input_channels(int32_t vertex, int32_t subtask) const {
    std::vector<ChannelEnd> channels;
    const VertexSpec& v = job_.vertices[static_cast<size_t>(vertex)];
    for (const InputEdge& in : v.inputs) {
        const int32_t producer = job_.vertex_index(in.from);
        const int32_t producer_parallelism =
            job_.vertices[static_cast<size_t>(producer)].parallelism;
        for (int32_t p = 0; p < producer_parallelism; ++p) {
            if (in.kind == EdgeKind::forward && p != subtask) continue;
            channels.push_back(ChannelEnd{producer, p, -1});
        }
    }
    // The producer's numbering of each channel: find it among the producer's outputs.
    for (int32_t c = 0; c < static_cast<int32_t>(channels.size()); ++c) {
        ChannelEnd& end = channels[static_cast<size_t>(c)];
        const auto outputs = output_channels(end.vertex, end.subtask);
        for (int32_t o = 0; o < static_cast<int32_t>(outputs.size()); ++o) {
            const ChannelEnd& out = outputs[static_cast<size_t>(o)];
            if (out.vertex == vertex && out.subtask == subtask && out.channel == c) end.channel = o;
        }
    }
    return channels;
}

std::vector<int32_t> JobTopology::input_edges(int32_t vertex, int32_t subtask) const {
    std::vector<int32_t> edges;
    const VertexSpec& v = job_.vertices[static_cast<size_t>(vertex)];
    for (int32_t e = 0; e < static_cast<int32_t>(v.inputs.size()); ++e) {
        const InputEdge& in = v.inputs[static_cast<size_t>(e)];
        const int32_t producer_parallelism = job_.find(in.from)->parallelism;
        for (int32_t p = 0; p < producer_parallelism; ++p) {
            if (in.kind == EdgeKind::forward && p != subtask) continue;
            edges.push_back(e);
        }
    }
    return edges;
}

std::vector<ChannelEnd> JobTopology::output_channels(int32_t vertex, int32_t subtask) const {
    std::vector<ChannelEnd> channels;
    const std::string& id = job_.vertices[static_cast<size_t>(vertex)].id;
    for (int32_t w = 0; w < static_cast<int32_t>(job_.vertices.size()); ++w) {
        const VertexSpec& consumer = job_.vertices[static_cast<size_t>(w)];
        for (int32_t e = 0; e < static_cast<int32_t>(consumer.inputs.size()); ++e) {
            const InputEdge& in = consumer.inputs[static_cast<size_t>(e)];
            if (in.from != id) continue;
            for (int32_t t = 0; t < consumer.parallelism; ++t) {
                if (in.kind == EdgeKind::forward && t != subtask) continue;
                channels.push_back(ChannelEnd{w, t, input_index(w, e, subtask)});
            }
        }
    }
    return channels;
}

std::vector<OutputGroup> JobTopology::output_groups(int32_t vertex) const {
    std::vector<OutputGroup> groups;
    const std::string& id = job_.vertices[static_cast<size_t>(vertex)].id;
    int32_t next_channel = 0;
    for (int32_t w = 0; w < static_cast<int32_t>(job_.vertices.size()); ++w) {
        const VertexSpec& consumer = job_.vertices[static_cast<size_t>(w)];
        for (const InputEdge& in : consumer.inputs) {
            if (in.from != id) continue;
            OutputGroup group{in.kind, w, {}, in.reads_late_output()};
            if (in.kind == EdgeKind::forward) {
                group.channel_of_subtask.push_back(next_channel++);
            } else {
                for (int32_t t = 0; t < consumer.parallelism; ++t)
                    group.channel_of_subtask.push_back(next_channel++);
            }
            groups.push_back(std::move(group));
        }
    }
    return groups;
}

int32_t JobTopology::total_subtasks() const {
    int32_t total = 0;
    for (const VertexSpec& v : job_.vertices) total += v.parallelism;
    return total;
}

}  // namespace eosim::engine
