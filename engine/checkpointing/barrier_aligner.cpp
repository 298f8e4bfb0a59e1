#include "engine/checkpointing/barrier_aligner.h"

#include <stdexcept>

#include "engine/checkpointing/barrier_tracker.h"

namespace eosim::engine {

BarrierAligner::BarrierAligner(int32_t channels, BarrierHandlerController& controller)
    : controller_(controller), received_(static_cast<size_t>(channels), false) {}

void BarrierAligner::barrier_received(int32_t channel, int64_t checkpoint_id) {
    if (checkpoint_id < current_ || (!collecting_ && checkpoint_id == current_)) return;  // late
    if (collecting_ && checkpoint_id > current_) {
        controller_.abort_checkpoint(current_, CheckpointFailureReason::checkpoint_declined_subsumed,
                                     "barrier of a newer checkpoint arrived during alignment");
        controller_.unblock_all_channels();
        collecting_ = false;
    }
    if (!collecting_) start(checkpoint_id);
    if (received_[static_cast<size_t>(channel)]) {
        throw std::logic_error("second barrier of checkpoint " + std::to_string(checkpoint_id) + " on channel " +
                               std::to_string(channel) + ": a blocked channel cannot be read");
    }
    received_[static_cast<size_t>(channel)] = true;
    ++received_count_;
    if (received_count_ == static_cast<int32_t>(received_.size())) {
        finish_alignment();
    } else {
        controller_.block_channel(channel);
    }
}

void BarrierAligner::checkpoint_aborted(int64_t checkpoint_id) {
    if (!collecting_ || checkpoint_id != current_) return;
    collecting_ = false;
    controller_.unblock_all_channels();
}

void BarrierAligner::start(int64_t checkpoint_id) {
    collecting_ = true;
    current_ = checkpoint_id;
    received_count_ = 0;
    received_.assign(received_.size(), false);
}

void BarrierAligner::finish_alignment() {
    collecting_ = false;
    controller_.unblock_all_channels();
    controller_.trigger_snapshot(current_);
}

std::unique_ptr<BarrierHandler> make_barrier_handler(CheckpointingMode mode, int32_t channels,
                                                     BarrierHandlerController& controller) {
    if (mode == CheckpointingMode::at_least_once) return std::make_unique<BarrierTracker>(channels, controller);
    return std::make_unique<BarrierAligner>(channels, controller);
}

}  // namespace eosim::engine
