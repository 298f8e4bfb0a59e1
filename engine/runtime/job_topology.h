#pragma once
// The physical channels of a job graph: which subtask feeds which, and how each side numbers the
// channel. Both ends compute the same numbering from the JobSpec, so a message needs only ids.
#include <cstdint>
#include <vector>

#include "engine/vocabulary/job_spec.h"

namespace eosim::engine {

// The far end of a channel: its vertex, subtask, and the channel's index on that side.
struct ChannelEnd {
    int32_t vertex;
    int32_t subtask;
    int32_t channel;
};

// The output channels that serve one consumer edge, by consumer subtask.
struct OutputGroup {
    EdgeKind kind;
    int32_t consumer_vertex;
    std::vector<int32_t> channel_of_subtask;  // forward: one entry
    bool late = false;                        // the edge reads the producer's late-data side output
};

class JobTopology {
public:
    explicit JobTopology(const JobSpec& job) : job_(job) {}

    // Input channels of (vertex, subtask), each named by its producer end.
    std::vector<ChannelEnd> input_channels(int32_t vertex, int32_t subtask) const;
    // For each of those channels, in the same order, the index of the vertex's input edge it
    // serves.
    std::vector<int32_t> input_edges(int32_t vertex, int32_t subtask) const;
    // Output channels of (vertex, subtask), each named by its consumer end.
    std::vector<ChannelEnd> output_channels(int32_t vertex, int32_t subtask) const;
    // The same for every subtask of the vertex; forward groups serve the producer's own subtask
    // index.
    std::vector<OutputGroup> output_groups(int32_t vertex) const;
    int32_t total_subtasks() const;

private:
    // The index of (producer vertex, producer subtask)'s channel among the consumer's inputs.
    int32_t input_index(int32_t consumer, int32_t edge, int32_t producer_subtask) const;

    const JobSpec& job_;
};

}  // namespace eosim::engine
