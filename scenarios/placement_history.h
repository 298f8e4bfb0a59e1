#pragma once
// Where every attempt ran, as Flink's web UI shows a job's subtasks with their TaskManager and
// slot: one entry per attempt deployed (each deployment's first, each restart, each new
// JobManager's), named as the job's history names it ("v1/2"), with each subtask's TaskManager and
// slot (engine/runtime/slot_placement.h). The reports group it by TaskManager and slot.
//
// Not here: what a slot costs or holds beyond its subtasks (no resource profiles are modelled).
#include <cstdint>
#include <string>
#include <vector>

#include "engine/vocabulary/run_observer.h"
#include "scenarios/job_history.h"

namespace eosim::scenarios {

struct AttemptPlacement {
    double at_s = 0;
    int64_t attempt = 0;                             // raw
    std::string attempt_name;                        // "v1/2"
    std::vector<engine::SubtaskPlacement> subtasks;  // vertex by vertex, in subtask order
};

// One slot's subtasks: "tm0 slot 1: source-1 count-1 sink-1".
struct SlotContents {
    std::string task_manager;
    int32_t slot = 0;
    std::vector<std::string> subtasks;  // "count-1", in the job's vertex order
};
// The attempt's slots in TaskManager name order, then slot order.
std::vector<SlotContents> slots_of(const AttemptPlacement& placement);

class PlacementHistory final : public engine::RunObserver {
public:
    // `history` names the attempts (it must hear restore_started first).
    explicit PlacementHistory(const JobHistory* history) : history_(history) {}
    void attempt_deployed(sim::Time t, int64_t attempt,
                          const std::vector<engine::SubtaskPlacement>& placement) override;
    const std::vector<AttemptPlacement>& placements() const { return placements_; }

private:
    const JobHistory* history_;
    std::vector<AttemptPlacement> placements_;
};

}  // namespace eosim::scenarios
