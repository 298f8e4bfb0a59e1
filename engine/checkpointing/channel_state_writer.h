#pragma once
// The channel state of one task's unaligned checkpoint (Flink's ChannelStateWriter): the output
// buffers the barrier overtook, and per input channel the buffers that were queued when the
// snapshot was taken or arrived afterwards, until that channel's barrier. Buffers keep their
// order and their boundaries, so a restore replays them as they were.
//
// The task's checkpoint work decides what to record (engine/runtime/subtask_checkpoint.h; its input
// side and record writer hand the buffers over); the writer only keeps it, says which input
// channels are still recording, and encodes it with the operator state for storage:
//   task state blob = "TSB1" | operator state (string) | #inputs | per input: #buffers, buffers |
//                     #outputs | per output: #buffers, buffers;   buffer = #records, (key, value)*
// and in a job with event time (`with_timestamp`) "TSB2", the records as (key, value, timestamp);
// in a job whose sink names records by their source identity (`with_timestamp_and_source_id`)
// "TSB3", as (key, value, timestamp, source id), so a replayed in-flight record keeps its name. A
// job without either keeps the old form, since the blob's bytes reach the trace hash (the storage
// digest): its replayed in-flight records come back with timestamp 0 and no source identity, which
// nothing there reads.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/vocabulary/record.h"

namespace eosim::engine {

struct ChannelState {
    std::vector<std::vector<RecordBatch>> inputs;   // per input channel, buffers in arrival order
    std::vector<std::vector<RecordBatch>> outputs;  // per output channel, buffers in send order

    bool empty() const;
    int64_t records() const;
};

// A task's state in a checkpoint that may hold channel state.
struct TaskStateBlob {
    std::string operator_state;
    ChannelState channels;
};

// Which fields of its records a task state blob keeps (above).
enum class ChannelRecordFields : uint8_t {
    key_value,
    with_timestamp,
    with_timestamp_and_source_id
};

std::string encode_task_state(const std::string& operator_state, const ChannelState& channels,
                              ChannelRecordFields fields = ChannelRecordFields::key_value);
// Throws std::runtime_error on a blob that is not a task state blob.
TaskStateBlob decode_task_state(const std::string& blob);

class ChannelStateWriter {
public:
    void start(int64_t checkpoint_id, size_t inputs, size_t outputs);
    bool active() const { return checkpoint_id_ != 0; }
    int64_t checkpoint_id() const { return checkpoint_id_; }
    bool recording(int32_t input) const {
        return active() && recording_[index(input, recording_.size())];
    }
    // Invariants (sim/invariant.h): these, add_* and take only between start and the hand-over
    // (take) or discard, and only for the channels given to start.
    void set_recording(int32_t input, bool on);
    void add_input(int32_t input, const RecordBatch& buffer);
    void add_output(int32_t output, const RecordBatch& buffer);
    // Ends the checkpoint's recording and hands its channel state over.
    ChannelState take();
    void discard();

private:
    static size_t index(int32_t channel, size_t channels);  // `channel` as an index, checked
    void check_active() const;

    int64_t checkpoint_id_ = 0;
    std::vector<bool> recording_;
    ChannelState state_;
};

}  // namespace eosim::engine
