#include "engine/checkpointing/single_checkpoint_barrier_handler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/checkpointing/barrier_tracker.h"

namespace eosim::engine {

SingleCheckpointBarrierHandler::SingleCheckpointBarrierHandler(int32_t channels, AlignmentMode mode,
                                                               sim::Duration alignment_timeout,
                                                               BarrierHandlerController& controller)
    : controller_(controller),
      mode_(mode),
      alignment_timeout_(alignment_timeout),
      state_(initial_barrier_handler_state(mode)),
      barrier_in_(static_cast<size_t>(channels), false),
      closed_(static_cast<size_t>(channels), false) {}

BarrierHandlerContext SingleCheckpointBarrierHandler::context() const {
    const sim::Duration left = alignment_timeout_ - (controller_.now() - current_started_);
    return BarrierHandlerContext{controller_,       current_, barrier_in_,
                                 all_barriers_in(), left,     alignment_timer_set_};
}

bool SingleCheckpointBarrierHandler::all_barriers_in() const {
    for (size_t c = 0; c < barrier_in_.size(); ++c) {
        if (!barrier_in_[c] && !closed_[c]) return false;
    }
    return true;
}

void SingleCheckpointBarrierHandler::apply(std::unique_ptr<BarrierHandlerState> next) {
    if (next) state_ = std::move(next);
}

void SingleCheckpointBarrierHandler::release_pending() {
    apply(state_->abort(context()));
    pending_ = false;
}

bool SingleCheckpointBarrierHandler::advance_to(int64_t checkpoint_id, const char* why_older_fails,
                                                sim::Time started) {
    if (checkpoint_id < current_ || (checkpoint_id == current_ && !pending_))
        return false;  // late, done or cancelled
    if (checkpoint_id == current_) return true;
    if (pending_) {
        controller_.abort_checkpoint(
            current_, CheckpointFailureReason::checkpoint_declined_subsumed, why_older_fails);
        release_pending();
    }
    current_ = checkpoint_id;
    current_started_ = started;
    alignment_timer_set_ = false;
    barrier_in_.assign(barrier_in_.size(), false);
    const bool aborted = aborted_ahead_.contains(checkpoint_id);
    aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
    pending_ = !aborted;
    return pending_;
}

void SingleCheckpointBarrierHandler::barrier_received(int32_t channel,
                                                      const CheckpointBarrier& barrier) {
    if (!advance_to(barrier.checkpoint_id, "barrier of a newer checkpoint arrived during alignment",
                    barrier.started))
        return;
    if (barrier_in_[static_cast<size_t>(channel)]) {
        throw std::logic_error("second barrier of checkpoint " +
                               std::to_string(barrier.checkpoint_id) + " on channel " +
                               std::to_string(channel) + ": a blocked channel cannot be read");
    }
    barrier_in_[static_cast<size_t>(channel)] = true;
    apply(state_->barrier_received(context(), channel, barrier));
    if (all_barriers_in()) pending_ = false;
}

// Flink's processBarrierAnnouncement: the announcement of a new checkpoint starts its alignment
// timer (checkNewCheckpoint), counted from the checkpoint's start; nothing is blocked.
void SingleCheckpointBarrierHandler::barrier_announced(int32_t channel,
                                                       const CheckpointBarrier& barrier) {
    if (mode_ != AlignmentMode::aligned_then_unaligned || barrier.unaligned) return;
    if (!advance_to(barrier.checkpoint_id, "barrier of a newer checkpoint arrived during alignment",
                    barrier.started))
        return;
    // Once a barrier was handled, the state has set the timer (or gone unaligned) itself.
    if (alignment_timer_set_ || !awaiting_first_barrier() ||
        barrier_in_[static_cast<size_t>(channel)])
        return;
    alignment_timer_set_ = true;
    controller_.start_alignment_timer(
        current_, std::max(context().alignment_time_left, sim::Duration::zero()));
}

bool SingleCheckpointBarrierHandler::awaiting_first_barrier() const {
    return !pending_ ||
           std::none_of(barrier_in_.begin(), barrier_in_.end(), [](bool in) { return in; });
}

void SingleCheckpointBarrierHandler::cancellation_marker_received(int32_t /*channel*/,
                                                                  int64_t checkpoint_id) {
    if (checkpoint_id < current_ || (checkpoint_id == current_ && !pending_))
        return;  // already over here
    if (checkpoint_id > current_ && pending_) {
        controller_.abort_checkpoint(
            current_, CheckpointFailureReason::checkpoint_declined_subsumed,
            "cancellation marker of a newer checkpoint arrived during alignment");
        release_pending();
    } else if (pending_) {
        release_pending();
    }
    current_ = checkpoint_id;
    pending_ = false;
    aborted_ahead_.erase(aborted_ahead_.begin(), aborted_ahead_.upper_bound(checkpoint_id));
    controller_.abort_checkpoint(
        checkpoint_id, CheckpointFailureReason::checkpoint_declined_on_cancellation_barrier,
        "an upstream task declined the checkpoint (cancellation marker)");
}

void SingleCheckpointBarrierHandler::checkpoint_aborted(int64_t checkpoint_id) {
    if (pending_ && checkpoint_id == current_) {
        release_pending();  // the coordinator aborted it: no decline goes back
    } else if (checkpoint_id > current_) {
        aborted_ahead_.insert(checkpoint_id);
    }
}

void SingleCheckpointBarrierHandler::end_of_partition(int32_t channel) {
    closed_[static_cast<size_t>(channel)] = true;
    if (!pending_ || barrier_in_[static_cast<size_t>(channel)] || !all_barriers_in()) return;
    apply(state_->all_barriers_in(context()));
    pending_ = false;
}

void SingleCheckpointBarrierHandler::alignment_timed_out(int64_t checkpoint_id) {
    if (!pending_ || checkpoint_id != current_) return;
    apply(state_->alignment_timed_out(context()));
}

std::unique_ptr<BarrierHandler> make_barrier_handler(CheckpointingMode mode,
                                                     AlignmentMode alignment,
                                                     sim::Duration alignment_timeout,
                                                     int32_t channels,
                                                     BarrierHandlerController& controller) {
    if (mode == CheckpointingMode::at_least_once)
        return std::make_unique<BarrierTracker>(channels, controller);
    return std::make_unique<SingleCheckpointBarrierHandler>(channels, alignment, alignment_timeout,
                                                            controller);
}

std::unique_ptr<BarrierHandler> make_barrier_handler(CheckpointingMode mode, int32_t channels,
                                                     BarrierHandlerController& controller) {
    return make_barrier_handler(mode, AlignmentMode::aligned, sim::Duration::zero(), channels,
                                controller);
}

}  // namespace eosim::engine
