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
#include "scenarios/run_result.h"

namespace eosim::scenarios {

class BackPressureSampler {
public:
    static constexpr sim::Duration kStep = sim::Duration::millis(10);
    // Takes the samples due before `next` (when the next event is due) from `engine`'s running
    // tasks: their state now lasts until then.
    void sample_before(sim::Time next, engine::Engine& engine);
    std::vector<VertexBackPressure> shares() const;

private:
    struct Counts {
        int64_t busy = 0, backpressured = 0, idle = 0;
    };
    sim::Time next_ = sim::Time::zero();
    std::map<std::string, Counts> by_vertex_;
    std::vector<std::string> order_;  // vertices in the order first seen
};

}  // namespace eosim::scenarios
