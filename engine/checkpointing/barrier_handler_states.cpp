#include "engine/checkpointing/barrier_handler_states.h"

namespace eosim::engine {

std::unique_ptr<BarrierHandlerState> initial_barrier_handler_state(AlignmentMode mode) {
    switch (mode) {
        case AlignmentMode::aligned: return std::make_unique<WaitingForFirstBarrier>();
        case AlignmentMode::unaligned:
            return std::make_unique<WaitingForFirstBarrierUnaligned>(false);
        case AlignmentMode::aligned_then_unaligned:
            return std::make_unique<AlternatingWaitingForFirstBarrier>();
    }
    return nullptr;
}

namespace {

// Starts an unaligned snapshot and, when nothing else is to come, completes it at once.
std::unique_ptr<BarrierHandlerState> begin_unaligned(const BarrierHandlerContext& context,
                                                     bool alternating) {
    context.controller.start_unaligned_snapshot(context.checkpoint_id, context.barrier_in);
    if (context.all_barriers_in) {
        context.controller.finish_unaligned_snapshot(context.checkpoint_id);
        if (alternating) return std::make_unique<AlternatingWaitingForFirstBarrier>();
        return std::make_unique<WaitingForFirstBarrierUnaligned>(false);
    }
    return std::make_unique<CollectingBarriersUnaligned>(alternating);
}

}  // namespace

// ---- aligned ----------------------------------------------------------------------------------

std::unique_ptr<BarrierHandlerState> WaitingForFirstBarrier::barrier_received(
    const BarrierHandlerContext& context, int32_t channel, const CheckpointBarrier&) {
    if (context.all_barriers_in) return all_barriers_in(context);
    context.controller.block_channel(channel);
    return std::make_unique<CollectingBarriers>();
}

std::unique_ptr<BarrierHandlerState> WaitingForFirstBarrier::all_barriers_in(
    const BarrierHandlerContext& context) {
    context.controller.trigger_snapshot(context.checkpoint_id);
    return std::make_unique<WaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> WaitingForFirstBarrier::abort(const BarrierHandlerContext&) {
    return std::make_unique<WaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> CollectingBarriers::barrier_received(
    const BarrierHandlerContext& context, int32_t channel, const CheckpointBarrier&) {
    if (context.all_barriers_in) return all_barriers_in(context);
    context.controller.block_channel(channel);
    return nullptr;
}

std::unique_ptr<BarrierHandlerState> CollectingBarriers::all_barriers_in(
    const BarrierHandlerContext& context) {
    context.controller.unblock_all_channels();
    context.controller.trigger_snapshot(context.checkpoint_id);
    return std::make_unique<WaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> CollectingBarriers::abort(
    const BarrierHandlerContext& context) {
    context.controller.unblock_all_channels();
    return std::make_unique<WaitingForFirstBarrier>();
}

// ---- unaligned --------------------------------------------------------------------------------

std::unique_ptr<BarrierHandlerState> WaitingForFirstBarrierUnaligned::barrier_received(
    const BarrierHandlerContext& context, int32_t, const CheckpointBarrier&) {
    return begin_unaligned(context, alternating_);
}

std::unique_ptr<BarrierHandlerState> WaitingForFirstBarrierUnaligned::all_barriers_in(
    const BarrierHandlerContext& context) {
    return begin_unaligned(context, alternating_);
}

std::unique_ptr<BarrierHandlerState> WaitingForFirstBarrierUnaligned::abort(
    const BarrierHandlerContext&) {
    if (alternating_) return std::make_unique<AlternatingWaitingForFirstBarrier>();
    return std::make_unique<WaitingForFirstBarrierUnaligned>(false);
}

std::unique_ptr<BarrierHandlerState> CollectingBarriersUnaligned::barrier_received(
    const BarrierHandlerContext& context, int32_t channel, const CheckpointBarrier&) {
    context.controller.channel_barrier_received(channel);
    if (context.all_barriers_in) return all_barriers_in(context);
    return nullptr;
}

std::unique_ptr<BarrierHandlerState> CollectingBarriersUnaligned::all_barriers_in(
    const BarrierHandlerContext& context) {
    context.controller.finish_unaligned_snapshot(context.checkpoint_id);
    return waiting();
}

std::unique_ptr<BarrierHandlerState> CollectingBarriersUnaligned::abort(
    const BarrierHandlerContext& context) {
    context.controller.discard_unaligned_snapshot(context.checkpoint_id);
    return waiting();
}

std::unique_ptr<BarrierHandlerState> CollectingBarriersUnaligned::waiting() const {
    if (alternating_) return std::make_unique<AlternatingWaitingForFirstBarrier>();
    return std::make_unique<WaitingForFirstBarrierUnaligned>(false);
}

// ---- aligned with a timeout -------------------------------------------------------------------

std::unique_ptr<BarrierHandlerState> AlternatingWaitingForFirstBarrier::barrier_received(
    const BarrierHandlerContext& context, int32_t channel, const CheckpointBarrier& barrier) {
    // An upstream task already switched, or the timeout (from the checkpoint's start) is over:
    // unaligned at once (Flink's
    // AlternatingCheckpointsTest.testTimeoutAlignmentBeforeFirstBarrier).
    if (barrier.unaligned || context.alignment_time_left <= sim::Duration::zero())
        return begin_unaligned(context, true);
    if (context.all_barriers_in) return all_barriers_in(context);
    context.controller.block_channel(channel);
    if (!context.alignment_timer_set)
        context.controller.start_alignment_timer(context.checkpoint_id,
                                                 context.alignment_time_left);
    return std::make_unique<AlternatingCollectingBarriers>();
}

std::unique_ptr<BarrierHandlerState> AlternatingWaitingForFirstBarrier::alignment_timed_out(
    const BarrierHandlerContext&) {
    return std::make_unique<WaitingForFirstBarrierUnaligned>(true);
}

std::unique_ptr<BarrierHandlerState> AlternatingWaitingForFirstBarrier::all_barriers_in(
    const BarrierHandlerContext& context) {
    context.controller.trigger_snapshot(context.checkpoint_id);
    return std::make_unique<AlternatingWaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> AlternatingWaitingForFirstBarrier::abort(
    const BarrierHandlerContext&) {
    return std::make_unique<AlternatingWaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> AlternatingCollectingBarriers::barrier_received(
    const BarrierHandlerContext& context, int32_t channel, const CheckpointBarrier& barrier) {
    if (barrier.unaligned) return switch_to_unaligned(context);
    if (context.all_barriers_in) return all_barriers_in(context);
    context.controller.block_channel(channel);
    return nullptr;
}

std::unique_ptr<BarrierHandlerState> AlternatingCollectingBarriers::all_barriers_in(
    const BarrierHandlerContext& context) {
    context.controller.unblock_all_channels();
    context.controller.trigger_snapshot(context.checkpoint_id);
    return std::make_unique<AlternatingWaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> AlternatingCollectingBarriers::alignment_timed_out(
    const BarrierHandlerContext& context) {
    return switch_to_unaligned(context);
}

std::unique_ptr<BarrierHandlerState> AlternatingCollectingBarriers::abort(
    const BarrierHandlerContext& context) {
    context.controller.unblock_all_channels();
    return std::make_unique<AlternatingWaitingForFirstBarrier>();
}

std::unique_ptr<BarrierHandlerState> AlternatingCollectingBarriers::switch_to_unaligned(
    const BarrierHandlerContext& context) {
    // The blocked channels delivered their barrier: what they hold came after it and is not channel
    // state. Every other channel persists its in-flight data up to its barrier.
    context.controller.unblock_all_channels();
    return begin_unaligned(context, true);
}

}  // namespace eosim::engine
