#include "oracles/state_after_restore_oracle.h"

#include <cstdio>

namespace eosim::oracles {

void StateAfterRestoreOracle::restore_started(sim::Time, int64_t attempt, int64_t checkpoint_id,
                                              const engine::SourceOffsets& offsets) {
    restores_[attempt] = Restore{checkpoint_id, offsets, {}, {}};
}

void StateAfterRestoreOracle::keyed_state_restored(sim::Time at, int64_t attempt, const std::string& vertex,
                                                   int32_t subtask, const std::map<int64_t, int64_t>& state) {
    auto it = restores_.find(attempt);
    if (it == restores_.end() || it->second.checkpoint_id == 0) return;
    Restore& restore = it->second;
    if (!restore.subtasks[vertex].insert(subtask).second) return;
    restore.loaded[vertex].insert(state.begin(), state.end());
    if (static_cast<int32_t>(restore.subtasks[vertex].size()) == job_.find(vertex)->parallelism) check(at, restore, vertex);
}

void StateAfterRestoreOracle::check(sim::Time at, const Restore& restore, const std::string& vertex) {
    ++restores_checked_;
    if (violation_) return;
    const auto expected = model_.keyed_state(vertex, restore.offsets);
    const auto& actual = restore.loaded.at(vertex);
    if (expected == actual) return;
    // The first key (in key order) whose value differs or is present on one side only.
    auto e = expected.begin();
    auto a = actual.begin();
    std::string detail;
    while (e != expected.end() || a != actual.end()) {
        if (a == actual.end() || (e != expected.end() && e->first < a->first)) {
            detail = "key " + std::to_string(e->first) + ": expected " + std::to_string(e->second) + ", restored nothing";
            break;
        }
        if (e == expected.end() || a->first < e->first) {
            detail = "key " + std::to_string(a->first) + ": expected nothing, restored " + std::to_string(a->second);
            break;
        }
        if (e->second != a->second) {
            detail = "key " + std::to_string(e->first) + ": expected " + std::to_string(e->second) + ", restored " +
                     std::to_string(a->second) + (a->second > e->second ? " (over-counted)" : " (under-counted)");
            break;
        }
        ++e;
        ++a;
    }
    char when[32];
    std::snprintf(when, sizeof when, "%.3f", at.seconds());
    violation_ = "restore of checkpoint " + std::to_string(restore.checkpoint_id) + " at t=" + when + "s, vertex '" +
                 vertex + "': " + detail;
}

Verdict StateAfterRestoreOracle::verdict() const {
    if (violation_) return Verdict{false, *violation_};
    return Verdict{true, std::to_string(restores_checked_) + " restored keyed states matched the model"};
}

}  // namespace eosim::oracles
