#include "engine/runtime/slot_placement.h"

#include <algorithm>

namespace eosim::engine {

std::vector<SlotSharingGroupNeed> slot_sharing_groups(const JobSpec& job) {
    std::vector<SlotSharingGroupNeed> groups;
    for (const VertexSpec& vertex : job.vertices) {
        const std::string& name = vertex.sharing_group();
        auto it = std::find_if(groups.begin(), groups.end(),
                               [&name](const SlotSharingGroupNeed& g) { return g.group == name; });
        if (it == groups.end()) {
            groups.push_back(SlotSharingGroupNeed{name, vertex.parallelism});
        } else {
            it->slots = std::max(it->slots, vertex.parallelism);
        }
    }
    return groups;
}

int32_t slots_needed(const JobSpec& job) {
    int32_t needed = 0;
    for (const SlotSharingGroupNeed& group : slot_sharing_groups(job)) needed += group.slots;
    return needed;
}

namespace {

// The free slots of each offer, lowest index first, and how many are taken.
struct TaskManagerSlots {
    sim::NodeId task_manager;
    int32_t total;
    int32_t taken = 0;
};

// The offer the next slot comes from: the first with a free slot, or (evenly spread) the one with
// the lowest share taken, taken / total compared exactly by cross-multiplying; ties to the first.
size_t pick(const std::vector<TaskManagerSlots>& tms, bool evenly_spread_out_slots) {
    size_t best = tms.size();
    for (size_t i = 0; i < tms.size(); ++i) {
        if (tms[i].taken >= tms[i].total) continue;
        if (!evenly_spread_out_slots) return i;
        if (best == tms.size() ||
            int64_t{tms[i].taken} * tms[best].total < int64_t{tms[best].taken} * tms[i].total) {
            best = i;
        }
    }
    return best;
}

}  // namespace

std::optional<std::vector<std::vector<SlotAssignment>>> place_subtasks(
    const JobSpec& job, const std::vector<SlotOffer>& offers, bool evenly_spread_out_slots) {
    std::vector<TaskManagerSlots> tms;
    int32_t free = 0;
    for (const SlotOffer& offer : offers) {
        if (offer.slots <= 0) continue;
        tms.push_back(TaskManagerSlots{offer.task_manager, offer.slots});
        free += offer.slots;
    }
    if (free < slots_needed(job)) return std::nullopt;
    std::vector<std::vector<SlotAssignment>> placement(job.vertices.size());
    for (const SlotSharingGroupNeed& group : slot_sharing_groups(job)) {
        for (int32_t s = 0; s < group.slots; ++s) {
            TaskManagerSlots& tm = tms[pick(tms, evenly_spread_out_slots)];
            const SlotAssignment slot{tm.task_manager, tm.taken++};
            for (size_t v = 0; v < job.vertices.size(); ++v) {
                const VertexSpec& vertex = job.vertices[v];
                if (vertex.sharing_group() == group.group && s < vertex.parallelism)
                    placement[v].push_back(slot);
            }
        }
    }
    return placement;
}

}  // namespace eosim::engine
