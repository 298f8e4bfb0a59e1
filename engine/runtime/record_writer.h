#pragma once
// A task's output side (Flink's RecordWriter with its result subpartitions): one channel per
// consumer subtask, records partitioned to them by each output edge (forward, hash, rebalance;
// the late-data side output to the edges that read it), collected in an open buffer per channel
// that is sealed when full, before any other element, and at least every buffer_timeout. A
// channel's queue sends in order and stops at the first buffer without a credit; barriers,
// markers and watermarks take none. A queue that grows past its credits backpressures the task.
//
// Checkpoints: an unaligned barrier is put ahead of the queued buffers, which the checkpoint side
// persists as output channel state (the writer hands them to its ChannelStateWriter).
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/checkpointing/channel_state_writer.h"
#include "engine/runtime/channel_element.h"
#include "engine/runtime/job_topology.h"
#include "engine/runtime/operators.h"
#include "engine/runtime/record_batch_pool.h"
#include "engine/vocabulary/run_observer.h"
#include "sim/network.h"

namespace eosim::engine {

class Task;

class RecordWriter {
public:
    RecordWriter(Task& task, const Deployment& deployment);

    bool empty() const { return channels_.empty(); }
    size_t size() const { return channels_.size(); }
    // What the operator emits to: the main output, and the side output when an edge reads it.
    Emit operator_output();
    void emit(const Record& record);       // the main output
    void emit_late(const Record& record);  // the late-data side output
    // Seals every open buffer and sends what credits allow.
    void flush();
    // Flushes, then queues `element` on every channel.
    void broadcast(ChannelElement element);
    // The consumer connected and granted `credits`; a credit came back.
    void channel_opened(int32_t channel, sim::ConnectionId connection, int32_t credits);
    void credit_returned(int32_t channel);
    // The consumer processed the end of data sent on `channel`; true once every consumer has.
    bool data_processed(int32_t channel);
    bool all_data_processed() const {
        for (const OutputChannel& out : channels_) {
            if (!out.data_processed) return false;
        }
        return true;
    }
    // Sends what every channel can (a restored task's recovered buffers).
    void send_all();
    // More buffers queued on a channel than it has credits for: the task reads no input.
    bool backpressured() const {
        for (const OutputChannel& out : channels_) {
            if (out.queued_buffers > channel_credits_) return true;
        }
        return false;
    }
    // The flush timer (buffer_timeout) fired.
    void flush_timer_fired();

    // Unaligned checkpoint: flushes, then puts `barrier` (sent as unaligned) ahead of every queued
    // buffer, which goes to `writer` as output channel state.
    void send_barrier_ahead(const ChannelElement& barrier, ChannelStateWriter& writer);
    // True while a barrier of `checkpoint_id` waits in some channel's queue.
    bool barrier_queued(int64_t checkpoint_id) const;
    // Aligned-checkpoint timeout on the output side: a queued barrier of `checkpoint_id` jumps
    // ahead as unaligned; the buffers it overtakes go to `writer`.
    void overtake_queued_barrier(int64_t checkpoint_id, ChannelStateWriter& writer);
    // A restore: the recovered buffers go to the head of their channels (told to `in_flight`).
    void queue_recovered(std::vector<std::vector<RecordBatch>>& recovered,
                         std::vector<InFlightRecords>& in_flight);

private:
    struct OutputChannel {
        ChannelEnd consumer;
        sim::NodeId consumer_node;
        sim::ConnectionId connection = UINT32_MAX;
        int32_t credits = 0;
        int32_t queued_buffers = 0;
        bool data_processed = false;  // the consumer processed the end of data
        std::deque<ChannelElement> queue;
        RecordBatch open_buffer;

        // Queues the open buffer for sending and opens the next one (a spare from `pool`), with
        // room for at least as many records as the last.
        void seal_buffer(RecordBatchPool& pool) {
            const size_t size = open_buffer.size();
            queue.push_back(
                ChannelElement{ChannelElement::Type::records, 0, std::move(open_buffer)});
            open_buffer = pool.take();
            open_buffer.reserve(size);
            ++queued_buffers;
        }
    };

    OutputChannel& known(int32_t channel);  // checked to be one of this task's (sim/invariant.h)
    int32_t channel_for(size_t group, const Record& record);  // the group's channel for the record
    void append(int32_t channel, const Record& record);
    void schedule_flush();
    void send_ready(OutputChannel& channel);
    void annotate_checkpoint_element(const OutputChannel& out, const ChannelElement& element,
                                     uint64_t digest);

    Task& task_;
    int32_t channel_credits_;  // what a consumer grants
    std::vector<OutputChannel> channels_;
    std::vector<OutputGroup> groups_;
    std::vector<uint32_t> rebalance_next_;  // per output group
    bool flush_scheduled_ = false;
};

}  // namespace eosim::engine
