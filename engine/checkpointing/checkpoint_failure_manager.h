#pragma once
// Counts consecutive checkpoint failures toward `tolerable_failures`, after Flink's
// CheckpointFailureManager: only the reasons that counts_toward_tolerable_failures() names count
// (an expiry, a declined or asynchronously failed task snapshot, an I/O error), each checkpoint at
// most once; a failure of a checkpoint older than the newest completed one is ignored (checkpoints
// are assumed to succeed in order); a completion resets the count. When the count exceeds
// `tolerable_failures`, failure() says the job must fail over and resets the count.
//
// It does not fail the job itself (the coordinator does) and knows nothing of savepoints yet
// (Flink never counts a savepoint's failure; a synchronous savepoint's failure always fails the
// job).
#include <cstdint>
#include <set>

#include "engine/vocabulary/checkpoint_failure_reason.h"

namespace eosim::engine {

class CheckpointFailureManager {
public:
    // A failure before a checkpoint id was assigned (e.g. the id counter could not be written).
    static constexpr int64_t kUnknownCheckpointId = -1;

    explicit CheckpointFailureManager(int32_t tolerable_failures);

    // Records a failure; true when the job must fail over (the count then starts again at zero).
    bool failure(int64_t checkpoint_id, CheckpointFailureReason reason);
    void success(int64_t checkpoint_id);
    int32_t consecutive_failures() const { return consecutive_failures_; }

private:
    void clear();

    int32_t tolerable_failures_;
    int32_t consecutive_failures_ = 0;
    std::set<int64_t> counted_;  // checkpoint ids counted since the last reset
    int64_t last_succeeded_ = INT64_MIN;
};

}  // namespace eosim::engine
