#pragma once
// Back pressure per vertex as Flink reports it (busyTimeMsPerSecond, backPressuredTimeMsPerSecond,
// idleTimeMsPerSecond; the web UI's Back Pressure tab): the share of time its running subtasks were
// busy (processing a buffer, or a source polling), backpressured (not busy, output full: more
// buffers queued on a channel than it has credits) or idle. Sampled every kStep of virtual time
// from the engine running then, between events -- reading only, so the run and its trace hash are
// the same with or without it.
//
// Not here: per-subtask figures (the vertex's subtasks are added up), and time a task spends
// blocked for another reason than its output (an aligning channel is idle here, as in Flink).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/runtime/engine.h"
#include "engine/runtime/task.h"
#include "scenarios/run_result.h"

namespace eosim::scenarios {

class BackPressureSampler {
public:
    static constexpr sim::Duration kStep = sim::Duration::millis(10);
    // Samples `engine` from now on: the run loop calls it whenever the current deployment changes
    // (between two run_until calls), before asking sample_before.
    void follow(engine::Engine& engine);
    // Takes the samples due before `next` (when the next event is due) from the followed engine's
    // running tasks: their state now lasts until then. Inline: asked before every event, and most
    // events have no sample due before the next one.
    void sample_before(sim::Time next) {
        if (next > next_) sample(next);
    }
    std::vector<VertexBackPressure> shares() const;

private:
    struct Counts {
        int64_t busy = 0, backpressured = 0, idle = 0;
    };
    void sample(sim::Time next);
    // The entry of `task`'s vertex in by_vertex_ (created, and its vertex listed, when first seen).
    // Inline: a sample asks it for every running task, and after a vertex's first sample it is one
    // index into of_vertex_.
    Counts& counts_of(const engine::Task& task) {
        Counts* known = of_vertex_[static_cast<size_t>(task.key().vertex)];
        return known != nullptr ? *known : first_counts_of(task);
    }
    Counts& first_counts_of(const engine::Task& task);

    sim::Time next_ = sim::Time::zero();
    engine::Engine* engine_ = nullptr;
    std::map<std::string, Counts> by_vertex_;
    std::vector<std::string> order_;  // vertices in the order first seen
    // The followed engine's vertex index (TaskKey::vertex) -> its entry in by_vertex_, or null
    // before its first sample: a sample visits every running task, and a lookup by the vertex's
    // name each time would be most of a run's sampling cost.
    std::vector<Counts*> of_vertex_;
};

}  // namespace eosim::scenarios
