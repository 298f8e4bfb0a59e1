#pragma once
// A task's input side (Flink's input gate with its CheckpointedInputGate): one channel per
// producer subtask, read round-robin; the barrier handler (engine/checkpointing/barrier_handler.h)
// that barriers are handed to and that blocks channels while it aligns; the watermark valve. The
// input side opens the connections to the producers and returns a credit for every buffer
// processed. What a barrier starts (a snapshot) is the checkpoint side's; the task ties the two.
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "engine/checkpointing/barrier_handler.h"
#include "engine/checkpointing/channel_state_writer.h"
#include "engine/runtime/channel_element.h"
#include "engine/runtime/job_topology.h"
#include "engine/runtime/watermark_valve.h"
#include "engine/vocabulary/run_observer.h"
#include "sim/invariant.h"
#include "sim/network.h"

namespace eosim::engine {

class Task;

class TaskInputs {
public:
    // The channels of `task`'s subtask, their producers placed as `deployment` says; with inputs, a
    // barrier handler reporting to `task`, and (event time) a watermark valve.
    TaskInputs(Task& task, const Deployment& deployment);
    ~TaskInputs();

    bool empty() const { return channels_.empty(); }
    size_t size() const { return channels_.size(); }
    // The vertex's input edge channel `channel` serves (Operator::process's `input`).
    int32_t edge(int32_t channel) const { return channels_[static_cast<size_t>(channel)].edge; }
    BarrierHandler& barriers() { return *barriers_; }
    WatermarkValve* valve() { return valve_ ? &*valve_ : nullptr; }
    const WatermarkValve* valve() const { return valve_ ? &*valve_ : nullptr; }

    // `channel`, checked to be one of this task's (sim/invariant.h).
    int32_t known(int32_t channel) const {
        EOSIM_INVARIANT(channel >= 0 && static_cast<size_t>(channel) < channels_.size(),
                        "an input element on a known input channel");
        return channel;
    }
    // Connects to every producer and grants it the channel's credits.
    void open();
    void queue(int32_t channel, ChannelElement element) {
        channels_[static_cast<size_t>(known(channel))].queue.push_back(std::move(element));
    }
    // The next element of the next unblocked channel with one, round-robin; false when none.
    bool take_next(int32_t* channel, ChannelElement* element) {
        for (size_t n = 0; n < channels_.size(); ++n) {
            const size_t index = (next_ + n) % channels_.size();
            InputChannel& in = channels_[index];
            if (in.blocked || in.queue.empty()) continue;
            next_ = (index + 1) % channels_.size();
            *channel = static_cast<int32_t>(index);
            *element = std::move(in.queue.front());
            in.queue.pop_front();
            return true;
        }
        return false;
    }
    // End of data on `channel`, processed (the producer is told); true when every channel has
    // ended.
    bool end_of_data(int32_t channel);
    // End of partition on `channel` (its producer finished): the barrier handler counts it as
    // delivered from now on; true when every channel's producer has finished.
    bool end_of_partition(int32_t channel);
    bool all_partitions_ended() const;
    // A buffer of `channel` was processed: its credit goes back to the producer.
    void return_credit(int32_t channel);
    void block(int32_t channel);
    void unblock_all();

    // Hands a barrier to the barrier handler; `overtook_queue`: a priority barrier handled on
    // arrival, ahead of what is queued on its channel.
    void hand_over_barrier(int32_t channel, const ChannelElement& element, bool overtook_queue);
    // A checkpoint taken unaligned here takes the barriers already queued on its channels at once.
    void deliver_queued_barriers();
    // The channel whose priority barrier is being handed over (-1: none).
    int32_t overtaking_channel() const { return overtaking_channel_; }
    // The first channel (by index) with a queued barrier of `checkpoint_id`: the barrier goes to
    // `barrier` and what is queued after it to `after`, leaving on the channel only what came
    // before it. False when no channel holds one.
    bool split_at_barrier(int64_t checkpoint_id, int32_t* channel, ChannelElement* barrier,
                          std::deque<ChannelElement>* after);
    // Puts `after` back at the end of `channel`'s queue, in order.
    void requeue(int32_t channel, std::deque<ChannelElement> after);
    // Puts the buffers queued on `channel` before its barrier of `checkpoint_id` into `writer`.
    void persist_queued(int32_t channel, int64_t checkpoint_id, ChannelStateWriter& writer) const;
    // A restore: the recovered buffers go to the head of their channels (told to `in_flight`).
    void queue_recovered(std::vector<std::vector<RecordBatch>>& recovered,
                         std::vector<InFlightRecords>& in_flight);

private:
    struct InputChannel {
        ChannelEnd producer;
        sim::NodeId producer_node;
        sim::ConnectionId connection = UINT32_MAX;
        std::deque<ChannelElement> queue;
        bool blocked = false;
        bool end_of_data = false;
        bool end_of_partition = false;
        int32_t edge = 0;  // the vertex's input edge this channel serves
    };

    // A message back to `channel`'s producer over the channel's connection (credits, end of data
    // processed), handled by that task if it still runs there.
    void send_to_producer(int32_t channel, const sim::EventKind& kind,
                          void (*handler)(Task&, int32_t));

    Task& task_;
    std::vector<InputChannel> channels_;
    size_t next_ = 0;  // channels are read round-robin
    std::unique_ptr<BarrierHandler> barriers_;
    std::optional<WatermarkValve> valve_;
    int32_t overtaking_channel_ = -1;
};

}  // namespace eosim::engine
