#include "engine/runtime/task.h"

#include <algorithm>
#include <stdexcept>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/connectors/sink_registry.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"
#include "engine/state/key_groups.h"
#include "engine/runtime/protocol_points.h"
#include "engine/runtime/task_manager.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kChannelOpen{"channel.open"};
constexpr sim::EventKind kChannelCredit{"channel.credit"};
constexpr sim::EventKind kChannelBuffer{"channel.buffer"};
constexpr sim::EventKind kChannelBarrier{"channel.barrier"};
constexpr sim::EventKind kChannelEndOfData{"channel.end_of_data"};
constexpr sim::EventKind kTaskProcessed{"task.processed"};
constexpr sim::EventKind kTaskFlush{"task.flush"};
constexpr sim::EventKind kSourcePoll{"source.poll"};
constexpr sim::EventKind kTaskTimer{"task.timer"};

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
    for (const ChannelEnd& producer : topology.input_channels(key.vertex, key.subtask)) {
        InputChannel channel;
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
        const SourceServices services{engine.services().systems.kafka, engine.services().systems.source_database,
                                      &engine.services().input_end_offsets};
        source_ = make_source_reader(vertex_, *this, services, key.subtask);
    } else if (vertex_.kind == OperatorKind::sink) {
        sink_ = vertex_.sink->make(*this, engine.services().systems, runtime_);
    } else {
        std::unique_ptr<KeyedStateBackend> state;
        if (is_keyed(vertex_.kind)) {
            state = make_heap_state_backend(KeyGroupRange::of_subtask(key.subtask, vertex_.parallelism, job.max_parallelism),
                                            job.max_parallelism);
        }
        operator_ = make_operator(vertex_, std::move(state));
    }
    if (!inputs_.empty()) {
        barriers_ = make_barrier_handler(job.checkpointing.mode, static_cast<int32_t>(inputs_.size()), *this);
    }
}

Task::~Task() = default;

sim::World& Task::world() { return engine_.world(); }
RunObserver& Task::observer() { return engine_.observer(); }

void Task::after(sim::Duration delay, std::function<void()> fn) {
    engine_.schedule_for_task(node_, key_, delay, kTaskTimer, [fn = std::move(fn)](Task&) { fn(); });
}

void Task::fail(const std::string& reason) {
    if (state_ == State::failed) return;
    state_ = State::failed;
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
    std::vector<std::string> keys;
    for (const auto& [where, handle] : checkpoint.handles) {
        if (where.first != key_.vertex) continue;
        if (is_sink() && where.second != key_.subtask) continue;
        keys.push_back(handle);
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
    restored_blobs_[index] = std::move(value);
    if (--restore_reads_outstanding_ == 0) apply_restored_state();
}

void Task::apply_restored_state() {
    const int64_t checkpoint_id = deployment_.restore.id;
    engine_.world().announce(points::kTaskRestoring, node_, checkpoint_id);
    if (!engine_.world().nodes().is_up(node_)) return;  // crashed at the point: nothing is applied
    if (source_) source_->restore(restored_blobs_);
    if (operator_ && operator_->keyed_state() != nullptr) {
        operator_->keyed_state()->restore(restored_blobs_);
        if (checkpoint_id > 0) {
            engine_.observer().keyed_state_restored(engine_.world().now(), key_.attempt, vertex_.id, key_.subtask,
                                                    operator_->keyed_state()->contents());
        }
    }
    // A sink reads only its own subtask's state.
    if (sink_ && !restored_blobs_.empty()) restored_sink_state_ = restored_blobs_.front();
    restored_blobs_.clear();
    state_ = State::ready;
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key), [key](JobManager& jm) { jm.task_ready(key); });
}

// ---- start and channels -----------------------------------------------------------------------

void Task::cancel() {
    if (sink_) sink_->close();
}

void Task::start() {
    if (state_ != State::ready) return;
    state_ = State::running;
    if (sink_ && !sink_->open(deployment_.restore.id, restored_sink_state_)) return;
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
    inputs_.at(static_cast<size_t>(input_channel)).queue.push_back(std::move(element));
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
            case ChannelElement::Type::records: process_buffer(chosen_index, std::move(element.records)); break;
            case ChannelElement::Type::barrier: {
                const bool was_idle = barriers_->pending_checkpoint() == 0;
                barriers_->barrier_received(chosen_index, element.checkpoint_id);
                if (was_idle && barriers_->pending_checkpoint() != 0) {
                    engine_.world().announce(points::kAlignmentStarted, node_, element.checkpoint_id);
                }
                break;
            }
            case ChannelElement::Type::end_of_data:
                chosen->end_of_data = true;
                if (std::all_of(inputs_.begin(), inputs_.end(), [](const InputChannel& in) { return in.end_of_data; })) {
                    reach_end_of_data();
                }
                break;
        }
    }
}

void Task::process_buffer(int32_t channel, RecordBatch records) {
    if (sink_) {
        sink_->write(records);
    } else {
        const Emit out = [this](const Record& record) { emit(record); };
        for (const Record& record : records) operator_->process(record, out);
    }
    busy_ = true;
    engine_.schedule_for_task(node_, key_, runtime_.record_cost * static_cast<int64_t>(records.size()), kTaskProcessed,
                              [channel](Task& task) { task.finish_processing(channel); });
}

void Task::finish_processing(int32_t channel) {
    busy_ = false;
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
    if (state_ != State::running || end_of_data_) return;
    if (busy_ || backpressured()) {
        after(runtime_.source_poll_interval, [this] { poll_source(); });
        return;
    }
    RecordBatch batch;
    const auto error = source_->poll(static_cast<size_t>(runtime_.buffer_records), &batch);
    if (error) {
        fail("source cannot read: " + *error);
        return;
    }
    engine_.stats().records_read += static_cast<int64_t>(batch.size());
    for (const Record& record : batch) emit(record);
    if (source_->reached_end()) {
        reach_end_of_data();
        return;
    }
    const sim::Duration cost = runtime_.record_cost * static_cast<int64_t>(batch.size());
    busy_ = !batch.empty();
    engine_.schedule_for_task(node_, key_, std::max(cost, runtime_.source_poll_interval), kSourcePoll, [](Task& task) {
        task.busy_ = false;
        task.poll_source();
    });
}

void Task::reach_end_of_data() {
    end_of_data_ = true;
    busy_ = false;
    broadcast(ChannelElement{ChannelElement::Type::end_of_data, 0, {}});
}

// ---- output -----------------------------------------------------------------------------------

void Task::emit(const Record& record) {
    for (size_t g = 0; g < output_groups_.size(); ++g) {
        const OutputGroup& group = output_groups_[g];
        int32_t channel = 0;
        switch (group.kind) {
            case EdgeKind::forward: channel = group.channel_of_subtask[0]; break;
            case EdgeKind::hash: {
                const int32_t parallelism = static_cast<int32_t>(group.channel_of_subtask.size());
                channel = group.channel_of_subtask[static_cast<size_t>(
                    subtask_for_key(record.key, engine_.job().max_parallelism, parallelism))];
                break;
            }
            case EdgeKind::rebalance:
                channel = group.channel_of_subtask[rebalance_next_[g]++ % group.channel_of_subtask.size()];
                break;
        }
        OutputChannel& out = outputs_[static_cast<size_t>(channel)];
        out.open_buffer.push_back(record);
        if (static_cast<int32_t>(out.open_buffer.size()) >= runtime_.buffer_records) {
            out.seal_buffer();
            send_ready(out, channel);
        }
    }
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
        out.seal_buffer();
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
        if (is_buffer && out.credits == 0) break;
        const sim::EventKind& kind = is_buffer ? kChannelBuffer
                                     : front.type == ChannelElement::Type::barrier ? kChannelBarrier
                                                                                    : kChannelEndOfData;
        const uint64_t digest = sim::digest_mix(key_digest(consumer), is_buffer ? front.records.size() : static_cast<uint64_t>(front.checkpoint_id));
        if (is_buffer) {
            --out.credits;
            --out.queued_buffers;
        }
        engine_.world().network().send(out.connection, node_, kind, digest,
                                       [engine, consumer_node, consumer, input_channel, element = std::move(front)]() mutable {
                                           if (Task* t = engine->find_task(consumer_node, consumer)) {
                                               t->element_arrived(input_channel, std::move(element));
                                           }
                                       });
        out.queue.pop_front();
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

void Task::trigger_checkpoint(int64_t checkpoint_id) {
    if (state_ != State::running) {
        abort_checkpoint(checkpoint_id, CheckpointFailureReason::checkpoint_declined_task_not_ready, "source task not running");
        return;
    }
    snapshot(checkpoint_id);
}

void Task::trigger_snapshot(int64_t checkpoint_id) { snapshot(checkpoint_id); }

void Task::abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail) {
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kAcknowledge, key_digest(key) ^ static_cast<uint64_t>(checkpoint_id),
                                [key, checkpoint_id, reason, detail](JobManager& jm) {
                                    jm.decline_checkpoint(key, checkpoint_id, reason, detail);
                                });
}

void Task::snapshot(int64_t checkpoint_id) {
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
            return;
        }
    } else if (operator_->keyed_state() != nullptr) {
        state = operator_->keyed_state()->snapshot();
    }
    engine_.world().announce(points::kTaskSnapshotted, node_, checkpoint_id);
    if (end_of_data_ && end_of_data_checkpoint_ == 0) end_of_data_checkpoint_ = checkpoint_id;
    broadcast(ChannelElement{ChannelElement::Type::barrier, checkpoint_id, {}});
    // The asynchronous part: the state goes to durable storage, then the ack to the coordinator.
    const std::string storage_key = state_key(engine_.job(), checkpoint_id, key_);
    const int64_t state_bytes = static_cast<int64_t>(state.size());
    const TaskKey key = key_;
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    engine_.world().storage().put(node_, storage_key, std::move(state),
                                  [engine, node, key, checkpoint_id, storage_key, state_bytes, offsets](sim::StorageStatus status) {
                                      if (engine->find_task(node, key) == nullptr) {
                                          // Cancelled meanwhile: nobody will acknowledge it, so the task's
                                          // asynchronous part deletes it (Flink's AsyncCheckpointRunnable cleanup).
                                          if (status == sim::StorageStatus::ok) engine->world().storage().remove(node, storage_key, [](sim::StorageStatus) {});
                                          return;
                                      }
                                      engine->send_to_job_manager(
                                          node, messages::kAcknowledge, key_digest(key) ^ static_cast<uint64_t>(checkpoint_id),
                                          [key, checkpoint_id, storage_key, state_bytes, offsets, status](JobManager& jm) {
                                              if (status == sim::StorageStatus::ok) {
                                                  jm.acknowledge_checkpoint(key, checkpoint_id, storage_key, state_bytes, offsets);
                                              } else {
                                                  jm.decline_checkpoint(key, checkpoint_id, CheckpointFailureReason::checkpoint_async_exception,
                                                                        "state upload failed");
                                              }
                                          });
                                  });
}

void Task::checkpoint_complete(int64_t checkpoint_id) {
    if (state_ != State::running) return;
    if (sink_) sink_->checkpoint_complete(checkpoint_id);
    if (source_) source_->checkpoint_complete(checkpoint_id);
    report_finished_if_done(checkpoint_id);
}

void Task::checkpoint_aborted(int64_t checkpoint_id) {
    if (barriers_) barriers_->checkpoint_aborted(checkpoint_id);
    pump();
}

void Task::report_finished_if_done(int64_t completed_checkpoint) {
    if (!end_of_data_ || end_of_data_checkpoint_ == 0 || completed_checkpoint < end_of_data_checkpoint_) return;
    if (sink_ && !sink_->settled()) return;
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key), [key](JobManager& jm) { jm.task_finished(key); });
}

}  // namespace eosim::engine
