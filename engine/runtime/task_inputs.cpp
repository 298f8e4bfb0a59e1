#include "engine/runtime/task_inputs.h"

#include <algorithm>

#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kChannelOpen{"channel.open"};
constexpr sim::EventKind kChannelCredit{"channel.credit"};
constexpr sim::EventKind kChannelDataProcessed{"channel.data_processed"};
}  // namespace

TaskInputs::TaskInputs(Task& task, const Deployment& deployment) : task_(task) {
    const TaskKey& key = task.key();
    const JobSpec& job = task.engine().job();
    const JobTopology& topology = task.engine().topology();
    const std::vector<int32_t> input_edges = topology.input_edges(key.vertex, key.subtask);
    for (const ChannelEnd& producer : topology.input_channels(key.vertex, key.subtask)) {
        InputChannel channel;
        channel.edge = input_edges[channels_.size()];
        channel.producer = producer;
        channel.producer_node = deployment.placement[static_cast<size_t>(producer.vertex)]
                                                    [static_cast<size_t>(producer.subtask)];
        channels_.push_back(std::move(channel));
    }
    if (channels_.empty()) return;
    const CheckpointConfig& c = job.checkpointing;
    const AlignmentMode alignment = !c.channel_state_possible() ? AlignmentMode::aligned
                                    : c.aligned_checkpoint_timeout > sim::Duration::zero()
                                        ? AlignmentMode::aligned_then_unaligned
                                        : AlignmentMode::unaligned;
    barriers_ = make_barrier_handler(c.mode, alignment, c.aligned_checkpoint_timeout,
                                     static_cast<int32_t>(channels_.size()), task);
    if (job.uses_event_time()) valve_.emplace(channels_.size());
}

TaskInputs::~TaskInputs() = default;

void TaskInputs::open() {
    Engine& engine_ref = task_.engine();
    sim::Network& network = engine_ref.world().network();
    const TaskKey me = task_.key();
    const sim::NodeId consumer_node = task_.node();
    for (InputChannel& in : channels_) {
        const TaskKey producer{me.attempt, in.producer.vertex, in.producer.subtask};
        Engine* engine = &engine_ref;
        const sim::NodeId producer_node = in.producer_node;
        in.connection = network.connect(
            consumer_node, producer_node,
            [engine, consumer_node, me] {
                if (Task* t = engine->find_task(consumer_node, me)) t->connection_lost();
            },
            [engine, producer_node, producer] {
                if (Task* t = engine->find_task(producer_node, producer)) t->connection_lost();
            });
        const int32_t output_channel = in.producer.channel;
        const sim::ConnectionId connection = in.connection;
        const int32_t credits = task_.runtime().channel_credits;
        network.send(connection, consumer_node, kChannelOpen,
                     key_digest(producer) ^ static_cast<uint64_t>(output_channel),
                     [engine, producer_node, producer, output_channel, connection, credits] {
                         if (Task* t = engine->find_task(producer_node, producer)) {
                             t->channel_opened(output_channel, connection, credits);
                         }
                     });
    }
}

bool TaskInputs::end_of_partition(int32_t channel) {
    channels_[static_cast<size_t>(channel)].end_of_partition = true;
    barriers_->end_of_partition(channel);
    return all_partitions_ended();
}

bool TaskInputs::all_partitions_ended() const {
    return std::all_of(channels_.begin(), channels_.end(),
                       [](const InputChannel& in) { return in.end_of_partition; });
}

// Flink's consumer acknowledges an EndOfData it processed (acknowledgeAllRecordsProcessed): the
// producer finishes only once every consumer has processed all its records (FLIP-147), so its end
// of partition never waits behind a backlog while checkpoints go on without it.
bool TaskInputs::end_of_data(int32_t channel) {
    channels_[static_cast<size_t>(channel)].end_of_data = true;
    send_to_producer(channel, kChannelDataProcessed, [](Task& producer, int32_t output_channel) {
        producer.data_processed(output_channel);
    });
    return std::all_of(channels_.begin(), channels_.end(),
                       [](const InputChannel& in) { return in.end_of_data; });
}

void TaskInputs::return_credit(int32_t channel) {
    send_to_producer(channel, kChannelCredit, [](Task& producer, int32_t output_channel) {
        producer.credit_returned(output_channel);
    });
}

void TaskInputs::send_to_producer(int32_t channel, const sim::EventKind& kind,
                                  void (*handler)(Task&, int32_t)) {
    const InputChannel& in = channels_[static_cast<size_t>(known(channel))];
    const TaskKey producer{task_.key().attempt, in.producer.vertex, in.producer.subtask};
    const int32_t output_channel = in.producer.channel;
    Engine* engine = &task_.engine();
    const sim::NodeId producer_node = in.producer_node;
    engine->world().network().send(in.connection, task_.node(), kind, key_digest(producer),
                                   [engine, producer_node, producer, output_channel, handler] {
                                       if (Task* t = engine->find_task(producer_node, producer))
                                           handler(*t, output_channel);
                                   });
}

void TaskInputs::block(int32_t channel) {
    channels_[static_cast<size_t>(known(channel))].blocked = true;
}

void TaskInputs::unblock_all() {
    for (InputChannel& in : channels_) in.blocked = false;
}

void TaskInputs::hand_over_barrier(int32_t channel, const ChannelElement& element,
                                   bool overtook_queue) {
    overtaking_channel_ = overtook_queue ? known(channel) : -1;
    barriers_->barrier_received(channel,
                                CheckpointBarrier{element.checkpoint_id, element.unaligned_barrier,
                                                  element.checkpoint_started});
    overtaking_channel_ = -1;
}

// Flink learns where the barriers are from barrier announcements: what is queued before them was
// persisted when the snapshot started, and they need not wait for it to be processed.
void TaskInputs::deliver_queued_barriers() {
    const int64_t pending = barriers_->pending_checkpoint();
    if (pending == 0 || !barriers_->collecting_unaligned(pending)) return;
    for (size_t c = 0; c < channels_.size(); ++c) {
        auto& queue = channels_[c].queue;
        auto it = std::find_if(queue.begin(), queue.end(), [&](const ChannelElement& e) {
            return e.type == ChannelElement::Type::barrier && e.checkpoint_id == pending;
        });
        if (it == queue.end()) continue;
        const ChannelElement barrier = *it;
        queue.erase(it);
        barriers_->barrier_received(
            static_cast<int32_t>(c),
            CheckpointBarrier{barrier.checkpoint_id, barrier.unaligned_barrier,
                              barrier.checkpoint_started});
        if (!barriers_->collecting_unaligned(pending)) return;
    }
}

bool TaskInputs::split_at_barrier(int64_t checkpoint_id, int32_t* channel, ChannelElement* barrier,
                                  std::deque<ChannelElement>* after) {
    for (size_t c = 0; c < channels_.size(); ++c) {
        auto& queue = channels_[c].queue;
        auto it = std::find_if(queue.begin(), queue.end(), [&](const ChannelElement& e) {
            return e.type == ChannelElement::Type::barrier && e.checkpoint_id == checkpoint_id;
        });
        if (it == queue.end()) continue;
        *channel = static_cast<int32_t>(c);
        *barrier = std::move(*it);
        after->assign(std::make_move_iterator(std::next(it)), std::make_move_iterator(queue.end()));
        queue.erase(it, queue.end());
        return true;
    }
    return false;
}

void TaskInputs::requeue(int32_t channel, std::deque<ChannelElement> after) {
    auto& queue = channels_[static_cast<size_t>(known(channel))].queue;
    for (ChannelElement& element : after) queue.push_back(std::move(element));
}

void TaskInputs::persist_queued(int32_t channel, int64_t checkpoint_id,
                                ChannelStateWriter& writer) const {
    for (const ChannelElement& queued : channels_[static_cast<size_t>(channel)].queue) {
        if (queued.type == ChannelElement::Type::barrier && queued.checkpoint_id == checkpoint_id)
            break;
        if (queued.type == ChannelElement::Type::records) writer.add_input(channel, queued.records);
    }
}

// Nothing else is queued yet: the input connections open at start.
void TaskInputs::queue_recovered(std::vector<std::vector<RecordBatch>>& recovered,
                                 std::vector<InFlightRecords>& in_flight) {
    const JobSpec& job = task_.engine().job();
    for (size_t c = 0; c < recovered.size() && c < channels_.size(); ++c) {
        for (RecordBatch& buffer : recovered[c]) {
            in_flight.push_back(
                InFlightRecords{job.vertices[static_cast<size_t>(channels_[c].producer.vertex)].id,
                                task_.vertex().id, buffer});
            ChannelElement element{ChannelElement::Type::records, 0, std::move(buffer)};
            element.recovered = true;
            channels_[c].queue.push_back(std::move(element));
        }
    }
}

}  // namespace eosim::engine
