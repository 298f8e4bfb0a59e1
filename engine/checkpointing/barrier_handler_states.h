#pragma once
// The states of `SingleCheckpointBarrierHandler`, one small class per situation, after Flink's
// `BarrierHandlerState` family. The handler decides which checkpoint a barrier belongs to (newer,
// late, cancelled) and counts the barriers; a state decides what the task does with a barrier of
// the pending checkpoint and returns the state that follows.
//
//   aligned:                 WaitingForFirstBarrier --barrier--> CollectingBarriers (channel
//   blocked)
//                            CollectingBarriers --last barrier--> snapshot, unblock,
//                            WaitingForFirstBarrier
//   unaligned:               WaitingForFirstBarrierUnaligned --barrier--> snapshot now, persist
//   in-flight
//                            data --> CollectingBarriersUnaligned --last barrier--> channel state
//                            complete
//   aligned with a timeout:  AlternatingWaitingForFirstBarrier --aligned barrier-->
//   AlternatingCollectingBarriers
//                            (timer set for the rest of the timeout, counted from the checkpoint's
//                            start);
//                            --unaligned barrier, a barrier after the timeout, or the timer-->
//                            CollectingBarriersUnaligned (which returns to
//                            AlternatingWaitingForFirstBarrier at the end)
//                            AlternatingWaitingForFirstBarrier (announced: the timer set, no
//                            barrier taken)
//                            --the timer--> WaitingForFirstBarrierUnaligned (the task takes a
//                            queued barrier ahead of its channel's buffers; Flink's prioritised
//                            announcements)
// `abort` (the pending checkpoint ends without completing here) releases what the state holds and
// returns the waiting state of its mode.
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/checkpointing/barrier_handler.h"

namespace eosim::engine {

// What a state sees of the handler: the task (through the controller) and the pending checkpoint.
struct BarrierHandlerContext {
    BarrierHandlerController& controller;
    int64_t checkpoint_id;
    const std::vector<bool>&
        barrier_in;        // per channel: its barrier of the pending checkpoint arrived
    bool all_barriers_in;  // every open channel delivered it
    // aligned_then_unaligned: what is left of the aligned-checkpoint timeout, counted from the
    // checkpoint's start (zero or less: a barrier that comes now starts unaligned at once).
    sim::Duration alignment_time_left;
    // aligned_then_unaligned: the pending checkpoint's alignment timer already runs (its barrier
    // was announced while queued behind buffers).
    bool alignment_timer_set = false;
};

class BarrierHandlerState {
public:
    virtual ~BarrierHandlerState() = default;
    // A barrier of the pending checkpoint arrived on `channel` (already counted in the context).
    virtual std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) = 0;
    // A channel closed and every remaining open channel has delivered the barrier.
    virtual std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) = 0;
    virtual std::unique_ptr<BarrierHandlerState> alignment_timed_out(const BarrierHandlerContext&) {
        return nullptr;
    }
    virtual std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) = 0;
    virtual bool unaligned() const { return false; }
    virtual const char* name() const = 0;
};

// The state a handler starts in.
std::unique_ptr<BarrierHandlerState> initial_barrier_handler_state(AlignmentMode mode);

class WaitingForFirstBarrier final : public BarrierHandlerState {
public:
    std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) override;
    std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) override;
    const char* name() const override { return "waiting-for-first-barrier"; }
};

class CollectingBarriers final : public BarrierHandlerState {
public:
    std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) override;
    std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) override;
    const char* name() const override { return "collecting-barriers"; }
};

// Unaligned; `alternating` says which waiting state follows (the timeout mode returns to aligned).
class WaitingForFirstBarrierUnaligned final : public BarrierHandlerState {
public:
    explicit WaitingForFirstBarrierUnaligned(bool alternating) : alternating_(alternating) {}
    std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) override;
    std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) override;
    bool unaligned() const override { return true; }
    const char* name() const override { return "waiting-for-first-barrier-unaligned"; }

private:
    bool alternating_;
};

class CollectingBarriersUnaligned final : public BarrierHandlerState {
public:
    explicit CollectingBarriersUnaligned(bool alternating) : alternating_(alternating) {}
    std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) override;
    std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) override;
    bool unaligned() const override { return true; }
    const char* name() const override { return "collecting-barriers-unaligned"; }

private:
    std::unique_ptr<BarrierHandlerState> waiting() const;
    bool alternating_;
};

class AlternatingWaitingForFirstBarrier final : public BarrierHandlerState {
public:
    std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) override;
    std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) override;
    // The timeout passed while the checkpoint's barriers were only announced (queued behind
    // buffers).
    std::unique_ptr<BarrierHandlerState> alignment_timed_out(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) override;
    const char* name() const override { return "alternating-waiting-for-first-barrier"; }
};

class AlternatingCollectingBarriers final : public BarrierHandlerState {
public:
    std::unique_ptr<BarrierHandlerState> barrier_received(
        const BarrierHandlerContext& context, int32_t channel,
        const CheckpointBarrier& barrier) override;
    std::unique_ptr<BarrierHandlerState> all_barriers_in(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> alignment_timed_out(
        const BarrierHandlerContext& context) override;
    std::unique_ptr<BarrierHandlerState> abort(const BarrierHandlerContext& context) override;
    const char* name() const override { return "alternating-collecting-barriers"; }

private:
    // Alignment took too long (or an upstream switched): release the blocked channels and continue
    // unaligned.
    std::unique_ptr<BarrierHandlerState> switch_to_unaligned(const BarrierHandlerContext& context);
};

}  // namespace eosim::engine
