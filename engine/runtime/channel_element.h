#pragma once
// What travels on a data channel between two tasks (engine/runtime/task.h), and the digest their
// messages carry in the trace.
#include <cstdint>

#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/record.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace eosim::engine {

// The small members come last, together: an element in flight is captured by the delivery event,
// which must fit sim::Callback's inline storage (RecordWriter::send_ready).
struct ChannelElement {
    // end_of_partition: the producer finished (FLIP-147) and sends nothing more on this channel.
    enum class Type : uint8_t {
        records,
        barrier,
        end_of_data,
        cancellation_marker,
        watermark,
        watermark_status,
        end_of_partition
    };
    Type type = Type::records;
    int64_t checkpoint_id = 0;
    RecordBatch records;
    int64_t watermark = 0;           // watermark: its value
    sim::Time checkpoint_started{};  // barrier: when the coordinator triggered its checkpoint
                                     // (CheckpointBarrier::started)
    bool unaligned_barrier =
        false;                // barrier: sent as a priority event (CheckpointBarrier::unaligned)
    SnapshotType snapshot{};  // barrier: a checkpoint or a savepoint (Flink's CheckpointOptions)
    bool recovered = false;   // records: replayed from channel state (took no credit)
    bool idle = false;        // watermark_status: idle (true) or active again (false)
};

// The digest of a task's messages (data channels, reports, acknowledgements) in the trace.
inline uint64_t key_digest(const TaskKey& key) {
    return sim::digest_mix(
        sim::digest_mix(static_cast<uint64_t>(key.attempt), static_cast<uint64_t>(key.vertex)),
        static_cast<uint64_t>(key.subtask));
}

}  // namespace eosim::engine
