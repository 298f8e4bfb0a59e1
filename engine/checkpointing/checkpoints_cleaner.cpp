#include "engine/checkpointing/checkpoints_cleaner.h"

#include "engine/vocabulary/protocol_points.h"
#include "sim/invariant.h"

namespace eosim::engine {

namespace {
constexpr sim::EventKind kDiscardRetry{"coordinator.discard_retry"};
constexpr int32_t kDiscardTries = 10;  // a failed delete is tried again, a heartbeat interval apart
}  // namespace

void CheckpointsCleaner::discard_files(const CompletedCheckpoint& checkpoint, bool completed) {
    int64_t files = 0;
    for (const auto& [where, handle] : checkpoint.handles) {
        if (completed && checkpoint.savepoint)
            continue;  // a completed savepoint's files are the user's
        remove(handle, kDiscardTries);
        ++files;
    }
    if (!checkpoint.metadata_key.empty()) {
        remove(checkpoint.metadata_key, kDiscardTries);
        ++files;
    }
    gateway_.stats().checkpoint_files_discarded += files;
    gateway_.stats().checkpoint_bytes_discarded +=
        checkpoint.state_bytes + checkpoint.metadata_bytes;
}

void CheckpointsCleaner::discard_state(const std::string& key, int64_t bytes) {
    gateway_.stats().checkpoint_files_discarded += 1;
    gateway_.stats().checkpoint_bytes_discarded += bytes;
    remove(key, kDiscardTries);
}

void CheckpointsCleaner::discard_shared(const std::vector<std::string>& keys) {
    if (keys.empty()) return;
    gateway_.world().announce(points::kSharedStateDiscarded, node_,
                              static_cast<int64_t>(keys.size()));
    // A crash at the point unwinds this handler (sim/scheduler.h): the files stay (orphans).
    EOSIM_INVARIANT(gateway_.world().nodes().is_up(node_),
                    "no code runs on a crashed node after an announcement");
    for (const std::string& key : keys) remove(key, kDiscardTries);
    gateway_.stats().shared_files_discarded += static_cast<int64_t>(keys.size());
}

void CheckpointsCleaner::discard_file(const std::string& key) { remove(key, kDiscardTries); }

// The cleaner lives as long as its coordinator's JobManager process: a callback that finds that
// process gone does nothing.
void CheckpointsCleaner::remove(const std::string& key, int32_t tries_left) {
    ExecutionGateway* gateway = &gateway_;
    gateway_.world().storage().remove(
        node_, key,
        [this, gateway, node = node_, instance = instance_, key,
         tries_left](sim::StorageStatus status) {
            if (status != sim::StorageStatus::failed || tries_left <= 1 ||
                gateway->coordinator_on(node, instance) == nullptr)
                return;
            gateway->world().scheduler().schedule(
                gateway->job().runtime.heartbeat_interval, node, kDiscardRetry, 0,
                [this, gateway, node, instance, key, tries_left] {
                    if (gateway->coordinator_on(node, instance) != nullptr)
                        remove(key, tries_left - 1);
                });
        });
}

}  // namespace eosim::engine
