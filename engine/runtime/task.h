#pragma once
// A running subtask: its input channels (with the barrier handler), its operator, source reader
// or sink, and its output channels with credit-based flow control.
//
// Data path: a consumer opens a connection to each producer and grants it `channel_credits`
// buffers. A producer sends a buffer only against a credit; the consumer returns the credit when
// it has processed the buffer. When a producer's output queue grows past its credits it stops
// reading its own inputs: backpressure travels upstream to the sources, which stop polling.
// Barriers, cancellation markers and end-of-data markers travel in-band, in order, without credit.
//
// Unaligned checkpoints (checkpointing.unaligned): a barrier is a priority event. The sender puts
// it ahead of its queued output buffers (which it persists as output channel state); the receiver
// handles it on arrival, not when it reaches the head of the channel, snapshots at the first one
// and persists as input channel state what was queued and what arrives on each channel until that
// channel's barrier (engine/checkpointing/channel_state_writer.h). The state goes to storage when
// the last barrier arrived. A restored task puts its recovered input buffers at the head of its
// input channels and its recovered output buffers at the head of its output channels: they are
// processed and sent before any new data, in their order, and (input side) return no credit,
// having never taken one. Output buffers still need credits: flow control holds during replay.
//
// Processing a buffer costs record_cost per record of virtual time, during which the task does
// nothing else. Outputs are flushed when a buffer fills, before a barrier, and at least every
// buffer_timeout.
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/checkpointing/barrier_handler.h"
#include "engine/checkpointing/channel_state_writer.h"
#include "engine/checkpointing/snapshot_type.h"
#include "engine/runtime/deployment.h"
#include "engine/runtime/job_topology.h"
#include "engine/connectors/source_reader.h"
#include "engine/runtime/operators.h"
#include "engine/runtime/record.h"
#include "engine/runtime/record_batch_pool.h"
#include "engine/runtime/watermark_valve.h"
#include "engine/connectors/sink.h"
#include "sim/network.h"
#include "sim/storage.h"

namespace eosim::engine {

class Engine;

// What travels on a data channel. The small members come last, together: an element in flight is
// captured by the delivery event, which must fit sim::Callback's inline storage (Task::send_ready).
struct ChannelElement {
    enum class Type : uint8_t { records, barrier, end_of_data, cancellation_marker, watermark, watermark_status };
    Type type = Type::records;
    int64_t checkpoint_id = 0;
    RecordBatch records;
    int64_t watermark = 0;           // watermark: its value
    bool unaligned_barrier = false;  // barrier: sent as a priority event (CheckpointBarrier::unaligned)
    SnapshotType snapshot{};         // barrier: a checkpoint or a savepoint (Flink's CheckpointOptions)
    bool recovered = false;          // records: replayed from channel state (took no credit)
    bool idle = false;               // watermark_status: idle (true) or active again (false)
};

class Task final : public BarrierHandlerController, public SinkContext {
public:
    Task(Engine& engine, sim::NodeId node, TaskKey key, const Deployment& deployment);
    ~Task() override;

    const TaskKey& key() const { return key_; }
    // Failed and waiting to be cancelled; `failure()` says why (its TaskManager reports it again
    // with every heartbeat, in case the first report was lost).
    bool failed() const { return state_ == State::failed; }
    // Restored and reported ready, waiting for the JobManager's start.
    bool waiting_to_start() const { return state_ == State::ready; }
    const std::string& failure() const { return failure_; }
    const VertexSpec& vertex() const { return vertex_; }

    // Lifecycle, driven by the TaskManager.
    void restore();  // reads the restored state (if any), then reports ready to the JobManager
    void start();
    void cancel();   // about to be dropped, its process alive (not a crash): the sink closes
    // Data channels.
    void channel_opened(int32_t output_channel, sim::ConnectionId connection, int32_t credits);
    void credit_returned(int32_t output_channel);
    void element_arrived(int32_t input_channel, ChannelElement element);
    void connection_lost();
    // Checkpoints.
    void trigger_checkpoint(int64_t checkpoint_id, SnapshotType snapshot = {});  // sources only
    void checkpoint_complete(int64_t checkpoint_id);
    void checkpoint_aborted(int64_t checkpoint_id);

    // BarrierHandlerController
    void block_channel(int32_t channel) override;
    void unblock_all_channels() override;
    void trigger_snapshot(int64_t checkpoint_id) override;
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason, const std::string& detail) override;
    void start_unaligned_snapshot(int64_t checkpoint_id, const std::vector<bool>& barrier_in) override;
    void channel_barrier_received(int32_t channel) override;
    void finish_unaligned_snapshot(int64_t checkpoint_id) override;
    void discard_unaligned_snapshot(int64_t checkpoint_id) override;
    void start_alignment_timer(int64_t checkpoint_id, sim::Duration delay) override;

    // SinkContext
    sim::World& world() override;
    sim::NodeId node() const override { return node_; }
    int32_t subtask() const override { return key_.subtask; }
    int64_t attempt() const override { return key_.attempt; }
    RunObserver& observer() override;
    void after(sim::Duration delay, std::function<void()> fn) override;
    void fail(const std::string& reason) override;

private:
    void announce_window_firings();  // window.fired for a window operator's firings
    enum class State : uint8_t { created, restoring, ready, running, failed };
    struct InputChannel {
        ChannelEnd producer;
        sim::NodeId producer_node;
        sim::ConnectionId connection = UINT32_MAX;
        std::deque<ChannelElement> queue;
        bool blocked = false;
        bool end_of_data = false;
        int32_t edge = 0;  // the vertex's input edge this channel serves (Operator::process's `input`)
    };
    struct OutputChannel {
        ChannelEnd consumer;
        sim::NodeId consumer_node;
        sim::ConnectionId connection = UINT32_MAX;
        int32_t credits = 0;
        int32_t queued_buffers = 0;
        std::deque<ChannelElement> queue;
        RecordBatch open_buffer;

        // Queues the open buffer for sending and opens the next one (a spare from `pool`), with room
        // for at least as many records as the last.
        void seal_buffer(RecordBatchPool& pool) {
            const size_t size = open_buffer.size();
            queue.push_back(ChannelElement{ChannelElement::Type::records, 0, std::move(open_buffer)});
            open_buffer = pool.take();
            open_buffer.reserve(size);
            ++queued_buffers;
        }
    };

    bool is_source() const { return is_source_kind(vertex_.kind); }
    bool is_sink() const { return sink_ != nullptr; }
    sim::Duration record_cost() const { return vertex_.record_cost.value_or(runtime_.record_cost); }
    void restore_read(size_t index, sim::StorageStatus status, std::string value);
    // Incremental keyed state: downloads the shared files the restored private blobs name that this
    // subtask needs, then applies the restore.
    void fetch_shared_state();
    void shared_state_read(const std::string& key, sim::StorageStatus status, std::string value);
    void apply_restored_state();
    // Incremental keyed state: the snapshot's new shared files go to storage first, then its private blob.
    void shared_file_uploaded(int64_t checkpoint_id, const std::string& key, bool ok);
    void upload_private_state(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets, bool unaligned,
                              const SharedStateReport& shared);
    void queue_recovered_channel_state();
    void open_input_channels();
    // The processing loop.
    void pump();
    void process_buffer(int32_t channel, RecordBatch records, bool recovered);
    void finish_processing(int32_t channel, bool return_credit);
    void handle_barrier(int32_t channel, const ChannelElement& element, bool overtook_queue);
    void deliver_queued_barriers();
    void poll_source();
    void reach_end_of_data();
    // Event time (task_event_time.cpp).
    void send_source_watermark();  // a source: its splits' watermark and idleness, when they changed
    void handle_watermark_element(int32_t channel, const ChannelElement& element);
    void forward_watermark(const WatermarkValve::Output& change);
    void schedule_processing_timer();
    bool carries_watermark() const { return valve_.has_value() && !sink_; }
    // A checkpointed task state with its input watermark in front ("WMK1" | watermark | state).
    std::string with_watermark(int64_t checkpoint_id, std::string blob);
    void take_restored_watermark(std::string& blob);
    void restore_watermark();
    // Output side. emit: the main output; emit_late: the late-data side output (edges reading "late").
    void emit(const Record& record);
    void emit_late(const Record& record);
    int32_t channel_for(size_t group, const Record& record);  // the group's channel for the record
    void append_to_channel(int32_t channel, const Record& record);
    void schedule_flush();
    // What the operator emits to: the main output, and the side output when an edge reads it.
    Emit make_operator_output();
    void flush_outputs();
    void broadcast(ChannelElement element);
    void send_ready(OutputChannel& channel, int32_t index);
    bool backpressured() const;
    // Checkpoints.
    // Captures the operator state and forwards the barrier (aligned: after the queued buffers;
    // unaligned: ahead of them, which become output channel state). False when the sink failed.
    bool snapshot(int64_t checkpoint_id, bool unaligned);
    void send_cancellation_marker(int64_t checkpoint_id);
    void finish_aligned_snapshot(int64_t checkpoint_id);
    static bool barrier_queued(const OutputChannel& out, int64_t checkpoint_id);
    void upload_when_barrier_sent();
    void overtake_queued_barriers(int64_t checkpoint_id);
    void upload_snapshot(int64_t checkpoint_id, std::string blob, const SourceOffsets& offsets, bool unaligned);
    bool channel_state_possible() const;
    void report_finished_if_done(int64_t completed_checkpoint);
    // The snapshot type of checkpoint `id` as its trigger or barrier said (a checkpoint unless noted).
    SnapshotType snapshot_type(int64_t checkpoint_id) const;
    void note_snapshot_type(int64_t checkpoint_id, SnapshotType snapshot);
    void announce_restore(int64_t checkpoint_id);

    Engine& engine_;
    sim::NodeId node_;
    TaskKey key_;
    const VertexSpec& vertex_;
    const RuntimeConfig& runtime_;
    Deployment deployment_;
    State state_ = State::created;
    std::string failure_;
    std::unique_ptr<Operator> operator_;
    Emit operator_output_{[](const Record&) {}};
    std::unique_ptr<SourceReader> source_;
    std::unique_ptr<Sink> sink_;
    std::string restored_sink_state_;
    std::unique_ptr<BarrierHandler> barriers_;
    std::vector<InputChannel> inputs_;
    std::vector<OutputChannel> outputs_;
    std::vector<OutputGroup> output_groups_;
    std::vector<uint32_t> rebalance_next_;  // per output group
    size_t next_input_ = 0;                 // inputs are read round-robin
    bool busy_ = false;
    bool flush_scheduled_ = false;
    bool end_of_data_ = false;
    int64_t end_of_data_checkpoint_ = 0;  // first checkpoint taken after end of data
    std::vector<std::string> restored_blobs_;  // the state read for the restore, in handle order
    int32_t restore_reads_outstanding_ = 0;
    size_t own_blob_ = SIZE_MAX;               // this subtask's blob among restored_blobs_
    std::map<std::string, std::string> restored_shared_;  // incremental keyed state: shared key -> bytes
    int32_t shared_reads_outstanding_ = 0;
    ChannelState recovered_;                   // channel state to replay before any new data
    bool replaying_channel_state_ = false;     // recovered buffers were queued at restore
    int64_t last_barrier_forwarded_ = 0;       // the newest checkpoint this task snapshotted
    int64_t last_cancellation_sent_ = 0;       // the newest checkpoint declined downstream in-band
    std::set<int64_t> aborted_ahead_;          // sources: aborted before their trigger arrived
    std::map<int64_t, SnapshotType> savepoints_seen_;  // savepoint barriers and triggers, by id
    int64_t stop_savepoint_ = 0;  // the final savepoint of a stop-with-savepoint this task snapshotted
    // The snapshot being taken: its operator state (kept until an unaligned one has its channel state).
    ChannelStateWriter channel_state_;
    std::string snapshot_operator_state_;
    // Incremental keyed state of snapshots not yet uploaded, and of those whose shared files are uploading.
    struct SharedUploads {
        std::vector<SharedStateUpload> files;
        SharedStateReport report;
        int32_t outstanding = 0;
        bool started = false;  // its uploads are under way
        bool failed = false;
        std::vector<std::string> landed;  // uploaded files (deleted again if the snapshot fails)
        std::string blob;
        SourceOffsets offsets;
        bool unaligned = false;
    };
    std::map<int64_t, SharedUploads> shared_uploads_;
    SourceOffsets snapshot_offsets_;
    int32_t overtaking_channel_ = -1;
    // Checkpoint statistics of the snapshot in progress.
    sim::Time first_barrier_at_;
    sim::Time last_barrier_at_;
    size_t operator_state_size_ = 0;
    // Aligned-checkpoint timeout: an aligned snapshot waiting for its barrier to leave the outputs.
    ChannelStateWriter barrier_send_;
    std::string barrier_send_state_;
    SourceOffsets barrier_send_offsets_;  // the channel whose priority barrier is being handled
    // Event time: only in jobs with a watermark strategy (JobSpec::uses_event_time).
    std::optional<WatermarkValve> valve_;               // tasks with inputs: the input watermark
    int64_t source_watermark_ = kMinWatermark;          // sources: the last watermark sent
    bool source_idle_ = false;                          // sources: the output is idle
    std::map<int64_t, int64_t> snapshot_watermarks_;    // checkpoint id -> input watermark at the snapshot
    std::optional<int64_t> restored_watermark_;         // the minimum over the restored subtasks' states
    std::optional<int64_t> processing_timer_at_;        // the operator's wake-up scheduled (ms)
};

}  // namespace eosim::engine
