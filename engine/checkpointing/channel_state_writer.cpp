#include "engine/checkpointing/channel_state_writer.h"

#include <stdexcept>

#include "engine/state/blob_codec.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {
constexpr std::string_view kMagic = "TSB1";            // records as (key, value)
constexpr std::string_view kMagicTimestamps = "TSB2";  // records as (key, value, timestamp)
constexpr std::string_view kMagicSourceIds =
    "TSB3";  // records as (key, value, timestamp, source id)

std::string_view magic_of(ChannelRecordFields fields) {
    switch (fields) {
        case ChannelRecordFields::key_value: return kMagic;
        case ChannelRecordFields::with_timestamp: return kMagicTimestamps;
        case ChannelRecordFields::with_timestamp_and_source_id: return kMagicSourceIds;
    }
    return kMagic;
}

void put_channels(BlobWriter& out, const std::vector<std::vector<RecordBatch>>& channels,
                  ChannelRecordFields fields) {
    out.put_i64(static_cast<int64_t>(channels.size()));
    for (const auto& buffers : channels) {
        out.put_i64(static_cast<int64_t>(buffers.size()));
        for (const RecordBatch& buffer : buffers) {
            out.put_i64(static_cast<int64_t>(buffer.size()));
            for (const Record& r : buffer) {
                out.put_i64(r.key);
                out.put_i64(r.value);
                if (fields != ChannelRecordFields::key_value) out.put_i64(r.timestamp);
                if (fields == ChannelRecordFields::with_timestamp_and_source_id)
                    out.put_i64(static_cast<int64_t>(r.source_id));
            }
        }
    }
}

std::vector<std::vector<RecordBatch>> get_channels(BlobReader& in, ChannelRecordFields fields) {
    std::vector<std::vector<RecordBatch>> channels(static_cast<size_t>(in.get_i64()));
    for (auto& buffers : channels) {
        buffers.resize(static_cast<size_t>(in.get_i64()));
        for (RecordBatch& buffer : buffers) {
            buffer.resize(static_cast<size_t>(in.get_i64()));
            for (Record& r : buffer) {
                r.key = in.get_i64();
                r.value = in.get_i64();
                if (fields != ChannelRecordFields::key_value) r.timestamp = in.get_i64();
                if (fields == ChannelRecordFields::with_timestamp_and_source_id)
                    r.source_id = static_cast<uint64_t>(in.get_i64());
            }
        }
    }
    return channels;
}
}  // namespace

bool ChannelState::empty() const { return records() == 0; }

int64_t ChannelState::records() const {
    int64_t total = 0;
    for (const auto* side : {&inputs, &outputs}) {
        for (const auto& buffers : *side) {
            for (const RecordBatch& buffer : buffers) total += static_cast<int64_t>(buffer.size());
        }
    }
    return total;
}

std::string encode_task_state(const std::string& operator_state, const ChannelState& channels,
                              ChannelRecordFields fields) {
    BlobWriter out;
    out.put_string(magic_of(fields));
    out.put_string(operator_state);
    put_channels(out, channels.inputs, fields);
    put_channels(out, channels.outputs, fields);
    return out.take();
}

TaskStateBlob decode_task_state(const std::string& blob) {
    BlobReader in(blob);
    const std::string magic = in.get_string();
    ChannelRecordFields fields = ChannelRecordFields::key_value;
    if (magic == kMagicTimestamps) {
        fields = ChannelRecordFields::with_timestamp;
    } else if (magic == kMagicSourceIds) {
        fields = ChannelRecordFields::with_timestamp_and_source_id;
    } else if (magic != kMagic) {
        throw std::runtime_error("not a task state blob (with channel state)");
    }
    TaskStateBlob decoded;
    decoded.operator_state = in.get_string();
    decoded.channels.inputs = get_channels(in, fields);
    decoded.channels.outputs = get_channels(in, fields);
    if (!in.done()) throw std::runtime_error("task state blob has trailing bytes");
    return decoded;
}

size_t ChannelStateWriter::index(int32_t channel, size_t channels) {
    EOSIM_INVARIANT(channel >= 0 && static_cast<size_t>(channel) < channels,
                    "channel state of a channel the checkpoint has");
    return static_cast<size_t>(channel);
}

void ChannelStateWriter::check_active() const {
    EOSIM_INVARIANT(active(),
                    "channel-state writer not used after its hand-over (or before its start)");
}

void ChannelStateWriter::start(int64_t checkpoint_id, size_t inputs, size_t outputs) {
    EOSIM_INVARIANT(checkpoint_id > 0, "channel state of a real checkpoint id");
    EOSIM_INVARIANT(!active(),
                    "channel-state writer started while another checkpoint's recording is active");
    checkpoint_id_ = checkpoint_id;
    recording_.assign(inputs, false);
    state_ = ChannelState{};
    state_.inputs.resize(inputs);
    state_.outputs.resize(outputs);
}

void ChannelStateWriter::set_recording(int32_t input, bool on) {
    check_active();
    recording_[index(input, recording_.size())] = on;
}

void ChannelStateWriter::add_input(int32_t input, const RecordBatch& buffer) {
    check_active();
    const size_t channel = index(input, state_.inputs.size());
    if (!buffer.empty()) state_.inputs[channel].push_back(buffer);
}

void ChannelStateWriter::add_output(int32_t output, const RecordBatch& buffer) {
    check_active();
    const size_t channel = index(output, state_.outputs.size());
    if (!buffer.empty()) state_.outputs[channel].push_back(buffer);
}

ChannelState ChannelStateWriter::take() {
    check_active();
    ChannelState taken = std::move(state_);
    discard();
    return taken;
}

void ChannelStateWriter::discard() {
    checkpoint_id_ = 0;
    recording_.clear();
    state_ = ChannelState{};
}

}  // namespace eosim::engine
