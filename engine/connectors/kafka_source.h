#pragma once
// The Kafka source reader: one split per partition (partition p goes to subtask p mod
// parallelism); the next offset of each split is its state. Bounded: it stops at the end offsets
// it was given, so that a scenario's job finishes. With a watermark strategy it generates
// watermarks per split from the records' timestamps (split_watermarks.h), and each split's max
// timestamp is state too (snapshot: (partition, next offset[, max timestamp])*).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/connectors/source_reader.h"
#include "engine/connectors/split_watermarks.h"
#include "engine/vocabulary/record.h"
#include "engine/vocabulary/run_observer.h"
#include "sim/external/kafka.h"
#include "sim/scheduler.h"

namespace eosim::engine {

class KafkaSourceReader final : public SourceReader {
public:
    // `end_offsets`: where each partition of the topic ends (the bounded input). Reads on behalf of
    // `caller`.
    KafkaSourceReader(const sim::external::KafkaCluster& kafka, sim::NodeId caller,
                      std::string topic, int32_t subtask, int32_t parallelism,
                      const SourceOffsets& end_offsets,
                      const std::optional<WatermarkSpec>& watermarks = std::nullopt,
                      const sim::Scheduler* clock = nullptr);

    // Restores from the snapshots of every subtask of the source (the union of split states).
    void restore(const std::vector<std::string>& snapshots) override;
    // Reads up to `max_records` available records; the broker's error fails the task.
    std::optional<std::string> poll(size_t max_records, RecordBatch* out) override;
    bool reached_end() const override;
    void skip_to_end() override;
    void resume_unrestored_at(const SourceOffsets& checkpointed) override;
    std::string snapshot(int64_t checkpoint_id) override;
    void add_offsets(SourceOffsets* offsets) const override;
    std::optional<Watermark> watermark(sim::Time now) const override;

private:
    struct Split {
        int32_t partition;
        int64_t next_offset;
        int64_t end_offset;
    };

    sim::Time now() const;

    const sim::external::KafkaCluster& kafka_;
    sim::NodeId caller_;
    std::string topic_;
    std::vector<Split> splits_;
    size_t next_split_ = 0;                      // polled round-robin
    std::vector<int32_t> unrestored_;            // partitions of splits no restored snapshot named
    std::optional<SplitWatermarks> watermarks_;  // with a watermark strategy
    const sim::Scheduler* clock_ = nullptr;      // virtual time, for idleness
};

}  // namespace eosim::engine
