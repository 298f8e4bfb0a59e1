#include "scenarios/run/committed_cuts.h"

namespace eosim::scenarios {

void CommittedCuts::checkpoint_triggered(sim::Time, int64_t id, engine::SnapshotType type) {
    if (type.is_savepoint() && !type.terminates()) intermediate_savepoints_[id] = true;
}

void CommittedCuts::checkpoint_completed(sim::Time, int64_t id,
                                         const engine::SourceOffsets& offsets) {
    if (intermediate_savepoints_.contains(id)) return;
    cuts_.push_back(Cut{"checkpoint " + std::to_string(id), offsets});
}

void CommittedCuts::restore_started(sim::Time, int64_t, int64_t id,
                                    const engine::SourceOffsets& offsets) {
    if (id == 0) return;
    const std::string name = "checkpoint " + std::to_string(id);
    if (cuts_.size() == 1 && cuts_.front().offsets != offsets) {
        cuts_.front() = Cut{"snapshot " + std::to_string(id) + " (the start)", offsets};
        return;
    }
    for (const Cut& cut : cuts_) {
        if (cut.name == name || cut.offsets == offsets) return;
    }
    cuts_.push_back(Cut{name, offsets});
}

void CommittedCuts::deployment_started(const engine::SourceOffsets& from) {
    cuts_.assign(1, Cut{"the deployment's start", from});
    intermediate_savepoints_.clear();
}

oracles::CommittedPrefix CommittedCuts::prefix(const std::string& failure) const {
    const Cut& upper = cuts_.back();
    const Cut& lower = cuts_.size() >= 2 ? cuts_[cuts_.size() - 2] : upper;
    return oracles::CommittedPrefix{lower.offsets, upper.offsets, lower.name, upper.name, failure};
}

}  // namespace eosim::scenarios
