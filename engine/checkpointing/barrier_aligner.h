#pragma once
// Aligned exactly-once barrier handling (Flink's SingleCheckpointBarrierHandler with aligned
// states). Two states: waiting for the first barrier of a checkpoint, or collecting the rest while
// the channels that already delivered theirs are blocked.
//
// Transitions:
//   waiting    --barrier(n > last)-->           collecting(n), channel blocked (snapshot at once if
//                                               it was the only channel)
//   collecting --barrier(n) from a new channel--> collecting(n); when all are in: snapshot, unblock,
//                                               waiting
//   collecting --barrier(m > n)-->              abort n (declined), collecting(m)
//   collecting --aborted(n)-->                  unblock, waiting
//   any        --barrier(n <= last)-->          ignored (a late barrier of a finished checkpoint)
// A second barrier of the same checkpoint on one channel is impossible (channels are FIFO and a
// blocked channel is not read); it throws.
#include <vector>

#include "engine/checkpointing/barrier_handler.h"

namespace eosim::engine {

class BarrierAligner final : public BarrierHandler {
public:
    BarrierAligner(int32_t channels, BarrierHandlerController& controller);

    void barrier_received(int32_t channel, int64_t checkpoint_id) override;
    void checkpoint_aborted(int64_t checkpoint_id) override;
    int64_t pending_checkpoint() const override { return collecting_ ? current_ : 0; }
    const char* name() const override { return "aligner"; }

private:
    void start(int64_t checkpoint_id);
    void finish_alignment();

    BarrierHandlerController& controller_;
    std::vector<bool> received_;
    int32_t received_count_ = 0;
    bool collecting_ = false;
    int64_t current_ = 0;  // the checkpoint being aligned, or the last one handled
};

}  // namespace eosim::engine
