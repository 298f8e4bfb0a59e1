#include "engine/runtime/record_writer.h"

#include <algorithm>

#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"
#include "engine/state/key_groups.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kChannelBuffer{"channel.buffer"};
constexpr sim::EventKind kChannelBarrier{"channel.barrier"};
constexpr sim::EventKind kChannelEndOfData{"channel.end_of_data"};
constexpr sim::EventKind kChannelEndOfPartition{"channel.end_of_partition"};
constexpr sim::EventKind kChannelCancellation{"channel.cancellation_marker"};
constexpr sim::EventKind kChannelWatermark{"channel.watermark"};
constexpr sim::EventKind kChannelWatermarkStatus{"channel.watermark_status"};
constexpr sim::EventKind kTaskFlush{"task.flush"};

const sim::EventKind& event_kind(ChannelElement::Type type) {
    switch (type) {
        case ChannelElement::Type::records: return kChannelBuffer;
        case ChannelElement::Type::barrier: return kChannelBarrier;
        case ChannelElement::Type::cancellation_marker: return kChannelCancellation;
        case ChannelElement::Type::watermark: return kChannelWatermark;
        case ChannelElement::Type::watermark_status: return kChannelWatermarkStatus;
        case ChannelElement::Type::end_of_data: return kChannelEndOfData;
        case ChannelElement::Type::end_of_partition: return kChannelEndOfPartition;
    }
    return kChannelEndOfData;
}
}  // namespace

RecordWriter::RecordWriter(Task& task, const Deployment& deployment)
    : task_(task), channel_credits_(task.runtime().channel_credits) {
    const TaskKey& key = task.key();
    const JobTopology& topology = task.engine().topology();
    for (const ChannelEnd& consumer : topology.output_channels(key.vertex, key.subtask)) {
        OutputChannel channel;
        channel.consumer = consumer;
        channel.consumer_node = deployment.placement[static_cast<size_t>(consumer.vertex)]
                                                    [static_cast<size_t>(consumer.subtask)];
        channels_.push_back(std::move(channel));
    }
    groups_ = topology.output_groups(key.vertex);
    rebalance_next_.assign(groups_.size(), static_cast<uint32_t>(key.subtask));
}

Emit RecordWriter::operator_output() {
    const bool late_edge =
        std::any_of(groups_.begin(), groups_.end(), [](const OutputGroup& g) { return g.late; });
    if (!late_edge) return Emit([this](const Record& record) { emit(record); });
    return Emit([this](const Record& record) { emit(record); },
                [this](const Record& record) { emit_late(record); });
}

void RecordWriter::emit(const Record& record) {
    for (size_t g = 0; g < groups_.size(); ++g) {
        if (groups_[g].late) continue;
        append(channel_for(g, record), record);
    }
    schedule_flush();
}

// The late-data side output goes to the edges that read it, partitioned as each edge says.
void RecordWriter::emit_late(const Record& record) {
    for (size_t g = 0; g < groups_.size(); ++g) {
        if (!groups_[g].late) continue;
        append(channel_for(g, record), record);
    }
    schedule_flush();
}

int32_t RecordWriter::channel_for(size_t g, const Record& record) {
    const OutputGroup& group = groups_[g];
    switch (group.kind) {
        case EdgeKind::forward: return group.channel_of_subtask[0];
        case EdgeKind::hash: {
            const int32_t parallelism = static_cast<int32_t>(group.channel_of_subtask.size());
            const int32_t max_parallelism = task_.engine().job().max_parallelism;
            return group.channel_of_subtask[static_cast<size_t>(
                subtask_for_key(record.key, max_parallelism, parallelism))];
        }
        case EdgeKind::rebalance:
            return group.channel_of_subtask[rebalance_next_[g]++ % group.channel_of_subtask.size()];
    }
    return group.channel_of_subtask[0];
}

void RecordWriter::append(int32_t channel, const Record& record) {
    OutputChannel& out = channels_[static_cast<size_t>(channel)];
    out.open_buffer.push_back(record);
    if (static_cast<int32_t>(out.open_buffer.size()) >= task_.runtime().buffer_records) {
        out.seal_buffer(task_.engine().record_batches());
        send_ready(out);
    }
}

void RecordWriter::schedule_flush() {
    if (flush_scheduled_) return;
    flush_scheduled_ = true;
    task_.engine().schedule_for_task(task_.node(), task_.key(), task_.runtime().buffer_timeout,
                                     kTaskFlush,
                                     [](Task& task) { task.writer().flush_timer_fired(); });
}

void RecordWriter::flush_timer_fired() {
    flush_scheduled_ = false;
    flush();
}

void RecordWriter::flush() {
    for (OutputChannel& out : channels_) {
        if (out.open_buffer.empty()) continue;
        out.seal_buffer(task_.engine().record_batches());
        send_ready(out);
    }
}

void RecordWriter::broadcast(ChannelElement element) {
    flush();
    for (OutputChannel& out : channels_) {
        out.queue.push_back(element);
        send_ready(out);
    }
}

RecordWriter::OutputChannel& RecordWriter::known(int32_t channel) {
    EOSIM_INVARIANT(channel >= 0 && static_cast<size_t>(channel) < channels_.size(),
                    "credit for a known output channel");
    return channels_[static_cast<size_t>(channel)];
}

void RecordWriter::channel_opened(int32_t channel, sim::ConnectionId connection, int32_t credits) {
    OutputChannel& out = known(channel);
    EOSIM_INVARIANT(credits > 0, "a consumer grants credits when it opens a channel");
    EOSIM_INVARIANT(out.connection == UINT32_MAX, "an output channel is opened once");
    out.connection = connection;
    out.credits += credits;
    send_ready(out);
}

void RecordWriter::credit_returned(int32_t channel) {
    OutputChannel& out = known(channel);
    EOSIM_INVARIANT(out.credits < channel_credits_,
                    "a consumer returns no more credits than it granted");
    ++out.credits;
    send_ready(out);
}

bool RecordWriter::data_processed(int32_t channel) {
    known(channel).data_processed = true;
    return all_data_processed();
}

void RecordWriter::send_all() {
    for (OutputChannel& out : channels_) send_ready(out);
}

void RecordWriter::send_ready(OutputChannel& out) {
    if (out.connection == UINT32_MAX || task_.failed()) return;
    Engine* engine = &task_.engine();
    const TaskKey consumer{task_.key().attempt, out.consumer.vertex, out.consumer.subtask};
    const sim::NodeId consumer_node = out.consumer_node;
    const int32_t input_channel = out.consumer.channel;
    while (!out.queue.empty()) {
        ChannelElement& front = out.queue.front();
        const bool is_buffer = front.type == ChannelElement::Type::records;
        const bool is_barrier = front.type == ChannelElement::Type::barrier;
        if (is_buffer && out.credits == 0) break;
        const bool is_watermark = front.type == ChannelElement::Type::watermark ||
                                  front.type == ChannelElement::Type::watermark_status;
        const sim::EventKind& kind = event_kind(front.type);
        const uint64_t payload = is_buffer      ? front.records.size()
                                 : is_watermark ? static_cast<uint64_t>(front.watermark) ^
                                                      static_cast<uint64_t>(front.idle)
                                                : static_cast<uint64_t>(front.checkpoint_id);
        const bool has_checkpoint =
            is_barrier || front.type == ChannelElement::Type::cancellation_marker;
        // A barrier's (or marker's) digest names its channel too: two producers on one node differ.
        const uint64_t digest =
            has_checkpoint ? sim::digest_mix(sim::digest_mix(key_digest(consumer),
                                                             static_cast<uint64_t>(input_channel)),
                                             payload)
                           : sim::digest_mix(key_digest(consumer), payload);
        if (has_checkpoint && engine->world().trace().logging())
            annotate_checkpoint_element(out, front, digest);
        if (is_buffer) {
            --out.credits;
            --out.queued_buffers;
        }
        auto deliver = [engine, consumer_node, input_channel, consumer,
                        element = std::move(front)]() mutable {
            if (Task* t = engine->find_task(consumer_node, consumer))
                t->element_arrived(input_channel, std::move(element));
        };
        // One of these per buffer: kept inline, it costs no allocation.
        static_assert(sim::Callback::kFitsInline<decltype(deliver)>);
        engine->world().network().send(out.connection, task_.node(), kind, digest,
                                       std::move(deliver));
        out.queue.pop_front();
        if (is_barrier) task_.barrier_sent();
    }
}

// A trace log's words for a barrier or cancellation marker: checkpoint, kind, channel.
void RecordWriter::annotate_checkpoint_element(const OutputChannel& out,
                                               const ChannelElement& element, uint64_t digest) {
    Engine& engine = task_.engine();
    const std::vector<int32_t> gates =
        engine.topology().input_edges(out.consumer.vertex, out.consumer.subtask);
    const bool barrier = element.type == ChannelElement::Type::barrier;
    std::string note = barrier
                           ? (element.unaligned_barrier ? "unaligned barrier " : "aligned barrier ")
                           : "cancellation marker ";
    note += std::to_string(element.checkpoint_id) + " " + task_.vertex().id + "-" +
            std::to_string(task_.key().subtask) + " -> " +
            engine.job().vertices[static_cast<size_t>(out.consumer.vertex)].id + "-" +
            std::to_string(out.consumer.subtask) + " (input channel " +
            std::to_string(out.consumer.channel) + ", gate " +
            std::to_string(gates[static_cast<size_t>(out.consumer.channel)]) + ")";
    engine.world().trace().annotate(digest, std::move(note));
}

void RecordWriter::send_barrier_ahead(const ChannelElement& barrier_element,
                                      ChannelStateWriter& writer) {
    flush();
    for (size_t c = 0; c < channels_.size(); ++c) {
        OutputChannel& out = channels_[c];
        for (const ChannelElement& queued : out.queue) {
            if (queued.type == ChannelElement::Type::records)
                writer.add_output(static_cast<int32_t>(c), queued.records);
        }
        ChannelElement barrier = barrier_element;
        barrier.unaligned_barrier = true;
        out.queue.push_front(std::move(barrier));
        send_ready(out);
    }
}

bool RecordWriter::barrier_queued(int64_t checkpoint_id) const {
    return std::any_of(channels_.begin(), channels_.end(),
                       [checkpoint_id](const OutputChannel& out) {
                           return std::any_of(out.queue.begin(), out.queue.end(),
                                              [checkpoint_id](const ChannelElement& e) {
                                                  return e.type == ChannelElement::Type::barrier &&
                                                         e.checkpoint_id == checkpoint_id;
                                              });
                       });
}

void RecordWriter::overtake_queued_barrier(int64_t checkpoint_id, ChannelStateWriter& writer) {
    for (size_t c = 0; c < channels_.size(); ++c) {
        OutputChannel& out = channels_[c];
        auto it = std::find_if(out.queue.begin(), out.queue.end(), [&](const ChannelElement& e) {
            return e.type == ChannelElement::Type::barrier && e.checkpoint_id == checkpoint_id;
        });
        if (it == out.queue.end()) continue;
        for (auto q = out.queue.begin(); q != it; ++q) {
            if (q->type == ChannelElement::Type::records)
                writer.add_output(static_cast<int32_t>(c), q->records);
        }
        ChannelElement barrier = std::move(*it);  // its snapshot type and start go with it
        out.queue.erase(it);
        barrier.unaligned_barrier = true;
        out.queue.push_front(std::move(barrier));
        send_ready(out);
    }
}

void RecordWriter::queue_recovered(std::vector<std::vector<RecordBatch>>& recovered,
                                   std::vector<InFlightRecords>& in_flight) {
    const JobSpec& job = task_.engine().job();
    for (size_t c = 0; c < recovered.size() && c < channels_.size(); ++c) {
        OutputChannel& out = channels_[c];
        for (RecordBatch& buffer : recovered[c]) {
            in_flight.push_back(
                InFlightRecords{task_.vertex().id,
                                job.vertices[static_cast<size_t>(out.consumer.vertex)].id, buffer});
            out.queue.push_back(
                ChannelElement{ChannelElement::Type::records, 0, std::move(buffer)});
            ++out.queued_buffers;
        }
    }
}

}  // namespace eosim::engine
