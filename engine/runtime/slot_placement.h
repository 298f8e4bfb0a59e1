#pragma once
// Where an attempt's subtasks run: Flink's slot sharing and slot matching, as a function of the
// job and the TaskManagers registered (taken in node order), so the same cluster gives the same
// placement on every seed and after every restart.
//
// - Slot sharing (Flink's SlotSharingGroup): the vertices of one group share slots; slot i of a
//   group holds subtask i of each of its vertices, so a group needs as many slots as its largest
//   parallelism and a job the sum over its groups. A vertex names its group
//   (VertexSpec::slot_sharing_group; every vertex is in "default" unless it says otherwise).
//   Groups ask for their slots in the order their first vertex appears in the job, each group's
//   slots in subtask order.
// - Matching (Flink's SlotManager): by default the first free slot in TaskManager order, so
//   TaskManagers fill one after the other (Flink's AnyMatchingSlotMatchingStrategy takes free slots
//   in registration order; here node order, so it does not depend on who registered first). With
//   `cluster.evenly-spread-out-slots` the free slot of the TaskManager with the lowest share of its
//   slots taken (LeastUtilizationSlotMatchingStrategy); ties go to the first in node order. Within
//   a TaskManager, the lowest free slot index.
//
// Not modelled: co-location groups, fine-grained resource profiles, the local-input preference of
// Flink's slot sharing strategy (subtask i of each vertex of a group shares slot i, which is what
// it gives along forward edges), and slots kept across a restart (every attempt is placed afresh
// over the TaskManagers registered then; the same ones give the same placement).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/vocabulary/job_spec.h"
#include "sim/trace.h"

namespace eosim::engine {

// A registered TaskManager and its number of slots (Flink's taskmanager.numberOfTaskSlots).
struct SlotOffer {
    sim::NodeId task_manager = sim::kNoNode;
    int32_t slots = 0;
};

// Where one subtask runs: its TaskManager and the slot there (0-based, per TaskManager).
struct SlotAssignment {
    sim::NodeId task_manager = sim::kNoNode;
    int32_t slot = -1;
};

struct SlotSharingGroupNeed {
    std::string group;
    int32_t slots = 0;  // its largest parallelism
};

// The job's slot sharing groups in the order their first vertex appears, with the slots each needs.
std::vector<SlotSharingGroupNeed> slot_sharing_groups(const JobSpec& job);
// The slots the job needs: the sum over its groups.
int32_t slots_needed(const JobSpec& job);

// [vertex][subtask] -> where it runs; nullopt when the offers hold fewer slots than the job needs.
// `offers` in node order.
std::optional<std::vector<std::vector<SlotAssignment>>> place_subtasks(
    const JobSpec& job, const std::vector<SlotOffer>& offers, bool evenly_spread_out_slots);

}  // namespace eosim::engine
