#include "engine/runtime/task.h"

#include <algorithm>

#include "engine/connectors/sink_registry.h"
#include "engine/runtime/control_messages.h"
#include "engine/runtime/engine.h"
#include "engine/runtime/job_manager.h"
#include "engine/state/key_groups.h"
#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {

// A crash at a point unwinds the running handler (sim/scheduler.h, the crash boundary): an
// announcement by a task returns only on a live node.
constexpr const char* kLiveAfterPoint = "no task code runs on a crashed node after an announcement";
constexpr sim::EventKind kTaskProcessed{"task.processed"};
constexpr sim::EventKind kSourcePoll{"source.poll"};
constexpr sim::EventKind kTaskTimer{"task.timer"};
}  // namespace

Task::Task(Engine& engine, sim::NodeId node, TaskKey key, const Deployment& deployment)
    : engine_(engine),
      node_(node),
      key_(key),
      vertex_(engine.job().vertices[static_cast<size_t>(key.vertex)]),
      runtime_(engine.job().runtime),
      deployment_(deployment),
      inputs_(*this, deployment),
      writer_(*this, deployment),
      chain_(*this, writer_.operator_output()),
      checkpoint_(*this) {}

Task::~Task() = default;

sim::World& Task::world() { return engine_.world(); }
RunObserver& Task::observer() { return engine_.observer(); }

std::optional<std::vector<std::string_view>> Task::declared_points() const {
    if (vertex_.kind != OperatorKind::sink || !vertex_.sink) return std::nullopt;
    return vertex_.sink->announced_points();
}

// The sink's own timer: it fires while the task runs and after the task was cancelled (its sink
// closed, the process alive: what close() did not stop keeps running), not after a crash.
void Task::after(sim::Duration delay, std::function<void()> fn) {
    engine_.schedule_for_sink(node_, key_, delay, kTaskTimer, std::move(fn));
}

bool Task::channel_state_possible() const {
    return engine_.job().checkpointing.channel_state_possible();
}

void Task::fail(const std::string& reason) {
    if (state() == State::failed) return;
    lifecycle_.transition_to(State::failed);
    failure_ = reason;
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key),
                                [key, reason](JobManager& jm) { jm.task_failed(key, reason); });
}

// ---- restore ----------------------------------------------------------------------------------

void Task::restore() {
    lifecycle_.transition_to(State::restoring);
    const CompletedCheckpoint& checkpoint = deployment_.restore;
    deployed_finished_ = checkpoint.finished.contains({key_.vertex, key_.subtask});
    if (deployed_finished_) {  // no state of its own in the checkpoint: nothing to read, nothing in
                               // flight
        engine_.observer().channel_state_restored(engine_.world().now(), key_.attempt, vertex_.id,
                                                  key_.subtask, {});
        lifecycle_.transition_to(State::ready);
        const TaskKey key = key_;
        engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key),
                                    [key](JobManager& jm) { jm.task_ready(key); });
        return;
    }
    // Sources and keyed operators read every subtask's state of their vertex (union of splits,
    // key groups by range); a sink reads the states restoring_subtask hands it (its own; on a
    // scale-in also a removed subtask's; runtime.sinks_drop_removed_state, a negative control,
    // reads its own only). With channel state, every task reads its own blob for it; a stateless
    // operator reads only that.
    const auto reads = [this](int32_t old_subtask) {
        if (chain_.sink()) {
            return runtime_.sinks_drop_removed_state
                       ? old_subtask == key_.subtask
                       : restoring_subtask(old_subtask, vertex_.parallelism) == key_.subtask;
        }
        return !channel_state_possible() || chain_.source() || chain_.keyed_state() ||
               old_subtask == key_.subtask;
    };
    std::vector<std::string> keys;
    int32_t subtasks_in_checkpoint = 0;
    own_blob_ = SIZE_MAX;
    restored_subtasks_.clear();
    for (const auto& [where, handle] : checkpoint.handles) {
        if (where.first != key_.vertex) continue;
        ++subtasks_in_checkpoint;
        if (!reads(where.second)) continue;
        if (where.second == key_.subtask) own_blob_ = keys.size();
        keys.push_back(handle);
        restored_subtasks_.push_back(where.second);
    }
    // A finished subtask (FLIP-147) has no state in the checkpoint but counts as one of its
    // subtasks.
    subtasks_in_checkpoint += static_cast<int32_t>(
        std::count_if(checkpoint.finished.begin(), checkpoint.finished.end(),
                      [this](const auto& f) { return f.first == key_.vertex; }));
    if (channel_state_possible() && checkpoint.id > 0 &&
        subtasks_in_checkpoint != vertex_.parallelism) {
        // Flink redistributes channel state on rescaling; eosim cannot yet.
        fail(
            "cannot restore checkpoint " + std::to_string(checkpoint.id) + ": vertex '" +
            vertex_.id + "' has " + std::to_string(vertex_.parallelism) +
            " subtasks but the checkpoint holds " + std::to_string(subtasks_in_checkpoint) +
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
        engine_.world().storage().get(
            node_, keys[i], [engine, node, key, i](sim::StorageStatus status, std::string value) {
                if (Task* task = engine->find_task(node, key))
                    task->restore_read(i, status, std::move(value));
            });
    }
}

void Task::restore_read(size_t index, sim::StorageStatus status, std::string value) {
    if (state() != State::restoring) return;
    if (status != sim::StorageStatus::ok) {
        fail("cannot read checkpoint state from storage");
        return;
    }
    if (carries_watermark()) {
        // The minimum over the subtasks read (the maximum: a negative control).
        const int64_t watermark = strip_watermark(value);
        const bool max = runtime_.restored_watermark_max;
        restored_watermark_ = !restored_watermark_ ? watermark
                              : max                ? std::max(*restored_watermark_, watermark)
                                                   : std::min(*restored_watermark_, watermark);
    }
    restored_blobs_[index] = std::move(value);
    if (--restore_reads_outstanding_ == 0) fetch_shared_state();
}

// Incremental keyed state: downloads the shared files the restored private blobs name that this
// subtask needs, then applies the restore.
void Task::fetch_shared_state() {
    if (chain_.keyed_state() == nullptr || restored_blobs_.empty()) {
        apply_restored_state();
        return;
    }
    std::vector<std::string> private_states;
    for (const std::string& blob : restored_blobs_) {
        std::string state =
            channel_state_possible() ? decode_task_state(blob).operator_state : blob;
        if (is_incremental_state(state)) private_states.push_back(std::move(state));
    }
    const JobSpec& job = engine_.job();
    const std::vector<std::string> keys = shared_keys_to_restore(
        private_states,
        KeyGroupRange::of_subtask(key_.subtask, vertex_.parallelism, job.max_parallelism));
    if (keys.empty()) {
        apply_restored_state();
        return;
    }
    shared_reads_outstanding_ = static_cast<int32_t>(keys.size());
    Engine* engine = &engine_;
    const sim::NodeId node = node_;
    const TaskKey key = key_;
    for (const std::string& shared_key : keys) {
        engine_.world().storage().get(
            node_, shared_key,
            [engine, node, key, shared_key](sim::StorageStatus status, std::string value) {
                if (Task* task = engine->find_task(node, key))
                    task->shared_state_read(shared_key, status, std::move(value));
            });
    }
}

void Task::shared_state_read(const std::string& key, sim::StorageStatus status, std::string value) {
    if (state() != State::restoring) return;
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
    EOSIM_INVARIANT(engine_.world().nodes().is_up(node_), kLiveAfterPoint);
    if (channel_state_possible()) {
        // Each blob holds operator state and its subtask's channel state; keep our own channel
        // state.
        for (size_t i = 0; i < restored_blobs_.size(); ++i) {
            TaskStateBlob blob = decode_task_state(restored_blobs_[i]);
            if (i == own_blob_) recovered_ = std::move(blob.channels);
            restored_blobs_[i] = std::move(blob.operator_state);
        }
    }
    chain_.restore(restored_blobs_, restored_subtasks_, restored_shared_,
                   deployment_.restore.savepoint, deployment_.restore.no_claim, checkpoint_id);
    // A source subtask that had finished left no state; its splits resume at the checkpoint's
    // offsets for them (unless the negative control reads them again).
    if (SourceReader* source = chain_.source();
        source != nullptr && checkpoint_id > 0 && !runtime_.finished_sources_read_again) {
        source->resume_unrestored_at(deployment_.restore.offsets);
    }
    if (const SourceReader* source = chain_.source(); source != nullptr && checkpoint_id > 0) {
        SourceOffsets position;
        source->add_offsets(&position);
        engine_.observer().source_restored(engine_.world().now(), key_.attempt, vertex_.id,
                                           key_.subtask, checkpoint_id, position);
    }
    restored_shared_.clear();
    restored_blobs_.clear();
    restored_subtasks_.clear();
    if (checkpoint_id > 0) queue_recovered_channel_state();
    restore_watermark();
    lifecycle_.transition_to(State::ready);
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key),
                                [key](JobManager& jm) { jm.task_ready(key); });
}

// task.restoring, and task.restoring_rescaled when the snapshot had another parallelism here.
void Task::announce_restore(int64_t checkpoint_id) {
    announce(points::kTaskRestoring, checkpoint_id);
    auto rescaled = deployment_.restore.rescaled_from.find(key_.vertex);
    EOSIM_INVARIANT(engine_.world().nodes().is_up(node_), kLiveAfterPoint);
    if (rescaled == deployment_.restore.rescaled_from.end()) return;
    announce(points::kTaskRestoringRescaled, rescaled->second);
}

// Puts the recovered buffers at the head of their channels (nothing was emitted yet) and tells the
// oracles what is in flight.
void Task::queue_recovered_channel_state() {
    std::vector<InFlightRecords> in_flight;
    inputs_.queue_recovered(recovered_.inputs, in_flight);
    writer_.queue_recovered(recovered_.outputs, in_flight);
    replaying_channel_state_ = !in_flight.empty();
    recovered_ = ChannelState{};
    engine_.observer().channel_state_restored(engine_.world().now(), key_.attempt, vertex_.id,
                                              key_.subtask, in_flight);
}

// ---- start and channels -----------------------------------------------------------------------

void Task::cancel() {
    closed_ = true;
    held_.clear();
    if (!deployed_finished_) chain_.close();  // a task deployed finished never opened its sink
}

void Task::start() {
    if (state() != State::ready) return;
    lifecycle_.transition_to(State::running);
    if (deployed_finished_) {
        finish_on_restore();
        return;
    }
    if (!chain_.open(deployment_.restore.id)) return;
    if (replaying_channel_state_) {
        announce(points::kChannelStateReplaying, deployment_.restore.id);
        EOSIM_INVARIANT(engine_.world().nodes().is_up(node_), kLiveAfterPoint);
        writer_.send_all();
    }
    inputs_.open();
    if (is_source()) poll_source();
}

void Task::channel_opened(int32_t output_channel, sim::ConnectionId connection, int32_t credits) {
    writer_.channel_opened(output_channel, connection, credits);
}

void Task::credit_returned(int32_t output_channel) {
    writer_.credit_returned(output_channel);
    pump();
}

void Task::data_processed(int32_t output_channel) {
    if (writer_.data_processed(output_channel) && state() == State::running)
        report_finished_if_done(last_completed_);
}

void Task::connection_lost() {
    // A finished task sends and reads nothing more: a consumer that lost its end of partition fails
    // itself.
    if (state() != State::finished) fail("a data channel's connection was reset");
}

void Task::element_arrived(int32_t input_channel, ChannelElement element) {
    if (state() == State::failed || state() == State::finished) return;
    inputs_.known(input_channel);
    ChannelStateWriter& channel_state = checkpoint_.channel_state();
    if (element.type == ChannelElement::Type::records && channel_state.recording(input_channel)) {
        channel_state.add_input(input_channel,
                                element.records);  // in flight before this channel's barrier
    }
    // A priority barrier (or any barrier of a checkpoint already taken unaligned here) is handled
    // on arrival: it overtakes what is queued on its channel.
    if (element.type == ChannelElement::Type::barrier && state() == State::running && !holding() &&
        (element.unaligned_barrier ||
         inputs_.barriers().collecting_unaligned(element.checkpoint_id))) {
        handle_barrier(input_channel, element, true);
        pump();
        return;
    }
    const bool announce =
        element.type == ChannelElement::Type::barrier && state() == State::running;
    const CheckpointBarrier barrier{element.checkpoint_id, element.unaligned_barrier,
                                    element.checkpoint_started};
    inputs_.queue(input_channel, std::move(element));
    // An aligned barrier queued behind buffers is announced (Flink's priority EventAnnouncement):
    // with an aligned-checkpoint timeout, its checkpoint's timer starts now, not when the barrier
    // is taken.
    if (announce && !engine_.job().checkpointing.queued_barriers_wait)
        inputs_.barriers().barrier_announced(input_channel, barrier);
    pump();
}

void Task::barrier_sent() { checkpoint_.barrier_sent(); }

// ---- the processing loop ----------------------------------------------------------------------

void Task::pump() {
    int32_t channel = -1;
    ChannelElement element;
    while (state() == State::running && !busy_ && !holding() && !writer_.backpressured() &&
           !inputs_.empty()) {
        if (!inputs_.take_next(&channel, &element)) return;
        switch (element.type) {
            case ChannelElement::Type::records:
                process_buffer(channel, std::move(element.records), element.recovered);
                break;
            case ChannelElement::Type::barrier: handle_barrier(channel, element, false); break;
            case ChannelElement::Type::cancellation_marker:
                inputs_.barriers().cancellation_marker_received(channel, element.checkpoint_id);
                break;
            case ChannelElement::Type::watermark:
            case ChannelElement::Type::watermark_status:
                handle_watermark_element(channel, element);
                break;
            case ChannelElement::Type::end_of_data:
                if (inputs_.end_of_data(channel)) reach_end_of_data();
                break;
            case ChannelElement::Type::end_of_partition:
                if (inputs_.end_of_partition(channel)) report_finished_if_done(last_completed_);
                break;
        }
    }
}

// The barrier goes to the input side's handler, which may snapshot at once: the checkpoint side
// notes its type and, for the first barrier of a checkpoint, the time (before the handler).
void Task::handle_barrier(int32_t channel, const ChannelElement& element, bool overtook_queue) {
    BarrierHandler& barriers = inputs_.barriers();
    const bool was_idle = barriers.awaiting_first_barrier();
    if (was_idle) checkpoint_.first_barrier_arrived();
    checkpoint_.note_checkpoint(element.checkpoint_id, element.snapshot,
                                element.checkpoint_started);
    inputs_.hand_over_barrier(channel, element, overtook_queue);
    if (was_idle && barriers.pending_checkpoint() != 0) {
        announce(points::kAlignmentStarted, element.checkpoint_id);
    }
    inputs_.deliver_queued_barriers();
}

void Task::process_buffer(int32_t channel, RecordBatch records, bool recovered) {
    chain_.process(inputs_.edge(channel), records);
    if (!chain_.sink()) schedule_processing_timer();
    busy_ = true;
    engine_.schedule_for_task(
        node_, key_, record_cost() * static_cast<int64_t>(records.size()), kTaskProcessed,
        [channel, recovered](Task& task) { task.finish_processing(channel, !recovered); });
    engine_.record_batches().give_back(std::move(records));
}

void Task::finish_processing(int32_t channel, bool return_credit) {
    busy_ = false;
    if (return_credit) inputs_.return_credit(channel);  // a recovered buffer took no credit
    pump();
}

void Task::poll_source() {
    // After a stop-with-savepoint's barrier nothing more is read (unless the negative control
    // runtime.sources_read_after_stop reads on).
    if (state() != State::running || end_of_data_ ||
        (checkpoint_.stopped() && !runtime_.sources_read_after_stop))
        return;
    if (busy_ || writer_.backpressured()) {
        after(runtime_.source_poll_interval, [this] { poll_source(); });
        return;
    }
    SourceReader& source = *chain_.source();
    RecordBatch batch = engine_.record_batches().take();
    const auto error = source.poll(static_cast<size_t>(runtime_.buffer_records), &batch);
    if (error) {
        fail("source cannot read: " + *error);
        return;
    }
    engine_.stats().records_read += static_cast<int64_t>(batch.size());
    if (!batch.empty()) {
        engine_.observer().source_read(engine_.world().now(), key_.attempt, vertex_.id,
                                       key_.subtask, static_cast<int64_t>(batch.size()));
    }
    for (const Record& record : batch) writer_.emit(record);
    const size_t records_polled = batch.size();
    engine_.record_batches().give_back(std::move(batch));
    send_source_watermark();
    if (source.reached_end()) {
        reach_end_of_data();
        return;
    }
    const sim::Duration cost = record_cost() * static_cast<int64_t>(records_polled);
    busy_ = records_polled != 0;
    engine_.schedule_for_task(node_, key_, std::max(cost, runtime_.source_poll_interval),
                              kSourcePoll, [](Task& task) {
                                  task.busy_ = false;
                                  task.poll_source();
                              });
}

void Task::reach_end_of_data() {
    end_of_data_ = true;
    busy_ = false;
    announce(points::kTaskEndOfData, checkpoint_.last_barrier_forwarded());
    SourceReader* source = chain_.source();
    if (source != nullptr &&
        source->watermark(engine_.world().now())) {  // a bounded source's input is complete
        if (source_idle_) {  // active again, so that downstream valves take the final watermark
            source_idle_ = false;
            ChannelElement status{ChannelElement::Type::watermark_status, 0, {}};
            writer_.broadcast(std::move(status));
        }
        ChannelElement element{ChannelElement::Type::watermark, 0, {}};
        element.watermark = kMaxWatermark;
        writer_.broadcast(std::move(element));
        engine_.observer().watermark_advanced(engine_.world().now(), key_.attempt, vertex_.id,
                                              key_.subtask, kMaxWatermark);
    }
    writer_.broadcast(ChannelElement{ChannelElement::Type::end_of_data, 0, {}});
    if (runtime_.tasks_finish_before_final_checkpoint) report_finished_if_done(last_completed_);
}

// ---- checkpoints: what the trigger, the notifications and the barrier handler ask ---------------

void Task::trigger_checkpoint(int64_t checkpoint_id, SnapshotType snapshot_type,
                              sim::Time started) {
    if (state() == State::finished)
        report_finished();  // the coordinator has not heard it (a lost report)
    if (!checkpoint_.trigger(checkpoint_id, snapshot_type, started) || !snapshot_type.terminates())
        return;
    // Stop-with-savepoint: read nothing more; with drain, end of input follows the barrier.
    SourceOffsets position;
    chain_.source()->add_offsets(&position);
    engine_.observer().source_stopped_for_savepoint(engine_.world().now(), key_.attempt, vertex_.id,
                                                    key_.subtask, checkpoint_id, position);
    announce(points::kSourceStoppedForSavepoint, checkpoint_id);
    EOSIM_INVARIANT(engine_.world().nodes().is_up(node_), kLiveAfterPoint);
    if (snapshot_type.drain && !end_of_data_) reach_end_of_data();
}

void Task::checkpoint_complete(int64_t checkpoint_id) {
    if (state() != State::running) return;
    last_completed_ = std::max(last_completed_, checkpoint_id);
    chain_.checkpoint_complete(checkpoint_id);
    report_finished_if_done(checkpoint_id);
}

void Task::checkpoint_aborted(int64_t checkpoint_id) {
    chain_.checkpoint_aborted(checkpoint_id);
    if (!inputs_.empty()) {
        inputs_.barriers().checkpoint_aborted(checkpoint_id);
    } else {
        checkpoint_.aborted(checkpoint_id);  // a source whose trigger has not come yet
    }
    pump();
}

void Task::report_finished_if_done(int64_t completed_checkpoint) {
    const bool early =
        runtime_.tasks_finish_before_final_checkpoint && end_of_data_;  // a negative control
    if (!early && !checkpoint_.done_after(completed_checkpoint)) return;
    if (!early && chain_.sink() && !chain_.sink()->settled()) {
        // A commit is being retried (the broker refused it for now): look again once it may have
        // gone through. After a stop-with-savepoint's final savepoint no later checkpoint would
        // bring this task here again, and the job would never finish.
        if (!finish_recheck_scheduled_) {
            finish_recheck_scheduled_ = true;
            engine_.schedule_for_task(node_, key_, runtime_.commit_retry_delay, kTaskTimer,
                                      [completed_checkpoint](Task& task) {
                                          task.finish_recheck_scheduled_ = false;
                                          if (task.state() == State::running)
                                              task.report_finished_if_done(completed_checkpoint);
                                      });
        }
        return;
    }
    if (!inputs_.empty() && !inputs_.all_partitions_ended())
        return;  // the last end of partition brings it here again
    // As Flink's StreamTask: after end of data, finished only once every consumer processed all
    // of it (the last acknowledgement brings it here again).
    if (end_of_data_ && !writer_.all_data_processed()) return;
    finish();
}

void Task::finish() {
    writer_.broadcast(ChannelElement{ChannelElement::Type::end_of_partition, 0, {}});
    lifecycle_.transition_to(State::finished);
    announce(points::kTaskFinished, last_completed_);
    EOSIM_INVARIANT(engine_.world().nodes().is_up(node_), kLiveAfterPoint);
    report_finished();
}

void Task::report_finished() {
    const TaskKey key = key_;
    engine_.send_to_job_manager(node_, messages::kTaskReport, key_digest(key),
                                [key](JobManager& jm) { jm.task_finished(key); });
}

void Task::finish_on_restore() {
    end_of_data_ = true;
    if (SourceReader* source = chain_.source()) source->skip_to_end();
    if (engine_.job().uses_event_time() &&
        !writer_.empty()) {  // downstream valves take its channels as complete
        ChannelElement element{ChannelElement::Type::watermark, 0, {}};
        element.watermark = kMaxWatermark;
        writer_.broadcast(std::move(element));
    }
    writer_.broadcast(ChannelElement{ChannelElement::Type::end_of_data, 0, {}});
    finish();
}

sim::Time Task::now() const { return engine_.world().now(); }
void Task::block_channel(int32_t channel) { inputs_.block(channel); }
void Task::unblock_all_channels() { inputs_.unblock_all(); }
void Task::trigger_snapshot(int64_t checkpoint_id) {
    if (holding()) {
        held_.push_back([this, checkpoint_id] { trigger_snapshot(checkpoint_id); });
    } else if (!wait_for_sink(checkpoint_id,
                              [this, checkpoint_id] { checkpoint_.take_aligned(checkpoint_id); })) {
        checkpoint_.take_aligned(checkpoint_id);
    }
}

void Task::abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason,
                            const std::string& detail) {
    if (holding()) {
        held_.push_back([this, checkpoint_id, reason, detail] {
            abort_checkpoint(checkpoint_id, reason, detail);
        });
        return;
    }
    checkpoint_.decline(checkpoint_id, reason, detail);
}

void Task::start_unaligned_snapshot(int64_t checkpoint_id, const std::vector<bool>& barrier_in) {
    if (holding()) {
        held_.push_back([this, checkpoint_id, barrier_in] {
            start_unaligned_snapshot(checkpoint_id, barrier_in);
        });
    } else if (!wait_for_sink(checkpoint_id, [this, checkpoint_id, barrier_in] {
                   checkpoint_.start_unaligned(checkpoint_id, barrier_in);
               })) {
        checkpoint_.start_unaligned(checkpoint_id, barrier_in);
    }
}

void Task::channel_barrier_received(int32_t channel) {
    if (holding()) {
        held_.push_back([this, channel] { channel_barrier_received(channel); });
        return;
    }
    checkpoint_.channel_barrier_received(channel);
}

void Task::finish_unaligned_snapshot(int64_t checkpoint_id) {
    if (holding()) {
        held_.push_back([this, checkpoint_id] { finish_unaligned_snapshot(checkpoint_id); });
        return;
    }
    checkpoint_.finish_unaligned(checkpoint_id);
}

void Task::discard_unaligned_snapshot(int64_t checkpoint_id) {
    if (holding()) {
        held_.push_back([this, checkpoint_id] { discard_unaligned_snapshot(checkpoint_id); });
        return;
    }
    checkpoint_.discard_unaligned(checkpoint_id);
}

// ---- a sink's flush before its snapshot (Sink::prepare_pre_commit) ------------------------------

bool Task::wait_for_sink(int64_t checkpoint_id, std::function<void()> snapshot) {
    Sink* sink = chain_.sink();
    if (sink == nullptr || sink->prepare_pre_commit(checkpoint_id) || state() != State::running)
        return false;
    flushing_for_ = checkpoint_id;
    held_.push_back(std::move(snapshot));
    poll_sink_while_idle();
    return true;
}

void Task::answered() { ask_sink_again(); }

void Task::ask_sink_again() {
    if (!holding() || closed_ || state() != State::running) return;
    if (!chain_.sink()->prepare_pre_commit(flushing_for_)) {
        poll_sink_while_idle();
        return;
    }
    flushing_for_ = 0;
    std::vector<std::function<void()>> held = std::move(held_);
    held_.clear();
    // The snapshot first, then what the handler asked meanwhile (which may start a new wait: then
    // the rest is held again behind it, in order).
    for (auto& work : held) {
        if (holding()) {
            held_.push_back(std::move(work));
        } else if (state() == State::running) {
            work();
        }
    }
    pump();
}

// A sink that waits with nothing in flight (for its own timer, a back-off) is asked every 10 ms.
void Task::poll_sink_while_idle() {
    if (calls_in_flight() != 0) return;
    after(sim::Duration::millis(10), [this] { ask_sink_again(); });
}

void Task::start_alignment_timer(int64_t checkpoint_id, sim::Duration delay) {
    engine_.schedule_for_task(node_, key_, delay, kAlignmentTimer, [checkpoint_id](Task& task) {
        if (task.state() != State::running) return;
        task.inputs_.barriers().alignment_timed_out(checkpoint_id);
        task.take_announced_barrier();
        task.inputs_.deliver_queued_barriers();
        task.pump();
    });
}

// The timeout passed before any barrier of the pending checkpoint was taken, now unaligned: the
// first queued one is taken at once, ahead of the buffers before it (Flink's convertToPriorityEvent
// of an announced barrier), which become input channel state; what came after it stays queued.
void Task::take_announced_barrier() {
    BarrierHandler& barriers = inputs_.barriers();
    const int64_t pending = barriers.pending_checkpoint();
    if (holding() || pending == 0 || !barriers.awaiting_first_barrier() ||
        !barriers.collecting_unaligned(pending))
        return;
    std::deque<ChannelElement> after;
    int32_t channel = -1;
    ChannelElement barrier;
    if (!inputs_.split_at_barrier(pending, &channel, &barrier, &after)) return;
    handle_barrier(channel, barrier, true);
    inputs_.requeue(channel, std::move(after));
}

}  // namespace eosim::engine
