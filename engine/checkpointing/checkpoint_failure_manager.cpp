#include "engine/checkpointing/checkpoint_failure_manager.h"

#include "sim/invariant.h"

namespace eosim::engine {

CheckpointFailureManager::CheckpointFailureManager(int32_t tolerable_failures)
    : tolerable_failures_(tolerable_failures) {
    EOSIM_INVARIANT(tolerable_failures >= 0, "a tolerable failure count is never negative");
}

bool CheckpointFailureManager::failure(int64_t checkpoint_id, CheckpointFailureReason reason) {
    const bool known = checkpoint_id != kUnknownCheckpointId;
    if (known && checkpoint_id <= last_succeeded_) return false;  // a newer one already succeeded
    if (!counts_toward_tolerable_failures(reason)) return false;
    if (known && !counted_.insert(checkpoint_id).second)
        return false;  // this checkpoint counted already
    if (++consecutive_failures_ <= tolerable_failures_) return false;
    EOSIM_INVARIANT(consecutive_failures_ == tolerable_failures_ + 1,
                    "the job fails at the first failure past the tolerable count");
    clear();
    return true;
}

void CheckpointFailureManager::success(int64_t checkpoint_id) {
    if (checkpoint_id <= last_succeeded_) return;
    last_succeeded_ = checkpoint_id;
    clear();
}

void CheckpointFailureManager::clear() {
    consecutive_failures_ = 0;
    counted_.clear();
}

}  // namespace eosim::engine
