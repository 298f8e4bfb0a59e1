#include "engine/connectors/kafka_source.h"

#include <algorithm>

#include <map>

#include "engine/state/blob_codec.h"

namespace eosim::engine {

KafkaSourceReader::KafkaSourceReader(const sim::external::KafkaCluster& kafka, sim::NodeId caller,
                                     std::string topic, int32_t subtask, int32_t parallelism,
                                     const SourceOffsets& end_offsets,
                                     const std::optional<WatermarkSpec>& watermarks,
                                     const sim::Scheduler* clock)
    : kafka_(kafka), caller_(caller), topic_(std::move(topic)), clock_(clock) {
    for (const auto& [where, end] : end_offsets) {
        if (where.first == topic_ && where.second % parallelism == subtask)
            splits_.push_back(Split{where.second, 0, end});
    }
    if (watermarks) {
        watermarks_.emplace(*watermarks);
        for (const Split& split : splits_)
            watermarks_->add_split(split.partition, kMinWatermark, now());
    }
}

sim::Time KafkaSourceReader::now() const { return clock_ == nullptr ? sim::Time{} : clock_->now(); }

void KafkaSourceReader::restore(const std::vector<std::string>& snapshots) {
    std::map<int32_t, std::pair<int64_t, int64_t>>
        restored;  // partition -> (next offset, max timestamp)
    for (const std::string& blob : snapshots) {
        BlobReader in(blob);
        while (!in.done()) {
            const auto partition = static_cast<int32_t>(in.get_i64());
            const int64_t offset = in.get_i64();
            restored[partition] = {offset, watermarks_ ? in.get_i64() : kMinWatermark};
        }
    }
    unrestored_.clear();
    for (Split& split : splits_) {
        auto it = restored.find(split.partition);
        split.next_offset = it == restored.end() ? 0 : it->second.first;
        if (it == restored.end()) unrestored_.push_back(split.partition);
        if (watermarks_) {
            watermarks_->add_split(split.partition,
                                   it == restored.end() ? kMinWatermark : it->second.second, now());
            if (split.next_offset >= split.end_offset) watermarks_->split_finished(split.partition);
        }
    }
}

std::optional<std::string> KafkaSourceReader::poll(size_t max_records, RecordBatch* out) {
    for (size_t n = 0; n < splits_.size() && out->size() < max_records; ++n) {
        Split& split = splits_[(next_split_ + n) % splits_.size()];
        if (split.next_offset >= split.end_offset) continue;
        const auto limit = std::min<size_t>(
            max_records - out->size(), static_cast<size_t>(split.end_offset - split.next_offset));
        // Each record goes straight into `out` (and its timestamp to the split's watermark).
        int64_t next_offset = 0;
        const sim::Time read_at = now();
        const auto error = kafka_.read_each(
            caller_, topic_, split.partition, split.next_offset, limit,
            sim::external::Isolation::read_committed, &next_offset,
            [&](const sim::external::ReadResult::Entry& entry) {
                out->push_back(Record{entry.record.key, entry.record.value, 0, RowKind::insert,
                                      entry.record.timestamp,
                                      make_source_id(split.partition, entry.offset)});
                if (watermarks_)
                    watermarks_->record_read(split.partition, entry.record.timestamp, read_at);
            });
        if (error != sim::external::KafkaError::none) return std::string(to_string(error));
        split.next_offset = next_offset;
        if (watermarks_ && split.next_offset >= split.end_offset)
            watermarks_->split_finished(split.partition);
    }
    if (!splits_.empty()) next_split_ = (next_split_ + 1) % splits_.size();
    return std::nullopt;
}

void KafkaSourceReader::resume_unrestored_at(const SourceOffsets& checkpointed) {
    for (Split& split : splits_) {
        if (std::find(unrestored_.begin(), unrestored_.end(), split.partition) == unrestored_.end())
            continue;
        auto it = checkpointed.find({topic_, split.partition});
        if (it == checkpointed.end()) continue;
        split.next_offset = it->second;
        if (watermarks_ && split.next_offset >= split.end_offset)
            watermarks_->split_finished(split.partition);
    }
}

void KafkaSourceReader::skip_to_end() {
    for (Split& split : splits_) {
        split.next_offset = split.end_offset;
        if (watermarks_) watermarks_->split_finished(split.partition);
    }
}

bool KafkaSourceReader::reached_end() const {
    for (const Split& split : splits_) {
        if (split.next_offset < split.end_offset) return false;
    }
    return true;
}

std::string KafkaSourceReader::snapshot(int64_t) {
    BlobWriter out;
    for (const Split& split : splits_) {
        out.put_i64(split.partition);
        out.put_i64(split.next_offset);
        if (watermarks_) out.put_i64(watermarks_->max_timestamp(split.partition));
    }
    return out.take();
}

std::optional<SourceReader::Watermark> KafkaSourceReader::watermark(sim::Time at) const {
    if (!watermarks_) return std::nullopt;
    const SplitWatermarks::Combined combined = watermarks_->current(at);
    return Watermark{combined.watermark, combined.idle};
}

void KafkaSourceReader::add_offsets(SourceOffsets* offsets) const {
    for (const Split& split : splits_) (*offsets)[{topic_, split.partition}] = split.next_offset;
}

}  // namespace eosim::engine
