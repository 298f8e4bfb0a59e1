#pragma once
// A source subtask's watermark over its splits (Flink's per-split watermark generation in the
// SourceReader, WatermarkStrategy.forBoundedOutOfOrderness(B).withIdleness(T)): per split the
// watermark is max timestamp seen - B - 1; the subtask's is the minimum over the splits that are
// neither idle nor finished. A split is idle when no record came from it for `idle_timeout` of
// virtual time, and active again with its next record. All splits idle (or none left): the
// subtask's output is idle. A finished split (read to its end) leaves the minimum, as Flink
// releases a finished split's output.
//
// The per-split max timestamp is checkpointed with the split's offset (the reader's snapshot), so a
// restored source resumes at the watermark it had, not at kMinWatermark.
#include <cstdint>
#include <map>
#include <optional>

#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"
#include "sim/time.h"

namespace eosim::engine {

class SplitWatermarks {
public:
    struct Combined {
        int64_t watermark = kMinWatermark;
        bool idle = false;
    };

    explicit SplitWatermarks(WatermarkSpec spec) : spec_(spec) {}

    // A split this subtask reads, with its checkpointed max timestamp (kMinWatermark: none yet).
    void add_split(int32_t split, int64_t max_timestamp, sim::Time now);
    void record_read(int32_t split, int64_t timestamp, sim::Time now);
    void split_finished(int32_t split);
    int64_t max_timestamp(int32_t split) const;
    // The combined watermark and idleness at `now` (splits without a record for idle_timeout idle).
    Combined current(sim::Time now) const;
    // Bounded out-of-orderness: max timestamp - B - 1 (kMinWatermark before the first record).
    static int64_t split_watermark(int64_t max_timestamp, sim::Duration bound);

private:
    struct Split {
        int64_t max_timestamp = kMinWatermark;
        sim::Time last_record;
        bool finished = false;
    };

    WatermarkSpec spec_;
    std::map<int32_t, Split> splits_;
};

}  // namespace eosim::engine
