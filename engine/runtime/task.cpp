#include "engine/runtime/task.h"

#include <algorithm>
#include <stdexcept>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"
#include "engine/connectors/sink_registry.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"
#include "engine/state/key_groups.h"
#include "engine/runtime/protocol_points.h"
#include "engine/runtime/task_manager.h"
#include "engine/runtime/window_operator.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kChannelOpen{"channel.open"};
constexpr sim::EventKind kChannelCredit{"channel.credit"};
constexpr sim::EventKind kChannelBuffer{"channel.buffer"};
constexpr sim::EventKind kChannelBarrier{"channel.barrier"};
constexpr sim::EventKind kChannelEndOfData{"channel.end_of_data"};
constexpr sim::EventKind kChannelCancellation{"channel.cancellation_marker"};
constexpr sim::EventKind kChannelWatermark{"channel.watermark"};
constexpr sim::EventKind kChannelWatermarkStatus{"channel.watermark_status"};
constexpr sim::EventKind kAlignmentTimer{"task.alignment_timer"};
constexpr sim::EventKind kTaskProcessed{"task.processed"};
constexpr sim::EventKind kTaskFlush{"task.flush"};
constexpr sim::EventKind kSourcePoll{"source.poll"};
constexpr sim::EventKind kTaskTimer{"task.timer"};

constexpr sim::EventKind kSharedCleanupRetry{"task.shared_cleanup_retry"};
constexpr int32_t kSharedCleanupTries = 10;

// Deletes a shared file a failed or abandoned snapshot uploaded; a failed delete is tried again a
// heartbeat interval later (dropped if the node crashes meanwhile: the file stays an orphan).
void remove_shared_upload(Engine* engine, sim::NodeId node, const std::string& key, int32_t tries_left) {
    engine->world().storage().remove(node, key, [engine, node, key, tries_left](sim::StorageStatus status) {
        if (status != sim::StorageStatus::failed || tries_left <= 1) return;
        engine->world().scheduler().schedule(engine->job().runtime.heartbeat_interval, node, kSharedCleanupRetry, 0,
                                             [engine, node, key, tries_left] { remove_shared_upload(engine, node, key, tries_left - 1); });
    });
}

uint64_t key_digest(const TaskKey& key) {
    return sim::digest_mix(sim::digest_mix(static_cast<uint64_t>(key.attempt), static_cast<uint64_t>(key.vertex)),
                           static_cast<uint64_t>(key.subtask));
}

}  // namespace

Task::Task(Engine& engine, sim::NodeId node, TaskKey key, const Deployment& deployment)
    : engine_(engine),
      node_(node),
      key_(key),
      vertex_(engine.job().vertices[static_cast<size_t>(key.vertex)]),
      runtime_(engine.job().runtime),
      deployment_(deployment) {
    const JobSpec& job = engine.job();
    const JobTopology& topology = engine.topology();
    const std::vector<int32_t> input_edges = topology.input_edges(key.vertex, key.subtask);
    for (const ChannelEnd& producer : topology.input_channels(key.vertex, key.subtask)) {
        InputChannel channel;
        channel.edge = input_edges[inputs_.size()];
        channel.producer = producer;
        channel.producer_node = deployment.placement[static_cast<size_t>(producer.vertex)][static_cast<size_t>(producer.subtask)];
        inputs_.push_back(std::move(channel));
    }
    for (const ChannelEnd& consumer : topology.output_channels(key.vertex, key.subtask)) {
        OutputChannel channel;
        channel.consumer = consumer;
        channel.consumer_node = deployment.placement[static_cast<size_t>(consumer.vertex)][static_cast<size_t>(consumer.subtask)];
        outputs_.push_back(std::move(channel));
    }
    output_groups_ = topology.output_groups(key.vertex);
    rebalance_next_.assign(output_groups_.size(), static_cast<uint32_t>(key.subtask));
    if (is_source()) {
        const SourceServices services{engine.services().systems.kafka, engine.services().systems.database(kCdcSourceDatabase),
                                      &engine.services().input_end_offsets};
        source_ = make_source_reader(vertex_, *this, services, key.subtask);
    } else if (vertex_.kind == OperatorKind::sink) {
        sink_ = vertex_.sink->make(*this, engine.services().systems, runtime_);
    } else {
        std::unique_ptr<KeyedStateBackend> state;
        if (is_keyed(vertex_.kind)) {
            state = make_state_backend(job.state_backend, KeyGroupRange::of_subtask(key.subtask, vertex_.parallelism, job.max_parallelism),
                                       job.max_parallelism,
                                       vertex_.id + "-" + std::to_string(key.subtask) + "-a" + std::to_string(key.attempt));
        }
        operator_ = make_operator(vertex_, std::move(state));
        operator_output_ = make_operator_output();
        announce_window_firings();
    }
    if (!inputs_.empty()) {
        const CheckpointConfig& c = job.checkpointing;
        const AlignmentMode alignment = !c.channel_state_possible() ? AlignmentMode::aligned
                                        : c.aligned_checkpoint_timeout > sim::Duration::zero()
                                            ? AlignmentMode::aligned_then_unaligned
                                            : AlignmentMode::unaligned;
        barriers_ = make_barrier_handler(c.mode, alignment, c.aligned_checkpoint_timeout,
                                         static_cast<int32_t>(inputs_.size()), *this);
        if (job.uses_event_time()) valve_.emplace(inputs_.size());
    }
}

Task::~Task() = default;

// A window operator's firings are protocol points (window.fired), so a fault can follow one.
void Task::announce_window_firings() {
    auto* window = dynamic_cast<WindowOperator*>(operator_.get());
    if (window == nullptr) return;
    window->set_fired_listener([this](int64_t max_timestamp) { engine_.world().announce(points::kWindowFired, node_, max_timestamp); });
}

sim::World& Task::world() { return engine_.world(); }
RunObserver& Task::observer() { return engine_.observer(); }

void Task::after(sim::Duration delay, std::function<void()> fn) {
    engine_.schedule_for_task(node_, key_, delay, kTaskTimer, [fn = std::move(fn)](Task&) { fn(); });
}

bool Task::channel_state_possible() const { return engine_.job().checkpointing.channel_state_possible(); }

void Task::fail(const std::string& reason) {
    if (state_ == State::failed) return;
    state_ = State::failed;
    failure_ = reason;
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key),
                                [key, reason](JobManager& jm) { jm.task_failed(key, reason); });
}

// ---- restore ----------------------------------------------------------------------------------

void Task::restore() {
    state_ = State::restoring;
    const CompletedCheckpoint& checkpoint = deployment_.restore;
    // Sources and keyed operators read every subtask's state of their vertex (union of splits,
    // key groups by range); a sink reads its own.
    // With channel state, every task reads its own blob for it; a stateless operator reads only that.
    const bool own_only = is_sink() || (channel_state_possible() && !source_ && !(operator_ && operator_->keyed_state()));
    std::vector<std::string> keys;
    int32_t subtasks_in_checkpoint = 0;
    own_blob_ = SIZE_MAX;
    for (const auto& [where, handle] : checkpoint.handles) {
        if (where.first != key_.vertex) continue;
        ++subtasks_in_checkpoint;
        if (own_only && where.second != key_.subtask) continue;
        if (where.second == key_.subtask) own_blob_ = keys.size();
        keys.push_back(handle);
    }
    if (channel_state_possible() && checkpoint.id > 0 && subtasks_in_checkpoint != vertex_.parallelism) {
        // Flink redistributes channel state on rescaling; eosim cannot yet.
        fail("cannot restore checkpoint " + std::to_string(checkpoint.id) + ": vertex '" + vertex_.id + "' has " +
             std::to_string(vertex_.parallelism) + " subtasks but the checkpoint holds " +
             std::to_string(subtasks_in_checkpoint) +
             "; restoring channel state (unaligned checkpoints) with a changed parallelism is not supported");
        return;
    }
    restored_blobs_.assign(keys.size(), std::string());
    restore_reads_outstanding_ = static_cast<int32_t>(keys.size());
    if (keys.empty()) {
        apply_restored_state();
        return;
    }
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    const TaskKey key = key_;
    for (size_t i = 0; i < keys.size(); ++i) {
        engine_.world().storage().get(node_, keys[i], [engine, node, key, i](sim::StorageStatus status, std::string value) {
            if (Task* task = engine->find_task(node, key)) task->restore_read(i, status, std::move(value));
        });
    }
}

void Task::restore_read(size_t index, sim::StorageStatus status, std::string value) {
    if (state_ != State::restoring) return;
    if (status != sim::StorageStatus::ok) {
        fail("cannot read checkpoint state from storage");
        return;
    }
    if (carries_watermark()) take_restored_watermark(value);
    restored_blobs_[index] = std::move(value);
    if (--restore_reads_outstanding_ == 0) fetch_shared_state();
}

void Task::fetch_shared_state() {
    KeyedStateBackend* keyed = operator_ ? operator_->keyed_state() : nullptr;
    if (keyed == nullptr || restored_blobs_.empty()) {
        apply_restored_state();
        return;
    }
    std::vector<std::string> private_states;
    for (const std::string& blob : restored_blobs_) {
        std::string state = channel_state_possible() ? decode_task_state(blob).operator_state : blob;
        if (is_incremental_state(state)) private_states.push_back(std::move(state));
    }
    const JobSpec& job = engine_.job();
    const std::vector<std::string> keys = shared_keys_to_restore(
        private_states, KeyGroupRange::of_subtask(key_.subtask, vertex_.parallelism, job.max_parallelism));
    if (keys.empty()) {
        apply_restored_state();
        return;
    }
    shared_reads_outstanding_ = static_cast<int32_t>(keys.size());
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    const TaskKey key = key_;
    for (const std::string& shared_key : keys) {
        engine_.world().storage().get(node_, shared_key, [engine, node, key, shared_key](sim::StorageStatus status, std::string value) {
            if (Task* task = engine->find_task(node, key)) task->shared_state_read(shared_key, status, std::move(value));
        });
    }
}

void Task::shared_state_read(const std::string& key, sim::StorageStatus status, std::string value) {
    if (state_ != State::restoring) return;
    if (status != sim::StorageStatus::ok) {
        fail("cannot read shared checkpoint state " + key + " from storage");
        return;
    }
    restored_shared_[key] = std::move(value);
    if (--shared_reads_outstanding_ == 0) apply_restored_state();
}

void Task::apply_restored_state() {
    const int64_t checkpoint_id = deployment_.restore.id;
    announce_restore(checkpoint_id);
    if (!engine_.world().nodes().is_up(node_)) return;  // crashed at the point: nothing is applied
    if (channel_state_possible()) {
        // Each blob holds operator state and its subtask's channel state; keep our own channel state.
        for (size_t i = 0; i < restored_blobs_.size(); ++i) {
            TaskStateBlob blob = decode_task_state(restored_blobs_[i]);
            if (i == own_blob_) recovered_ = std::move(blob.channels);
            restored_blobs_[i] = std::move(blob.operator_state);
        }
    }
    if (source_) source_->restore(restored_blobs_);
    if (operator_ && operator_->keyed_state() != nullptr) {
        const bool incremental = std::any_of(restored_blobs_.begin(), restored_blobs_.end(),
                                             [](const std::string& blob) { return is_incremental_state(blob); });
        if (deployment_.restore.savepoint) {
            operator_->keyed_state()->restore_canonical(restored_blobs_);
        } else if (incremental) {
            operator_->keyed_state()->restore_incremental(restored_blobs_, restored_shared_);
        } else {
            operator_->keyed_state()->restore(restored_blobs_);
        }
        restored_shared_.clear();
        if (checkpoint_id > 0) {
            engine_.observer().keyed_state_restored(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask,
                                                    operator_->keyed_state()->contents());
            if (vertex_.kind == OperatorKind::join) {
                engine_.observer().keyed_cells_restored(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask,
                                                        operator_->keyed_state()->cells());
            }
        }
    }
    // A sink reads only its own subtask's state.
    if (sink_ && !restored_blobs_.empty()) restored_sink_state_ = restored_blobs_.front();
    restored_blobs_.clear();
    if (checkpoint_id > 0) queue_recovered_channel_state();
    restore_watermark();
    state_ = State::ready;
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key), [key](JobManager& jm) { jm.task_ready(key); });
}

// task.restoring, and task.restoring_rescaled when the snapshot had another parallelism here.
void Task::announce_restore(int64_t checkpoint_id) {
    engine_.world().announce(points::kTaskRestoring, node_, checkpoint_id);
    auto rescaled = deployment_.restore.rescaled_from.find(key_.vertex);
    if (rescaled == deployment_.restore.rescaled_from.end() || !engine_.world().nodes().is_up(node_)) return;
    engine_.world().announce(points::kTaskRestoringRescaled, node_, rescaled->second);
}

// Puts the recovered buffers at the head of their channels (nothing else is queued yet: the input
// connections open at start, and nothing was emitted) and tells the oracles what is in flight.
void Task::queue_recovered_channel_state() {
    const JobSpec& job = engine_.job();
    std::vector<InFlightRecords> in_flight;
    for (size_t c = 0; c < recovered_.inputs.size() && c < inputs_.size(); ++c) {
        for (RecordBatch& buffer : recovered_.inputs[c]) {
            in_flight.push_back(InFlightRecords{job.vertices[static_cast<size_t>(inputs_[c].producer.vertex)].id, vertex_.id, buffer});
            ChannelElement element{ChannelElement::Type::records, 0, std::move(buffer)};
            element.recovered = true;
            inputs_[c].queue.push_back(std::move(element));
        }
    }
    for (size_t c = 0; c < recovered_.outputs.size() && c < outputs_.size(); ++c) {
        OutputChannel& out = outputs_[c];
        for (RecordBatch& buffer : recovered_.outputs[c]) {
            in_flight.push_back(InFlightRecords{vertex_.id, job.vertices[static_cast<size_t>(out.consumer.vertex)].id, buffer});
            out.queue.push_back(ChannelElement{ChannelElement::Type::records, 0, std::move(buffer)});
            ++out.queued_buffers;
        }
    }
    replaying_channel_state_ = !in_flight.empty();
    recovered_ = ChannelState{};
    engine_.observer().channel_state_restored(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask, in_flight);
}

// ---- start and channels -----------------------------------------------------------------------

void Task::cancel() {
    if (sink_) sink_->close();
}

void Task::start() {
    if (state_ != State::ready) return;
    state_ = State::running;
    if (sink_ && !sink_->open(deployment_.restore.id, restored_sink_state_)) return;
    if (replaying_channel_state_) {
        engine_.world().announce(points::kChannelStateReplaying, node_, deployment_.restore.id);
        if (!engine_.world().nodes().is_up(node_)) return;
        for (size_t c = 0; c < outputs_.size(); ++c) send_ready(outputs_[c], static_cast<int32_t>(c));
    }
    open_input_channels();
    if (source_) poll_source();
}

void Task::open_input_channels() {
    sim::Network& network = engine_.world().network();
    for (int32_t c = 0; c < static_cast<int32_t>(inputs_.size()); ++c) {
        InputChannel& in = inputs_[static_cast<size_t>(c)];
        const TaskKey me = key_;
        const TaskKey producer{key_.attempt, in.producer.vertex, in.producer.subtask};
        Engine* engine = &engine_;
        const sim::NodeId consumer_node = node_;
        const sim::NodeId producer_node = in.producer_node;
        in.connection = network.connect(
            node_, producer_node,
            [engine, consumer_node, me] {
                if (Task* t = engine->find_task(consumer_node, me)) t->connection_lost();
            },
            [engine, producer_node, producer] {
                if (Task* t = engine->find_task(producer_node, producer)) t->connection_lost();
            });
        const int32_t output_channel = in.producer.channel;
        const sim::ConnectionId connection = in.connection;
        const int32_t credits = runtime_.channel_credits;
        network.send(connection, node_, kChannelOpen, key_digest(producer) ^ static_cast<uint64_t>(output_channel),
                     [engine, producer_node, producer, output_channel, connection, credits] {
                         if (Task* t = engine->find_task(producer_node, producer)) {
                             t->channel_opened(output_channel, connection, credits);
                         }
                     });
    }
}

void Task::channel_opened(int32_t output_channel, sim::ConnectionId connection, int32_t credits) {
    OutputChannel& out = outputs_.at(static_cast<size_t>(output_channel));
    out.connection = connection;
    out.credits += credits;
    send_ready(out, output_channel);
}

void Task::credit_returned(int32_t output_channel) {
    OutputChannel& out = outputs_.at(static_cast<size_t>(output_channel));
    ++out.credits;
    send_ready(out, output_channel);
    pump();
}

void Task::connection_lost() { fail("a data channel's connection was reset"); }

void Task::element_arrived(int32_t input_channel, ChannelElement element) {
    if (state_ == State::failed) return;
    InputChannel& in = inputs_.at(static_cast<size_t>(input_channel));
    if (element.type == ChannelElement::Type::records && channel_state_.recording(input_channel)) {
        channel_state_.add_input(input_channel, element.records);  // in flight before this channel's barrier
    }
    // A priority barrier (or any barrier of a checkpoint already taken unaligned here) is handled on
    // arrival: it overtakes what is queued on its channel.
    if (element.type == ChannelElement::Type::barrier && state_ == State::running &&
        (element.unaligned_barrier || barriers_->collecting_unaligned(element.checkpoint_id))) {
        handle_barrier(input_channel, element, true);
        pump();
        return;
    }
    in.queue.push_back(std::move(element));
    pump();
}

// ---- the processing loop ----------------------------------------------------------------------

void Task::pump() {
    while (state_ == State::running && !busy_ && !backpressured() && !inputs_.empty()) {
        InputChannel* chosen = nullptr;
        int32_t chosen_index = -1;
        for (size_t n = 0; n < inputs_.size(); ++n) {
            const size_t index = (next_input_ + n) % inputs_.size();
            InputChannel& in = inputs_[index];
            if (!in.blocked && !in.queue.empty()) {
                chosen = &in;
                chosen_index = static_cast<int32_t>(index);
                break;
            }
        }
        if (chosen == nullptr) return;
        next_input_ = (static_cast<size_t>(chosen_index) + 1) % inputs_.size();
        ChannelElement element = std::move(chosen->queue.front());
        chosen->queue.pop_front();
        switch (element.type) {
            case ChannelElement::Type::records:
                process_buffer(chosen_index, std::move(element.records), element.recovered);
                break;
            case ChannelElement::Type::barrier: handle_barrier(chosen_index, element, false); break;
            case ChannelElement::Type::cancellation_marker:
                barriers_->cancellation_marker_received(chosen_index, element.checkpoint_id);
                break;
            case ChannelElement::Type::watermark:
            case ChannelElement::Type::watermark_status: handle_watermark_element(chosen_index, element); break;
            case ChannelElement::Type::end_of_data:
                chosen->end_of_data = true;
                if (std::all_of(inputs_.begin(), inputs_.end(), [](const InputChannel& in) { return in.end_of_data; })) {
                    reach_end_of_data();
                }
                break;
        }
    }
}

void Task::handle_barrier(int32_t channel, const ChannelElement& element, bool overtook_queue) {
    const bool was_idle = barriers_->pending_checkpoint() == 0;
    if (was_idle) first_barrier_at_ = engine_.world().now();  // before the handler: it may snapshot at once
    overtaking_channel_ = overtook_queue ? channel : -1;
    note_snapshot_type(element.checkpoint_id, element.snapshot);
    barriers_->barrier_received(channel, CheckpointBarrier{element.checkpoint_id, element.unaligned_barrier});
    overtaking_channel_ = -1;
    if (was_idle && barriers_->pending_checkpoint() != 0) {
        engine_.world().announce(points::kAlignmentStarted, node_, element.checkpoint_id);
    }
    deliver_queued_barriers();
}

// A checkpoint that went unaligned here takes the barriers already queued on its channels at once
// (Flink learns where they are from barrier announcements): what is queued before them was
// persisted when the snapshot started, and they need not wait for it to be processed.
void Task::deliver_queued_barriers() {
    const int64_t pending = barriers_->pending_checkpoint();
    if (pending == 0 || !barriers_->collecting_unaligned(pending)) return;
    for (size_t c = 0; c < inputs_.size(); ++c) {
        auto& queue = inputs_[c].queue;
        auto it = std::find_if(queue.begin(), queue.end(), [&](const ChannelElement& e) {
            return e.type == ChannelElement::Type::barrier && e.checkpoint_id == pending;
        });
        if (it == queue.end()) continue;
        const ChannelElement barrier = *it;
        queue.erase(it);
        barriers_->barrier_received(static_cast<int32_t>(c), CheckpointBarrier{barrier.checkpoint_id, barrier.unaligned_barrier});
        if (!barriers_->collecting_unaligned(pending)) return;
    }
}

void Task::process_buffer(int32_t channel, RecordBatch records, bool recovered) {
    if (sink_) {
        sink_->write(records);
    } else {
        const int32_t edge = inputs_[static_cast<size_t>(channel)].edge;
        for (const Record& record : records) operator_->process(edge, record, operator_output_);
        schedule_processing_timer();
    }
    busy_ = true;
    engine_.schedule_for_task(node_, key_, record_cost() * static_cast<int64_t>(records.size()), kTaskProcessed,
                              [channel, recovered](Task& task) { task.finish_processing(channel, !recovered); });
    engine_.record_batches().give_back(std::move(records));
}

void Task::finish_processing(int32_t channel, bool return_credit) {
    busy_ = false;
    if (!return_credit) {  // a recovered buffer took no credit
        pump();
        return;
    }
    InputChannel& in = inputs_[static_cast<size_t>(channel)];
    const TaskKey producer{key_.attempt, in.producer.vertex, in.producer.subtask};
    const int32_t output_channel = in.producer.channel;
    Engine* engine = &engine_;
    const sim::NodeId producer_node = in.producer_node;
    engine_.world().network().send(in.connection, node_, kChannelCredit, key_digest(producer),
                                   [engine, producer_node, producer, output_channel] {
                                       if (Task* t = engine->find_task(producer_node, producer)) t->credit_returned(output_channel);
                                   });
    pump();
}

void Task::poll_source() {
    if (state_ != State::running || end_of_data_ || stop_savepoint_ != 0) return;
    if (busy_ || backpressured()) {
        after(runtime_.source_poll_interval, [this] { poll_source(); });
        return;
    }
    RecordBatch batch = engine_.record_batches().take();
    const auto error = source_->poll(static_cast<size_t>(runtime_.buffer_records), &batch);
    if (error) {
        fail("source cannot read: " + *error);
        return;
    }
    engine_.stats().records_read += static_cast<int64_t>(batch.size());
    for (const Record& record : batch) emit(record);
    const size_t records_polled = batch.size();
    engine_.record_batches().give_back(std::move(batch));
    send_source_watermark();
    if (source_->reached_end()) {
        reach_end_of_data();
        return;
    }
    const sim::Duration cost = record_cost() * static_cast<int64_t>(records_polled);
    busy_ = records_polled != 0;
    engine_.schedule_for_task(node_, key_, std::max(cost, runtime_.source_poll_interval), kSourcePoll, [](Task& task) {
        task.busy_ = false;
        task.poll_source();
    });
}

void Task::reach_end_of_data() {
    end_of_data_ = true;
    busy_ = false;
    engine_.world().announce(points::kTaskEndOfData, node_, last_barrier_forwarded_);
    if (source_ && source_->watermark(engine_.world().now())) {  // a bounded source's input is complete
        if (source_idle_) {  // active again, so that downstream valves take the final watermark
            source_idle_ = false;
            ChannelElement status{ChannelElement::Type::watermark_status, 0, {}};
            broadcast(std::move(status));
        }
        ChannelElement element{ChannelElement::Type::watermark, 0, {}};
        element.watermark = kMaxWatermark;
        broadcast(std::move(element));
        engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask, kMaxWatermark);
    }
    broadcast(ChannelElement{ChannelElement::Type::end_of_data, 0, {}});
}

// ---- output -----------------------------------------------------------------------------------

Emit Task::make_operator_output() {
    const bool late_edge = std::any_of(output_groups_.begin(), output_groups_.end(), [](const OutputGroup& g) { return g.late; });
    if (!late_edge) return Emit([this](const Record& record) { emit(record); });
    return Emit([this](const Record& record) { emit(record); }, [this](const Record& record) { emit_late(record); });
}

void Task::emit(const Record& record) {
    for (size_t g = 0; g < output_groups_.size(); ++g) {
        if (output_groups_[g].late) continue;
        append_to_channel(channel_for(g, record), record);
    }
    schedule_flush();
}

// The late-data side output goes to the edges that read it, partitioned as each edge says.
void Task::emit_late(const Record& record) {
    for (size_t g = 0; g < output_groups_.size(); ++g) {
        if (!output_groups_[g].late) continue;
        append_to_channel(channel_for(g, record), record);
    }
    schedule_flush();
}

int32_t Task::channel_for(size_t g, const Record& record) {
    const OutputGroup& group = output_groups_[g];
    switch (group.kind) {
        case EdgeKind::forward: return group.channel_of_subtask[0];
        case EdgeKind::hash: {
            const int32_t parallelism = static_cast<int32_t>(group.channel_of_subtask.size());
            return group.channel_of_subtask[static_cast<size_t>(subtask_for_key(record.key, engine_.job().max_parallelism, parallelism))];
        }
        case EdgeKind::rebalance: return group.channel_of_subtask[rebalance_next_[g]++ % group.channel_of_subtask.size()];
    }
    return group.channel_of_subtask[0];
}

void Task::append_to_channel(int32_t channel, const Record& record) {
    OutputChannel& out = outputs_[static_cast<size_t>(channel)];
    out.open_buffer.push_back(record);
    if (static_cast<int32_t>(out.open_buffer.size()) >= runtime_.buffer_records) {
        out.seal_buffer(engine_.record_batches());
        send_ready(out, channel);
    }
}

void Task::schedule_flush() {
    if (!flush_scheduled_) {
        flush_scheduled_ = true;
        engine_.schedule_for_task(node_, key_, runtime_.buffer_timeout, kTaskFlush, [](Task& task) {
            task.flush_scheduled_ = false;
            task.flush_outputs();
        });
    }
}

void Task::flush_outputs() {
    for (size_t c = 0; c < outputs_.size(); ++c) {
        OutputChannel& out = outputs_[c];
        if (out.open_buffer.empty()) continue;
        out.seal_buffer(engine_.record_batches());
        send_ready(out, static_cast<int32_t>(c));
    }
}

void Task::broadcast(ChannelElement element) {
    flush_outputs();
    for (size_t c = 0; c < outputs_.size(); ++c) {
        outputs_[c].queue.push_back(element);
        send_ready(outputs_[c], static_cast<int32_t>(c));
    }
}

void Task::send_ready(OutputChannel& out, int32_t index) {
    if (out.connection == UINT32_MAX || state_ == State::failed) return;
    Engine* engine = &engine_;
    const TaskKey consumer{key_.attempt, out.consumer.vertex, out.consumer.subtask};
    const sim::NodeId consumer_node = out.consumer_node;
    const int32_t input_channel = out.consumer.channel;
    while (!out.queue.empty()) {
        ChannelElement& front = out.queue.front();
        const bool is_buffer = front.type == ChannelElement::Type::records;
        const bool is_barrier = front.type == ChannelElement::Type::barrier;
        if (is_buffer && out.credits == 0) break;
        const bool is_watermark = front.type == ChannelElement::Type::watermark || front.type == ChannelElement::Type::watermark_status;
        const sim::EventKind& kind = is_buffer                                              ? kChannelBuffer
                                     : front.type == ChannelElement::Type::barrier            ? kChannelBarrier
                                     : front.type == ChannelElement::Type::cancellation_marker ? kChannelCancellation
                                     : front.type == ChannelElement::Type::watermark          ? kChannelWatermark
                                     : front.type == ChannelElement::Type::watermark_status   ? kChannelWatermarkStatus
                                                                                              : kChannelEndOfData;
        const uint64_t payload = is_buffer      ? front.records.size()
                                 : is_watermark ? static_cast<uint64_t>(front.watermark) ^ static_cast<uint64_t>(front.idle)
                                                : static_cast<uint64_t>(front.checkpoint_id);
        const uint64_t digest = sim::digest_mix(key_digest(consumer), payload);
        if (is_buffer) {
            --out.credits;
            --out.queued_buffers;
        }
        auto deliver = [engine, consumer_node, input_channel, consumer, element = std::move(front)]() mutable {
            if (Task* t = engine->find_task(consumer_node, consumer)) t->element_arrived(input_channel, std::move(element));
        };
        // One of these per buffer: kept inline, it costs no allocation.
        static_assert(sim::Callback::kFitsInline<decltype(deliver)>);
        engine_.world().network().send(out.connection, node_, kind, digest, std::move(deliver));
        out.queue.pop_front();
        if (is_barrier && barrier_send_.active()) upload_when_barrier_sent();
    }
    (void)index;
}

bool Task::backpressured() const {
    for (const OutputChannel& out : outputs_) {
        if (out.queued_buffers > runtime_.channel_credits) return true;
    }
    return false;
}

// ---- checkpoints ------------------------------------------------------------------------------

void Task::block_channel(int32_t channel) { inputs_.at(static_cast<size_t>(channel)).blocked = true; }

void Task::unblock_all_channels() {
    for (InputChannel& in : inputs_) in.blocked = false;
}

void Task::trigger_checkpoint(int64_t checkpoint_id, SnapshotType snapshot_type) {
    note_snapshot_type(checkpoint_id, snapshot_type);
    if (state_ != State::running) {
        abort_checkpoint(checkpoint_id, CheckpointFailureReason::checkpoint_declined_task_not_ready, "source task not running");
        return;
    }
    if (aborted_ahead_.contains(checkpoint_id)) {
        // The abort notice overtook the trigger: skip the snapshot, tell downstream in-band.
        aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
        send_cancellation_marker(checkpoint_id);
        return;
    }
    aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
    first_barrier_at_ = engine_.world().now();
    // Sources have no input channels: an unaligned checkpoint's channel state is what the barrier
    // overtook on the outputs, complete at once.
    const bool unaligned = channel_state_possible() && engine_.job().checkpointing.aligned_checkpoint_timeout == sim::Duration::zero();
    if (!snapshot(checkpoint_id, unaligned)) return;
    if (unaligned) {
        finish_unaligned_snapshot(checkpoint_id);
    } else {
        finish_aligned_snapshot(checkpoint_id);
    }
    if (!snapshot_type.terminates()) return;
    // Stop-with-savepoint: read nothing more; with drain, end of input follows the barrier.
    engine_.world().announce(points::kSourceStoppedForSavepoint, node_, checkpoint_id);
    if (!engine_.world().nodes().is_up(node_)) return;
    if (snapshot_type.drain && !end_of_data_) reach_end_of_data();
}

SnapshotType Task::snapshot_type(int64_t checkpoint_id) const {
    auto it = savepoints_seen_.find(checkpoint_id);
    return it == savepoints_seen_.end() ? SnapshotType{} : it->second;
}

void Task::note_snapshot_type(int64_t checkpoint_id, SnapshotType snapshot) {
    if (snapshot.is_savepoint()) savepoints_seen_[checkpoint_id] = snapshot;
}

void Task::trigger_snapshot(int64_t checkpoint_id) {
    if (!snapshot(checkpoint_id, false)) return;
    finish_aligned_snapshot(checkpoint_id);
}

// An aligned snapshot goes to storage at once, except with an aligned-checkpoint timeout: then it
// waits until its barrier left every output queue, and a barrier still queued after the timeout
// is sent on as unaligned, ahead of the buffers it overtakes, which join the snapshot as output
// channel state (Flink times out aligned barriers on the output side too).
void Task::finish_aligned_snapshot(int64_t checkpoint_id) {
    const sim::Duration timeout = engine_.job().checkpointing.aligned_checkpoint_timeout;
    if (!channel_state_possible() || timeout == sim::Duration::zero() || outputs_.empty()) {
        upload_snapshot(checkpoint_id, std::move(snapshot_operator_state_), snapshot_offsets_, false);
        return;
    }
    barrier_send_.start(checkpoint_id, 0, outputs_.size());
    barrier_send_state_ = std::move(snapshot_operator_state_);
    barrier_send_offsets_ = snapshot_offsets_;
    engine_.schedule_for_task(node_, key_, timeout, kAlignmentTimer, [checkpoint_id](Task& task) {
        if (task.state_ == State::running) task.overtake_queued_barriers(checkpoint_id);
    });
    upload_when_barrier_sent();
}

bool Task::barrier_queued(const OutputChannel& out, int64_t checkpoint_id) {
    return std::any_of(out.queue.begin(), out.queue.end(), [&](const ChannelElement& e) {
        return e.type == ChannelElement::Type::barrier && e.checkpoint_id == checkpoint_id;
    });
}

void Task::upload_when_barrier_sent() {
    const int64_t checkpoint_id = barrier_send_.checkpoint_id();
    if (checkpoint_id == 0) return;
    for (const OutputChannel& out : outputs_) {
        if (barrier_queued(out, checkpoint_id)) return;
    }
    const ChannelState channels = barrier_send_.take();
    operator_state_size_ = barrier_send_state_.size();
    upload_snapshot(checkpoint_id, encode_task_state(barrier_send_state_, channels, engine_.job().reads_timestamps()), barrier_send_offsets_, true);
}

void Task::overtake_queued_barriers(int64_t checkpoint_id) {
    if (barrier_send_.checkpoint_id() != checkpoint_id) return;
    for (size_t c = 0; c < outputs_.size(); ++c) {
        OutputChannel& out = outputs_[c];
        auto it = std::find_if(out.queue.begin(), out.queue.end(), [&](const ChannelElement& e) {
            return e.type == ChannelElement::Type::barrier && e.checkpoint_id == checkpoint_id;
        });
        if (it == out.queue.end()) continue;
        for (auto q = out.queue.begin(); q != it; ++q) {
            if (q->type == ChannelElement::Type::records) barrier_send_.add_output(static_cast<int32_t>(c), q->records);
        }
        out.queue.erase(it);
        ChannelElement barrier{ChannelElement::Type::barrier, checkpoint_id, {}};
        barrier.unaligned_barrier = true;
        out.queue.push_front(std::move(barrier));
        send_ready(out, static_cast<int32_t>(c));
    }
    upload_when_barrier_sent();
}

void Task::abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail) {
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kAcknowledge, key_digest(key) ^ static_cast<uint64_t>(checkpoint_id),
                                [key, checkpoint_id, reason, detail](JobManager& jm) {
                                    jm.decline_checkpoint(key, checkpoint_id, reason, detail);
                                });
    send_cancellation_marker(checkpoint_id);
}

// Flink's CancelCheckpointMarker: a task that declines a checkpoint before forwarding its barrier
// tells its downstream tasks in-band, so that they stop aligning for a barrier that never comes.
void Task::send_cancellation_marker(int64_t checkpoint_id) {
    if (state_ != State::running || checkpoint_id <= last_barrier_forwarded_ || checkpoint_id <= last_cancellation_sent_ ||
        outputs_.empty()) {
        return;
    }
    last_cancellation_sent_ = checkpoint_id;
    broadcast(ChannelElement{ChannelElement::Type::cancellation_marker, checkpoint_id, {}});
}

bool Task::snapshot(int64_t checkpoint_id, bool unaligned) {
    last_barrier_at_ = engine_.world().now();
    std::string state;
    SourceOffsets offsets;
    if (source_) {
        state = source_->snapshot(checkpoint_id);
        source_->add_offsets(&offsets);
    } else if (sink_) {
        std::string error;
        if (!sink_->pre_commit(checkpoint_id, &state, &error)) {
            abort_checkpoint(checkpoint_id, CheckpointFailureReason::checkpoint_declined, error);
            fail(error);
            return false;
        }
    } else if (KeyedStateBackend* keyed = operator_->keyed_state();
               keyed != nullptr && keyed->incremental() && !snapshot_type(checkpoint_id).is_savepoint()) {
        IncrementalSnapshot snapshot = keyed->snapshot_incremental(checkpoint_id, shared_state_prefix(engine_.job(), checkpoint_id, key_));
        state = std::move(snapshot.private_state);
        SharedUploads& uploads = shared_uploads_[checkpoint_id];
        uploads = SharedUploads{};
        uploads.report.keys = std::move(snapshot.shared_keys);
        for (const SharedStateUpload& file : snapshot.uploads) {
            uploads.report.uploaded.push_back(file.key);
            uploads.report.bytes_uploaded += static_cast<int64_t>(file.bytes.size());
        }
        std::sort(uploads.report.uploaded.begin(), uploads.report.uploaded.end());
        uploads.report.bytes_referenced = snapshot.bytes_referenced;
        uploads.files = std::move(snapshot.uploads);
    } else if (operator_->keyed_state() != nullptr) {
        // A savepoint is in the canonical form, whichever backend wrote it.
        state = snapshot_type(checkpoint_id).is_savepoint() ? operator_->keyed_state()->canonical_snapshot()
                                                            : operator_->keyed_state()->snapshot();
    }
    if (carries_watermark()) snapshot_watermarks_[checkpoint_id] = valve_->current();
    engine_.world().announce(points::kTaskSnapshotted, node_, checkpoint_id);
    if (end_of_data_ && end_of_data_checkpoint_ == 0) {
        end_of_data_checkpoint_ = checkpoint_id;
        engine_.world().announce(points::kTaskFinalSnapshot, node_, checkpoint_id);
    }
    last_barrier_forwarded_ = std::max(last_barrier_forwarded_, checkpoint_id);
    barrier_send_.discard();  // an older snapshot still waiting for its barrier to leave was aborted
    snapshot_operator_state_ = std::move(state);
    snapshot_offsets_ = std::move(offsets);
    if (snapshot_type(checkpoint_id).terminates()) stop_savepoint_ = checkpoint_id;
    if (!unaligned) {
        ChannelElement barrier{ChannelElement::Type::barrier, checkpoint_id, {}};
        barrier.snapshot = snapshot_type(checkpoint_id);
        broadcast(std::move(barrier));
        return true;
    }
    // The barrier overtakes every queued output buffer (the open one sealed first); they become the
    // output channel state, and are still sent, after the barrier.
    channel_state_.start(checkpoint_id, inputs_.size(), outputs_.size());
    flush_outputs();
    for (size_t c = 0; c < outputs_.size(); ++c) {
        OutputChannel& out = outputs_[c];
        for (const ChannelElement& queued : out.queue) {
            if (queued.type == ChannelElement::Type::records) channel_state_.add_output(static_cast<int32_t>(c), queued.records);
        }
        ChannelElement barrier{ChannelElement::Type::barrier, checkpoint_id, {}};
        barrier.unaligned_barrier = true;
        out.queue.push_front(std::move(barrier));
        send_ready(out, static_cast<int32_t>(c));
    }
    return true;
}

void Task::start_unaligned_snapshot(int64_t checkpoint_id, const std::vector<bool>& barrier_in) {
    if (!snapshot(checkpoint_id, true)) return;
    for (size_t c = 0; c < inputs_.size(); ++c) {
        const auto channel = static_cast<int32_t>(c);
        // A channel whose barrier arrived in order (it was blocked) holds only data after it; one
        // whose barrier overtook its queue holds data before it; every other channel records until
        // its barrier, starting with what is queued (up to a barrier of this checkpoint, if queued).
        if (barrier_in[c] && channel != overtaking_channel_) continue;
        for (const ChannelElement& queued : inputs_[c].queue) {
            if (queued.type == ChannelElement::Type::barrier && queued.checkpoint_id == checkpoint_id) break;
            if (queued.type == ChannelElement::Type::records) channel_state_.add_input(channel, queued.records);
        }
        channel_state_.set_recording(channel, !barrier_in[c]);
    }
}

void Task::channel_barrier_received(int32_t channel) {
    last_barrier_at_ = engine_.world().now();
    if (channel_state_.active()) channel_state_.set_recording(channel, false);
}

void Task::finish_unaligned_snapshot(int64_t checkpoint_id) {
    if (channel_state_.checkpoint_id() != checkpoint_id) return;  // the snapshot failed (a sink)
    last_barrier_at_ = engine_.world().now();
    const ChannelState channels = channel_state_.take();
    operator_state_size_ = snapshot_operator_state_.size();
    upload_snapshot(checkpoint_id, encode_task_state(snapshot_operator_state_, channels, engine_.job().reads_timestamps()), snapshot_offsets_, true);
}

void Task::discard_unaligned_snapshot(int64_t checkpoint_id) {
    if (channel_state_.checkpoint_id() == checkpoint_id) channel_state_.discard();
}

void Task::start_alignment_timer(int64_t checkpoint_id, sim::Duration delay) {
    engine_.schedule_for_task(node_, key_, delay, kAlignmentTimer, [checkpoint_id](Task& task) {
        if (task.state_ != State::running) return;
        task.barriers_->alignment_timed_out(checkpoint_id);
        task.deliver_queued_barriers();
        task.pump();
    });
}

// The asynchronous part: the state goes to durable storage, then the ack to the coordinator.
void Task::upload_snapshot(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets, bool unaligned) {
    TaskCheckpointStats stats;
    stats.checkpoint_id = checkpoint_id;
    stats.vertex = vertex_.id;
    stats.subtask = key_.subtask;
    stats.first_barrier_at = first_barrier_at_;
    stats.alignment = inputs_.empty() ? sim::Duration::zero() : last_barrier_at_ - first_barrier_at_;
    stats.unaligned = unaligned;
    stats.operator_state_bytes = static_cast<int64_t>(unaligned ? operator_state_size_ : blob.size());
    if (!unaligned && channel_state_possible()) blob = encode_task_state(blob, ChannelState{}, engine_.job().reads_timestamps());
    if (unaligned) stats.channel_state_bytes = static_cast<int64_t>(blob.size()) - stats.operator_state_bytes;
    auto shared = shared_uploads_.find(checkpoint_id);
    if (shared != shared_uploads_.end()) {
        stats.shared_bytes_uploaded = shared->second.report.bytes_uploaded;
        stats.shared_bytes_referenced = shared->second.report.bytes_referenced;
    }
    engine_.observer().task_checkpoint_stats(engine_.world().now(), stats);
    if (shared == shared_uploads_.end()) {
        upload_private_state(checkpoint_id, std::move(blob), offsets, unaligned, SharedStateReport{});
        return;
    }
    // Older snapshots still waiting for their barrier were aborted: their uploads never start.
    for (auto older = shared_uploads_.begin(); older != shared;) {
        older = older->second.started ? std::next(older) : shared_uploads_.erase(older);
    }
    SharedUploads& uploads = shared->second;
    uploads.started = true;
    uploads.blob = std::move(blob);
    uploads.offsets = offsets;
    uploads.unaligned = unaligned;
    uploads.outstanding = static_cast<int32_t>(uploads.files.size());
    if (uploads.outstanding == 0) {
        SharedUploads done = std::move(uploads);
        shared_uploads_.erase(shared);
        upload_private_state(checkpoint_id, std::move(done.blob), done.offsets, done.unaligned, done.report);
        return;
    }
    std::vector<SharedStateUpload> files = std::move(uploads.files);
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    const TaskKey key = key_;
    for (SharedStateUpload& file : files) {
        engine_.world().storage().put(node_, file.key, std::move(file.bytes),
                                      [engine, node, key, checkpoint_id, shared_key = file.key](sim::StorageStatus status) {
                                          if (Task* task = engine->find_task(node, key)) {
                                              task->shared_file_uploaded(checkpoint_id, shared_key, status == sim::StorageStatus::ok);
                                          } else if (status == sim::StorageStatus::ok) {
                                              // Cancelled meanwhile: nobody will acknowledge it.
                                              remove_shared_upload(engine, node, shared_key, kSharedCleanupTries);
                                          }
                                      });
    }
}

void Task::shared_file_uploaded(int64_t checkpoint_id, const std::string& key, bool ok) {
    auto it = shared_uploads_.find(checkpoint_id);
    if (it == shared_uploads_.end()) return;
    SharedUploads& uploads = it->second;
    if (ok) {
        uploads.landed.push_back(key);
    } else {
        uploads.failed = true;
    }
    if (--uploads.outstanding > 0) return;
    SharedUploads done = std::move(uploads);
    shared_uploads_.erase(it);
    if (!done.failed) {
        upload_private_state(checkpoint_id, std::move(done.blob), done.offsets, done.unaligned, done.report);
        return;
    }
    // Flink's AsyncCheckpointRunnable cleans up what it wrote of a failed snapshot.
    for (const std::string& landed : done.landed) remove_shared_upload(&engine_, node_, landed, kSharedCleanupTries);
    const TaskKey task_key = key_;
    engine_.send_to_job_manager(node_, messages::kAcknowledge, key_digest(task_key) ^ static_cast<uint64_t>(checkpoint_id),
                                [task_key, checkpoint_id](JobManager& jm) {
                                    jm.decline_checkpoint(task_key, checkpoint_id, CheckpointFailureReason::checkpoint_async_exception,
                                                          "shared state upload failed");
                                });
}

void Task::upload_private_state(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets, bool unaligned,
                                const SharedStateReport& shared) {
    if (carries_watermark()) blob = with_watermark(checkpoint_id, std::move(blob));
    const std::string storage_key = snapshot_type(checkpoint_id).is_savepoint() ? savepoint_state_key(engine_.job(), checkpoint_id, key_)
                                                                                : state_key(engine_.job(), checkpoint_id, key_);
    const int64_t state_bytes = static_cast<int64_t>(blob.size());
    const TaskKey key = key_;
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    engine_.world().storage().put(node_, storage_key, std::move(blob),
                                  [engine, node, key, checkpoint_id, storage_key, state_bytes, offsets, unaligned, shared](sim::StorageStatus status) {
                                      if (engine->find_task(node, key) == nullptr) {
                                          // Cancelled meanwhile: nobody will acknowledge it, so the task's
                                          // asynchronous part deletes it (Flink's AsyncCheckpointRunnable cleanup).
                                          if (status == sim::StorageStatus::ok) engine->world().storage().remove(node, storage_key, [](sim::StorageStatus) {});
                                          for (const std::string& uploaded : shared.uploaded) {
                                              remove_shared_upload(engine, node, uploaded, kSharedCleanupTries);
                                          }
                                          return;
                                      }
                                      if (status != sim::StorageStatus::ok) {
                                          // Declined below: the shared files this snapshot uploaded go too.
                                          for (const std::string& uploaded : shared.uploaded) {
                                              remove_shared_upload(engine, node, uploaded, kSharedCleanupTries);
                                          }
                                      }
                                      if (unaligned && status == sim::StorageStatus::ok) {
                                          engine->world().announce(points::kChannelStatePersisted, node, checkpoint_id);
                                          if (!engine->world().nodes().is_up(node)) return;
                                      }
                                      engine->send_to_job_manager(
                                          node, messages::kAcknowledge, key_digest(key) ^ static_cast<uint64_t>(checkpoint_id),
                                          [key, checkpoint_id, storage_key, state_bytes, offsets, status, shared](JobManager& jm) {
                                              if (status == sim::StorageStatus::ok) {
                                                  jm.acknowledge_checkpoint(key, checkpoint_id, storage_key, state_bytes, offsets, shared);
                                              } else {
                                                  jm.decline_checkpoint(key, checkpoint_id, CheckpointFailureReason::checkpoint_async_exception,
                                                                        "state upload failed");
                                              }
                                          });
                                  });
}

void Task::checkpoint_complete(int64_t checkpoint_id) {
    if (state_ != State::running) return;
    if (operator_ && operator_->keyed_state() != nullptr) operator_->keyed_state()->checkpoint_confirmed(checkpoint_id);
    if (sink_) sink_->checkpoint_complete(checkpoint_id);
    if (source_) source_->checkpoint_complete(checkpoint_id);
    report_finished_if_done(checkpoint_id);
}

void Task::checkpoint_aborted(int64_t checkpoint_id) {
    if (operator_ && operator_->keyed_state() != nullptr) operator_->keyed_state()->checkpoint_aborted(checkpoint_id);
    if (barriers_) {
        barriers_->checkpoint_aborted(checkpoint_id);
    } else if (checkpoint_id > last_barrier_forwarded_) {
        aborted_ahead_.insert(checkpoint_id);  // a source whose trigger has not come yet
    }
    pump();
}

void Task::report_finished_if_done(int64_t completed_checkpoint) {
    const bool stopped = stop_savepoint_ != 0 && completed_checkpoint >= stop_savepoint_;
    if (!stopped && (!end_of_data_ || end_of_data_checkpoint_ == 0 || completed_checkpoint < end_of_data_checkpoint_)) return;
    if (sink_ && !sink_->settled()) return;
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key), [key](JobManager& jm) { jm.task_finished(key); });
}

}  // namespace eosim::engine
