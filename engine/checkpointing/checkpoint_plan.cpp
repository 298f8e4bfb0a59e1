#include "engine/checkpointing/checkpoint_plan.h"

#include <algorithm>

namespace eosim::engine {

namespace {

// Whether every subtask that (vertex, subtask) reads from has finished (true for a source).
bool upstream_finished(const JobSpec& job, int32_t vertex, int32_t subtask,
                       const std::set<SubtaskId>& finished) {
    for (const InputEdge& edge : job.vertices[static_cast<size_t>(vertex)].inputs) {
        const int32_t producer = job.vertex_index(edge.from);
        const int32_t parallelism = job.vertices[static_cast<size_t>(producer)].parallelism;
        for (int32_t p = 0; p < parallelism; ++p) {
            if (edge.kind == EdgeKind::forward && p != subtask) continue;
            if (!finished.contains({producer, p})) return false;
        }
    }
    return true;
}

}  // namespace

CheckpointPlan plan_checkpoint(const JobSpec& job, const std::set<SubtaskId>& finished) {
    CheckpointPlan plan;
    for (int32_t v = 0; v < static_cast<int32_t>(job.vertices.size()); ++v) {
        for (int32_t s = 0; s < job.vertices[static_cast<size_t>(v)].parallelism; ++s) {
            if (finished.contains({v, s})) {
                plan.finished.insert({v, s});
                continue;
            }
            plan.to_wait_for.insert({v, s});
            if (upstream_finished(job, v, s, finished)) plan.to_trigger.push_back({v, s});
        }
    }
    return plan;
}

std::optional<CheckpointPlan> plan_savepoint(const JobSpec& job,
                                             const std::set<SubtaskId>& finished) {
    CheckpointPlan plan = plan_checkpoint(job, finished);
    for (const SubtaskId& s : plan.finished) {
        if (!is_source_kind(job.vertices[static_cast<size_t>(s.first)].kind)) return std::nullopt;
        plan.to_trigger.push_back(s);
        plan.to_wait_for.insert(s);
    }
    std::sort(plan.to_trigger.begin(), plan.to_trigger.end());
    plan.finished.clear();
    return plan;
}

}  // namespace eosim::engine
