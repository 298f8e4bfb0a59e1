#include "scenarios/run/back_pressure.h"

#include "engine/runtime/task.h"
#include "engine/runtime/task_manager.h"

namespace eosim::scenarios {

void BackPressureSampler::follow(engine::Engine& engine) {
    engine_ = &engine;
    of_vertex_.assign(engine.job().vertices.size(), nullptr);
}

BackPressureSampler::Counts& BackPressureSampler::first_counts_of(const engine::Task& task) {
    auto [it, fresh] = by_vertex_.try_emplace(task.vertex().id);
    if (fresh) order_.push_back(task.vertex().id);
    Counts& counts = it->second;
    of_vertex_[static_cast<size_t>(task.key().vertex)] = &counts;
    return counts;
}

void BackPressureSampler::sample(sim::Time next) {
    int64_t samples = 0;
    while (next_ < next) {
        ++samples;
        next_ += kStep;
    }
    if (engine_ == nullptr) return;
    for (sim::NodeId node : engine_->task_manager_nodes()) {
        const engine::TaskManager* tm = engine_->task_manager(node);
        if (tm == nullptr || !engine_->world().nodes().is_up(node)) continue;
        tm->for_each_task([&](const engine::Task& task) {
            if (!task.running()) return;
            Counts& c = counts_of(task);
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
        out.push_back(VertexBackPressure{vertex, static_cast<double>(c.busy) / total,
                                         static_cast<double>(c.backpressured) / total,
                                         static_cast<double>(c.idle) / total,
                                         c.busy + c.backpressured + c.idle});
    }
    return out;
}

}  // namespace eosim::scenarios
