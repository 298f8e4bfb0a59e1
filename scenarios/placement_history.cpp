#include "scenarios/placement_history.h"

#include <map>
#include <utility>

namespace eosim::scenarios {

std::vector<SlotContents> slots_of(const AttemptPlacement& placement) {
    std::map<std::pair<std::string, int32_t>, std::vector<std::string>> by_slot;
    for (const engine::SubtaskPlacement& p : placement.subtasks) {
        by_slot[{p.task_manager, p.slot}].push_back(p.vertex + "-" + std::to_string(p.subtask));
    }
    std::vector<SlotContents> slots;
    for (auto& [where, subtasks] : by_slot)
        slots.push_back(SlotContents{where.first, where.second, std::move(subtasks)});
    return slots;
}

void PlacementHistory::attempt_deployed(sim::Time t, int64_t attempt,
                                        const std::vector<engine::SubtaskPlacement>& placement) {
    placements_.push_back(
        AttemptPlacement{t.seconds(), attempt, history_->attempt_name(attempt), placement});
}

}  // namespace eosim::scenarios
