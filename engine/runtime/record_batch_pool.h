#pragma once
// Spare record buffers of one engine, kept for their capacity. A buffer is made by a producer
// (a source poll, an output channel's open buffer) and dies when its consumer has processed it;
// at the standard run's rate that was an allocation and a free per buffer (and reallocations as
// it filled), a visible share of a run. Buffers processed go back here, empty, and the next buffer
// opened takes one. What a buffer holds never depends on the pool: only its capacity does.
#include <cstddef>
#include <utility>
#include <vector>

#include "engine/vocabulary/record.h"

namespace eosim::engine {

class RecordBatchPool {
public:
    // At most this many spare buffers are kept (more buffers are only freed): a bound on the memory
    // the pool holds, a few times what is in flight at the standard run's rate.
    static constexpr size_t kMaxSpare = 64;

    // An empty buffer, with the capacity of one processed earlier when there is one.
    RecordBatch take() {
        if (spare_.empty()) return RecordBatch();
        RecordBatch batch = std::move(spare_.back());
        spare_.pop_back();
        return batch;
    }
    // A buffer that is done with; its records are dropped.
    void give_back(RecordBatch&& batch) {
        if (batch.capacity() == 0 || spare_.size() >= kMaxSpare) return;
        batch.clear();
        spare_.push_back(std::move(batch));
    }

private:
    std::vector<RecordBatch> spare_;
};

}  // namespace eosim::engine
