#include "engine/checkpointing/checkpoint_retention.h"

#include <algorithm>

#include "engine/checkpointing/shared_state_registry.h"
#include "sim/invariant.h"

namespace eosim::engine {

std::vector<CompletedCheckpoint> CheckpointRetention::add(CompletedCheckpoint checkpoint) {
    EOSIM_INVARIANT(completed_.empty() || checkpoint.id > completed_.back().id,
                    "checkpoints complete in increasing id order");
    completed_.push_back(std::move(checkpoint));
    return trim();
}

std::vector<CompletedCheckpoint> CheckpointRetention::restore(
    std::vector<CompletedCheckpoint> retained, const std::vector<std::string>& older_shared) {
    completed_.assign(std::make_move_iterator(retained.begin()),
                      std::make_move_iterator(retained.end()));
    std::vector<CompletedCheckpoint> gone = trim();  // Flink's store keeps `retained` too
    if (completed_.size() >= 2) completed_[completed_.size() - 2].older_shared = older_shared;
    return gone;
}

std::vector<CompletedCheckpoint> CheckpointRetention::trim() {
    std::vector<CompletedCheckpoint> gone;
    while (static_cast<int32_t>(completed_.size()) > retained_) {
        gone.push_back(std::move(completed_.front()));
        completed_.pop_front();
    }
    return gone;
}

std::vector<std::string> CheckpointRetention::older_retained_shared() const {
    std::vector<std::string> keys;
    const size_t keep = static_cast<size_t>(std::max(retained_ - 1, 0));
    const size_t from = completed_.size() > keep ? completed_.size() - keep : 0;
    for (size_t i = from; i < completed_.size(); ++i) {
        const std::vector<std::string> held = SharedStateRegistry::keys_of(completed_[i]);
        keys.insert(keys.end(), held.begin(), held.end());
    }
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

bool CheckpointRetention::refers_to(const std::string& key) const {
    return std::any_of(completed_.begin(), completed_.end(),
                       [&key](const CompletedCheckpoint& c) { return engine::refers_to(c, key); });
}

std::vector<CompletedCheckpoint> CheckpointRetention::subsumed_savepoints() {
    std::vector<CompletedCheckpoint> subsumed;
    if (completed_.empty()) return subsumed;
    while (!savepoints_.empty() && savepoints_.front().id < completed_.front().id) {
        subsumed.push_back(std::move(savepoints_.front()));
        savepoints_.pop_front();
    }
    return subsumed;
}

bool refers_to(const CompletedCheckpoint& checkpoint, const std::string& key) {
    return std::any_of(checkpoint.handles.begin(), checkpoint.handles.end(),
                       [&key](const auto& h) { return h.second == key; });
}

}  // namespace eosim::engine
