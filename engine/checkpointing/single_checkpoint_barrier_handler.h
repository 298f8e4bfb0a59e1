#pragma once
// Exactly-once barrier handling after Flink's SingleCheckpointBarrierHandler: one checkpoint at a
// time. The handler decides what a barrier, a cancellation marker, an abort or a closed channel
// means for the checkpoint; what the task then does is up to the current state
// (engine/checkpointing/barrier_handler_states.h), which depends on the alignment mode.
//
//   barrier(n), n newer than the current checkpoint:   a pending older one is declined (its barrier
//       was skipped on this channel); n starts, unless the coordinator already aborted it (then n
//       is cancelled here: its barriers are ignored, nothing blocks, nothing is snapshotted)
//   barrier(n) of the pending checkpoint:             counted; the state acts
//   barrier(n) older, or of a completed/cancelled one: ignored (late)
//   cancellation marker(n) (an upstream declined n):  a pending older one is declined, n is
//       cancelled here and declined downstream in turn (once)
//   aborted(n) by the coordinator:                    n pending: the state releases it; n newer
//   than
//       anything seen: remembered, and the pending older checkpoint is left alone
//   announced(n) (aligned_then_unaligned: an aligned barrier queued behind buffers):  as a barrier
//       for which checkpoint is current; a newly pending n starts its alignment timer, whose
//       timeout lets the task take the queued barrier ahead of the buffers before it
//   end of partition(c):                              c leaves every alignment from now on; if it
//       was the last barrier missing, the checkpoint completes
// A second barrier of the same checkpoint on one channel is impossible (channels are FIFO and a
// blocked channel is not read); it throws.
#include <memory>
#include <set>
#include <vector>

#include "engine/checkpointing/barrier_handler.h"
#include "engine/checkpointing/barrier_handler_states.h"

namespace eosim::engine {

class SingleCheckpointBarrierHandler final : public BarrierHandler {
public:
    SingleCheckpointBarrierHandler(int32_t channels, AlignmentMode mode,
                                   sim::Duration alignment_timeout,
                                   BarrierHandlerController& controller);

    void barrier_received(int32_t channel, const CheckpointBarrier& barrier) override;
    using BarrierHandler::barrier_received;
    void cancellation_marker_received(int32_t channel, int64_t checkpoint_id) override;
    void checkpoint_aborted(int64_t checkpoint_id) override;
    void end_of_partition(int32_t channel) override;
    void alignment_timed_out(int64_t checkpoint_id) override;
    void barrier_announced(int32_t channel, const CheckpointBarrier& barrier) override;
    int64_t pending_checkpoint() const override { return pending_ ? current_ : 0; }
    bool awaiting_first_barrier() const override;
    bool collecting_unaligned(int64_t checkpoint_id) const override {
        return pending_ && checkpoint_id == current_ && state_->unaligned();
    }
    const char* name() const override { return "single-checkpoint"; }
    const char* state_name() const { return state_->name(); }

private:
    // Makes `checkpoint_id` the current checkpoint when it is newer; true when it is pending.
    bool advance_to(int64_t checkpoint_id, const char* why_older_fails,
                    sim::Time started = sim::Time::zero());
    void apply(std::unique_ptr<BarrierHandlerState> next);
    void release_pending();  // the pending checkpoint ends without completing here
    void finish_if_all_in();
    bool all_barriers_in() const;
    BarrierHandlerContext context() const;

    BarrierHandlerController& controller_;
    AlignmentMode mode_;
    sim::Duration alignment_timeout_;
    std::unique_ptr<BarrierHandlerState> state_;
    std::vector<bool> barrier_in_;
    std::vector<bool> closed_;
    int64_t current_ = 0;                            // the pending checkpoint, or the last one seen
    sim::Time current_started_ = sim::Time::zero();  // when the coordinator triggered it
    bool pending_ = false;
    bool alignment_timer_set_ =
        false;  // the pending checkpoint's alignment timer runs (aligned_then_unaligned)
    std::set<int64_t> aborted_ahead_;  // aborted by the coordinator before their first barrier came
};

}  // namespace eosim::engine
