#pragma once
// A running subtask. It ties four pieces, each with its own state, after Flink's StreamTask:
//   - the input side (task_inputs.h): input channels, the barrier handler they hand barriers to,
//     the watermark valve;
//   - the output side (record_writer.h): output buffers, credits, partitioning, sending;
//   - the checkpoint work (subtask_checkpoint.h, with its asynchronous part checkpoint_upload.h):
//     snapshots, channel state, acknowledgements (Flink's SubtaskCheckpointCoordinator);
//   - the operator chain (operator_chain.h): the source reader, sink or operator and its state.
// The task itself keeps the lifecycle (restore, start, cancel, failure), the processing loop that
// takes the next input element and passes it to the piece it concerns, the source's polling and the
// end of data, and what the barrier handler asks (BarrierHandlerController), which spans pieces.
//
// Data path: a consumer opens a connection to each producer and grants it `channel_credits`
// buffers. A producer sends a buffer only against a credit; the consumer returns the credit when
// it has processed the buffer. When a producer's output queue grows past its credits it stops
// reading its own inputs: backpressure travels upstream to the sources, which stop polling.
// Barriers, cancellation markers and end-of-data markers travel in-band, in order, without credit.
//
// Finishing (FLIP-147, checkpoints after tasks finish): a task whose input ended (a bounded source
// read its splits' end; any other task: end of data on every input) sends end of data on, takes
// its final checkpoint (the first after it), and once that completed, its sink settled and every
// input partition ended, sends end of partition through every output and finishes: it takes part
// in no later checkpoint and tells the JobManager. A restore from a checkpoint that recorded it
// finished deploys it finished (finish_on_restore).
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
// A sink's flush before its snapshot (Sink::prepare_pre_commit, Flink's prepareSnapshotPreBarrier
// with an AsyncSinkWriter's flush(true)): when the sink is not ready, the snapshot waits; the task
// takes no input (arriving elements are queued, a priority barrier too) and holds every later piece
// of checkpoint work the barrier handler asks for, in order; after each answer delivered to the
// sink (and every 10 ms while none is in flight) it asks again, and once the sink is ready it
// snapshots, runs what it held and takes input again. A synchronous sink is ready at once: nothing
// changes.
//
// Processing a buffer costs record_cost per record of virtual time, during which the task does
// nothing else. Outputs are flushed when a buffer fills, before a barrier, and at least every
// buffer_timeout.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpointing/barrier_handler.h"
#include "engine/checkpointing/channel_state_writer.h"
#include "engine/connectors/sink.h"
#include "engine/runtime/channel_element.h"
#include "engine/runtime/operator_chain.h"
#include "engine/runtime/record_writer.h"
#include "engine/runtime/subtask_checkpoint.h"
#include "engine/runtime/task_inputs.h"
#include "engine/runtime/task_lifecycle.h"
#include "engine/runtime/watermark_valve.h"
#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/storage.h"

namespace eosim::engine {

class Engine;

class Task final : public BarrierHandlerController, public SinkContext {
public:
    Task(Engine& engine, sim::NodeId node, TaskKey key, const Deployment& deployment);
    ~Task() override;

    const TaskKey& key() const { return key_; }
    // Failed and waiting to be cancelled; `failure()` says why (its TaskManager reports it again
    // with every heartbeat, in case the first report was lost).
    bool failed() const { return state() == State::failed; }
    bool running() const { return state() == State::running; }
    // Finished (FLIP-147): end of partition sent through every output; takes part in no checkpoint.
    bool finished() const { return state() == State::finished; }
    // Processing a buffer (or a source's poll) now; its output full (more buffers queued than
    // credits).
    bool busy() const { return busy_; }
    bool backpressured() const { return writer_.backpressured(); }
    // Restored and reported ready, waiting for the JobManager's start.
    bool waiting_to_start() const { return state() == State::ready; }
    const std::string& failure() const { return failure_; }
    const VertexSpec& vertex() const { return vertex_; }
    const RuntimeConfig& runtime() const { return runtime_; }
    Engine& engine() { return engine_; }
    bool end_of_data() const { return end_of_data_; }
    // Every task's state goes with its channel state (unaligned checkpoints are possible).
    bool channel_state_possible() const;
    // The task checkpoints its input watermark (a non-sink task with an input valve).
    bool carries_watermark() const { return inputs_.valve() != nullptr && !chain_.sink(); }

    // The pieces, for one another and for the task's own timers.
    TaskInputs& inputs() { return inputs_; }
    RecordWriter& writer() { return writer_; }
    SubtaskCheckpoint& checkpoint() { return checkpoint_; }
    OperatorChain& chain() { return chain_; }

    // Lifecycle, driven by the TaskManager.
    void restore();  // reads the restored state (if any), then reports ready to the JobManager
    void start();
    void cancel();  // about to be dropped, its process alive (not a crash): the sink closes
    // Data channels.
    void channel_opened(int32_t output_channel, sim::ConnectionId connection, int32_t credits);
    void credit_returned(int32_t output_channel);
    // A consumer processed this task's end of data on `output_channel` (Flink's
    // onSubpartitionAllDataProcessed).
    void data_processed(int32_t output_channel);
    void element_arrived(int32_t input_channel, ChannelElement element);
    void connection_lost();
    // A barrier left an output queue (the record writer says so).
    void barrier_sent();
    // Checkpoints.
    // Sources only; `started`: when the coordinator triggered it.
    void trigger_checkpoint(int64_t checkpoint_id, SnapshotType snapshot, sim::Time started);
    void checkpoint_complete(int64_t checkpoint_id);
    void checkpoint_aborted(int64_t checkpoint_id);
    // The processing loop: takes input elements while the task is free and not backpressured.
    void pump();
    // End of input: the final watermark (bounded event time) and end-of-data go downstream.
    void reach_end_of_data();
    // Event time (task_event_time.cpp): the operator's next processing-time wake-up.
    void schedule_processing_timer();

    // BarrierHandlerController
    sim::Time now() const override;
    void block_channel(int32_t channel) override;
    void unblock_all_channels() override;
    void trigger_snapshot(int64_t checkpoint_id) override;
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason,
                          const std::string& detail) override;
    void start_unaligned_snapshot(int64_t checkpoint_id,
                                  const std::vector<bool>& barrier_in) override;
    void channel_barrier_received(int32_t channel) override;
    void finish_unaligned_snapshot(int64_t checkpoint_id) override;
    void discard_unaligned_snapshot(int64_t checkpoint_id) override;
    void start_alignment_timer(int64_t checkpoint_id, sim::Duration delay) override;

    // SinkContext
    sim::World& world() override;
    sim::NodeId node() const override { return node_; }
    int32_t subtask() const override { return key_.subtask; }
    int32_t parallelism() const override { return vertex_.parallelism; }
    std::string_view vertex_id() const override { return vertex_.id; }
    int64_t attempt() const override { return key_.attempt; }
    RunObserver& observer() override;
    std::optional<std::vector<std::string_view>> declared_points()
        const override;  // a sink vertex's announced_points()
    void after(sim::Duration delay, std::function<void()> fn) override;
    void fail(const std::string& reason) override;

protected:
    void answered() override;

private:
    using State = TaskLifecycle::State;
    State state() const { return lifecycle_.state(); }

    bool is_source() const { return is_source_kind(vertex_.kind); }
    sim::Duration record_cost() const { return vertex_.record_cost.value_or(runtime_.record_cost); }
    // Restore: every blob read, then (incremental keyed state) the shared files they name.
    void restore_read(size_t index, sim::StorageStatus status, std::string value);
    void fetch_shared_state();
    void shared_state_read(const std::string& key, sim::StorageStatus status, std::string value);
    void apply_restored_state();
    void announce_restore(int64_t checkpoint_id);
    void queue_recovered_channel_state();
    // The processing loop's steps.
    void process_buffer(int32_t channel, RecordBatch records, bool recovered);
    void finish_processing(int32_t channel, bool return_credit);
    void handle_barrier(int32_t channel, const ChannelElement& element, bool overtook_queue);
    void take_announced_barrier();  // the alignment timer fired before any barrier was taken
    void poll_source();
    // Finishes the task once its final checkpoint completed (`completed_checkpoint` or earlier),
    // its sink settled and (with inputs) every input partition ended.
    void report_finished_if_done(int64_t completed_checkpoint);
    // End of partition through every output, then the JobManager is told (again after a lost
    // report).
    void finish();
    void report_finished();
    // Restored from a checkpoint that recorded this subtask finished: reads nothing, sends the end
    // of its input on at once and finishes (Flink's task deployed as finished).
    void finish_on_restore();
    // The sink's flush before a snapshot (see the top): true when the snapshot of `checkpoint_id`
    // must wait, `snapshot` then held to run once the sink is ready.
    bool wait_for_sink(int64_t checkpoint_id, std::function<void()> snapshot);
    bool holding() const { return flushing_for_ != 0; }
    void ask_sink_again();
    void poll_sink_while_idle();
    // Event time (task_event_time.cpp).
    void
    send_source_watermark();  // a source: its splits' watermark and idleness, when they changed
    void handle_watermark_element(int32_t channel, const ChannelElement& element);
    void forward_watermark(const WatermarkValve::Output& change);
    void restore_watermark();

    Engine& engine_;
    sim::NodeId node_;
    TaskKey key_;
    const VertexSpec& vertex_;
    const RuntimeConfig& runtime_;
    Deployment deployment_;
    TaskLifecycle lifecycle_;
    std::string failure_;
    // The pieces, in construction order: the chain's operator emits into the writer, the inputs'
    // barrier handler reaches back through this task.
    TaskInputs inputs_;
    RecordWriter writer_;
    OperatorChain chain_;
    SubtaskCheckpoint checkpoint_;
    bool busy_ = false;
    bool finish_recheck_scheduled_ = false;  // report_finished_if_done waits for a retried commit
    bool end_of_data_ = false;
    bool deployed_finished_ = false;  // the restored checkpoint recorded this subtask finished
    int64_t last_completed_ = 0;      // the newest checkpoint this task heard completed
    bool closed_ = false;             // cancelled: its sink closed
    // The sink's flush before a snapshot: the checkpoint waiting for it (0: none), and the
    // checkpoint work held meanwhile, in order (the snapshot first).
    int64_t flushing_for_ = 0;
    std::vector<std::function<void()>> held_;
    // Restore.
    std::vector<std::string> restored_blobs_;  // the state read for the restore, in handle order
    std::vector<int32_t> restored_subtasks_;   // the subtask (of the checkpoint's job) of each blob
    int32_t restore_reads_outstanding_ = 0;
    size_t own_blob_ = SIZE_MAX;  // this subtask's blob among restored_blobs_
    std::map<std::string, std::string>
        restored_shared_;  // incremental keyed state: shared key -> bytes
    int32_t shared_reads_outstanding_ = 0;
    ChannelState recovered_;                     // channel state to replay before any new data
    bool replaying_channel_state_ = false;       // recovered buffers were queued at restore
    std::optional<int64_t> restored_watermark_;  // the minimum over the restored subtasks' states
    // Event time: only in jobs with a watermark strategy (JobSpec::uses_event_time).
    int64_t source_watermark_ = kMinWatermark;    // sources: the last watermark sent
    bool source_idle_ = false;                    // sources: the output is idle
    std::optional<int64_t> processing_timer_at_;  // the operator's wake-up scheduled (ms)
};

}  // namespace eosim::engine
