#include "engine/checkpointing/shared_state_registry.h"

#include <algorithm>

namespace eosim::engine {

std::vector<std::string> SharedStateRegistry::keys_of(const CompletedCheckpoint& checkpoint) {
    std::vector<std::string> keys = checkpoint.older_shared;
    for (const auto& [where, files] : checkpoint.shared)
        keys.insert(keys.end(), files.begin(), files.end());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return keys;
}

void SharedStateRegistry::add_references(const std::vector<std::string>& keys) {
    for (const std::string& key : keys) ++references_[key];
}

std::vector<std::string> SharedStateRegistry::release(const std::vector<std::string>& keys) {
    std::vector<std::string> unreferenced;
    for (const std::string& key : keys) {
        auto it = references_.find(key);
        if (it == references_.end()) continue;
        if (--it->second > 0) continue;
        references_.erase(it);
        unreferenced.push_back(key);
    }
    return unreferenced;
}

int32_t SharedStateRegistry::references(const std::string& key) const {
    auto it = references_.find(key);
    return it == references_.end() ? 0 : it->second;
}

SharedStateRegistry SharedStateRegistry::rebuild(const std::deque<CompletedCheckpoint>& retained) {
    SharedStateRegistry registry;
    for (const CompletedCheckpoint& checkpoint : retained)
        registry.add_references(keys_of(checkpoint));
    return registry;
}

}  // namespace eosim::engine
