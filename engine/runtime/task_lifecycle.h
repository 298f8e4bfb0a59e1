#pragma once
// A task's lifecycle (Flink's ExecutionState, as the task itself sees it), with its transitions
// checked: each state names the states it may be entered from, and any other transition is an
// invariant failure (engine/invariant.h).
//
//   created ──> restoring ──> ready ──> running ──> finished
//      └────────────┴───────────┴──────────┴────────────┴──> failed
//
// created: deployed, nothing read. restoring: reading its state from the checkpoint to restore.
// ready: restored and reported to the JobManager, waiting for its start. running: processing (a
// task deployed finished goes on to finished at once). finished (FLIP-147): end of partition sent
// through every output. failed: waiting to be cancelled; terminal, as finished is but for failing.
#include <cstdint>

namespace eosim::engine {

class TaskLifecycle {
public:
    enum class State : uint8_t { created, restoring, ready, running, finished, failed };

    State state() const { return state_; }
    // Moves to `next`, an invariant failure unless the current state is one `next` may follow.
    void transition_to(State next);
    // Whether `next` may follow `from` (the table transition_to checks).
    static bool valid(State from, State next);

private:
    State state_ = State::created;
};

}  // namespace eosim::engine
