#include "scenarios/run/back_pressure.h"

#include "engine/runtime/task.h"
#include "engine/runtime/task_manager.h"

namespace eosim::scenarios {

void BackPressureSampler::sample_before(sim::Time next, engine::Engine& engine) {
    if (next <= next_) return;
    int64_t samples = 0;
    while (next_ < next) {
        ++samples;
        next_ += kStep;
    }
    for (sim::NodeId node : engine.task_manager_nodes()) {
        const engine::TaskManager* tm = engine.task_manager(node);
        if (tm == nullptr || !engine.world().nodes().is_up(node)) continue;
        tm->for_each_task([&](const engine::Task& task) {
            if (!task.running()) return;
            auto [it, fresh] = by_vertex_.try_emplace(task.vertex().id);
            if (fresh) order_.push_back(task.vertex().id);
            Counts& c = it->second;
            if (task.busy()) {
                c.busy += samples;
            } else if (task.backpressured()) {
                c.backpressured += samples;
            } else {
                c.idle += samples;
            }
        });
    }
}

std::vector<VertexBackPressure> BackPressureSampler::shares() const {
    std::vector<VertexBackPressure> out;
    for (const std::string& vertex : order_) {
        const Counts& c = by_vertex_.at(vertex);
        const double total = static_cast<double>(c.busy + c.backpressured + c.idle);
        if (total == 0) continue;
        out.push_back(VertexBackPressure{vertex, static_cast<double>(c.busy) / total, static_cast<double>(c.backpressured) / total,
                                         static_cast<double>(c.idle) / total, c.busy + c.backpressured + c.idle});
    }
    return out;
}

}  // namespace eosim::scenarios
