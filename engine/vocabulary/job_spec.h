#pragma once
// What a job is: its graph, parallelism, checkpointing and restart configuration. Plain data,
// filled by the scenario loader and read by the engine and the reference model.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary/state_backend_options.h"
#include "sim/time.h"

namespace eosim::engine {

class SinkConfig;

// A sink is any registered sink kind (engine/connectors/sink_registry.h), named by
// VertexSpec::sink_kind. New kinds go at the end (the value may reach a hash).
enum class OperatorKind : uint8_t {
    kafka_source,
    map,
    filter,
    union_all,
    keyed_count,
    keyed_sum,
    sink,
    cdc_source,
    window,
    join,
    dedup
};
enum class EdgeKind : uint8_t { forward, hash, rebalance };
enum class DeliveryGuarantee : uint8_t { none, at_least_once, exactly_once };
enum class CheckpointingMode : uint8_t { exactly_once, at_least_once };

// key' = (key * key_multiplier + key_offset) mod key_modulus (when key_modulus > 0);
// value' = value * value_multiplier + value_offset.
struct MapSpec {
    int64_t key_multiplier = 1;
    int64_t key_offset = 0;
    int64_t key_modulus = 0;
    int64_t value_multiplier = 1;
    int64_t value_offset = 0;
};

// Keeps a record when value mod modulus != drop_remainder.
struct FilterSpec {
    int64_t modulus = 2;
    int64_t drop_remainder = 0;
};

// A keyed window (engine/runtime/window_operator.h), Flink's keyBy(..).window(..).aggregate(..):
// event-time tumbling windows of `size`, sliding windows of `size` every `slide`, or count windows
// of `size_records` records per key (countWindow(n): fires and purges every n-th record of a key).
// Time windows accept records up to `allowed_lateness` behind the watermark; later ones go to the
// late side output (an input edge with "output": "late" reads it).
struct WindowSpec {
    enum class Kind : uint8_t { tumbling, sliding, count };
    enum class Aggregate : uint8_t { count, sum };
    Kind kind = Kind::tumbling;
    sim::Duration size = sim::Duration::seconds(1);  // tumbling, sliding (event time: milliseconds)
    sim::Duration slide = sim::Duration::seconds(1);  // sliding
    int64_t size_records = 0;                         // count
    Aggregate aggregate = Aggregate::count;
    sim::Duration allowed_lateness = sim::Duration::zero();  // tumbling, sliding
    bool is_time_window() const { return kind != Kind::count; }
};
const char* to_string(WindowSpec::Kind kind);
const char* to_string(WindowSpec::Aggregate aggregate);
// A dedup keeps the first record per key within `bound` of event time
// (engine/runtime/dedup_operator.h).
struct DedupSpec {
    sim::Duration bound = sim::Duration::seconds(1);
};

struct InputEdge {
    std::string from;  // vertex id
    EdgeKind kind = EdgeKind::forward;
    // Which output of `from` the edge reads: empty for the main output, "late" for the late-data
    // side output (only a vertex kind with has_late_output() has one).
    std::string output = {};
    bool reads_late_output() const { return output == kLateOutput; }
    static constexpr const char* kLateOutput = "late";
};

// A source's watermark strategy: bounded out-of-orderness (Flink's
// WatermarkStrategy.forBoundedOutOfOrderness), per split W = max timestamp seen - bound - 1, with
// an optional idleness (WatermarksWithIdleness): a split with no record for `idle_timeout` of
// virtual time is left out of the minimum; all idle marks the source's output idle.
struct WatermarkSpec {
    sim::Duration out_of_orderness = sim::Duration::zero();
    std::optional<sim::Duration> idle_timeout;
};

struct VertexSpec {
    std::string id;
    OperatorKind kind = OperatorKind::map;
    int32_t parallelism = 1;
    std::vector<InputEdge> inputs;
    std::string topic;  // kafka_source: topic read
    MapSpec map;
    FilterSpec filter;
    WindowSpec window;                       // window
    DedupSpec dedup;                         // dedup only
    std::string sink_kind;                   // sink: the registered kind's name
    std::shared_ptr<const SinkConfig> sink;  // sink: its configuration, read from "options"
    std::optional<sim::Duration>
        record_cost;  // overrides runtime.record_cost (a slow operator or sink)
    // cdc_source: the table read; its primary-key space cut into chunks of `chunk_size` keys over
    // [0, chunk_key_end) (the first and last chunks unbounded); `fetch_size` rows per snapshot
    // read.
    std::string table;
    int64_t chunk_size = 16;
    int64_t chunk_key_end = 0;
    int64_t fetch_size = 8;
    // kafka_source: the watermark strategy; none: the source sends no watermark at all.
    std::optional<WatermarkSpec> watermarks;
    // The input is a changelog (a CDC source upstream): keyed operators retract.
    bool changelog_input = false;
    // The operator's stable id across job versions (Flink's uid): a savepoint's state is matched to
    // the operators of the job restoring it by uid. Empty: the vertex id is the uid.
    std::string uid;
    const std::string& uid_or_id() const { return uid.empty() ? id : uid; }
    // The slot sharing group (engine/runtime/slot_placement.h; Flink's slotSharingGroup(name)):
    // empty is Flink's "default", the group of every vertex that names none.
    std::string slot_sharing_group;
    const std::string& sharing_group() const;
    static constexpr const char* kDefaultSlotSharingGroup = "default";
};

struct CheckpointConfig {
    bool enabled = true;
    CheckpointingMode mode = CheckpointingMode::exactly_once;
    sim::Duration interval = sim::Duration::millis(500);
    sim::Duration timeout = sim::Duration::seconds(10);
    sim::Duration min_pause = sim::Duration::zero();
    int32_t max_concurrent = 1;
    // Consecutive failed checkpoints before the job fails over; only the failure reasons Flink
    // counts (engine/checkpoint_failure_reason.h) count.
    int32_t tolerable_failures = 0;
    int32_t retained = 3;  // completed checkpoints kept in storage
    // exactly_once only. Unaligned: a task snapshots on the first barrier, the barrier overtakes
    // the queued output buffers, and the in-flight data it overtook is persisted as channel state.
    bool unaligned = false;
    // With `unaligned`: checkpoints start aligned and a task switches to unaligned once this long
    // has passed since the checkpoint started (zero: unaligned from the start). Flink's
    // execution.checkpointing.aligned-checkpoint-timeout.
    sim::Duration aligned_checkpoint_timeout = sim::Duration::zero();
    // A negative control, never in a passing scenario: retention treats an intermediate savepoint
    // as a checkpoint and discards its files once `retained` newer checkpoints completed, and
    // deletes a stop-with-savepoint's final savepoint's files when it leaves the retained window
    // (after a failover restored it and a newer one completed) (Flink >= 1.15 never does:
    // savepoints are the user's).
    bool retention_discards_savepoints = false;
    // A negative control, never in a passing scenario: the aligned-checkpoint timeout does not
    // reach a barrier still queued in a channel (an output queue waiting for credit, or an input
    // queue behind unprocessed buffers): such a barrier waits for the buffers before it, as before
    // Flink 1.14's timeoutable aligned barriers.
    bool queued_barriers_wait = false;

    // True when a checkpoint may hold channel state (the task state format carries it).
    bool channel_state_possible() const {
        return mode == CheckpointingMode::exactly_once && unaligned;
    }
};

struct RestartStrategy {
    int32_t max_attempts = 20;
    sim::Duration delay = sim::Duration::seconds(1);
};

struct RuntimeConfig {
    sim::Duration record_cost = sim::Duration::micros(20);     // virtual time to process one record
    sim::Duration buffer_timeout = sim::Duration::millis(50);  // output flushed at least this often
    int32_t buffer_records = 256;                              // records per network buffer
    int32_t channel_credits = 4;  // buffers a consumer grants per channel
    sim::Duration source_poll_interval = sim::Duration::millis(25);
    sim::Duration heartbeat_interval = sim::Duration::seconds(1);
    sim::Duration heartbeat_timeout = sim::Duration::seconds(4);
    sim::Duration deploy_timeout = sim::Duration::seconds(10);
    sim::Duration commit_retry_delay = sim::Duration::millis(200);
    // A negative control, never in a passing scenario: a source keeps reading and emitting records
    // after the barrier of a stop-with-savepoint (Flink suspends the sources with that barrier).
    bool sources_read_after_stop = false;
    // A negative control (FLIP-147): a source subtask that the restored checkpoint records as
    // finished is deployed running, with no state: it reads its splits again from the start.
    bool finished_sources_read_again = false;
    // A negative control, never in a passing scenario: a restored sink subtask gets only the state
    // of its own subtask index, so a scale-in drops the removed subtasks' sink state -- a two-phase
    // commit sink's pre-committed transactions among it (what eosim did before; Flink
    // redistributes it, see restoring_subtask in engine/connectors/sink.h).
    bool sinks_drop_removed_state = false;
    // A negative control (FLIP-147's contract broken): a task finishes at its end of data, once its
    // output is processed, without waiting for a final checkpoint (or its sink to settle).
    bool tasks_finish_before_final_checkpoint = false;
    // A negative control: a task restored from several subtasks' states (a rescale) takes the
    // highest of their watermarks instead of the lowest, so records of a slower split come late.
    bool restored_watermark_max = false;
};

// What a JobManager restarted without HA does (Flink's high-availability.type NONE keeps job graphs
// and completed checkpoints in the JobManager's memory, so a restart finds neither):
// - application: application mode (the common deployment) runs the user's main again, which
//   submits the job as it was: from its initial savepoint (execution.savepoint.path, the
//   deployment's own `from`) or from scratch. An exactly-once sink gets every record again.
// - session: a standalone session cluster comes back without the job: it is lost (FAILED here).
// - storage_listing: an operator's script lists checkpoint storage and resubmits the job from the
//   newest _metadata found (unsafe: a dead JobManager's late metadata write can be restored).
enum class NoHaRecovery : uint8_t { application, session, storage_listing };
const char* to_string(NoHaRecovery recovery);

struct JobSpec {
    std::string name = "job";
    std::vector<VertexSpec> vertices;  // in topological order
    int32_t max_parallelism = 128;
    // The keyed state backend of every keyed operator. Savepoints are in the canonical form every
    // backend writes and reads, so a deployment may change it.
    StateBackendOptions state_backend;
    CheckpointConfig checkpointing;
    RestartStrategy restart;
    RuntimeConfig runtime;

    const VertexSpec* find(const std::string& id) const;
    int32_t vertex_index(const std::string& id) const;  // -1 when absent
    // A source has a watermark strategy: tasks then carry watermarks (and checkpoint them).
    bool uses_event_time() const;
    // Whether a record's timestamp can reach a result: event time, or an operator that reads
    // timestamps (window, join, dedup). Unaligned channel state keeps timestamps only then, so the
    // state bytes (and trace hashes) of other jobs stay as they were.
    bool reads_timestamps() const;
};

const char* to_string(OperatorKind kind);
bool is_source_kind(OperatorKind kind);  // reads an outside system: kafka_source, cdc_source
bool is_keyed(OperatorKind kind);  // keeps keyed state: keyed_count, keyed_sum, window, join, dedup
bool has_operator(const JobSpec& job, OperatorKind kind);  // some vertex of the job is of that kind
bool has_sink_kind(const JobSpec& job,
                   const std::string& sink_kind);  // some sink vertex is of that registered kind
// The kind has a late-data side output that an edge may read ("output": "late"): event-time
// windows.
bool has_late_output(OperatorKind kind);
const char* to_string(EdgeKind kind);
const char* to_string(DeliveryGuarantee guarantee);
const char* to_string(CheckpointingMode mode);

}  // namespace eosim::engine
