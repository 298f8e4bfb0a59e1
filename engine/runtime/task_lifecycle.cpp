#include "engine/runtime/task_lifecycle.h"

#include "sim/invariant.h"

namespace eosim::engine {

bool TaskLifecycle::valid(State from, State next) {
    switch (next) {
        case State::created: return false;  // only where a task begins
        case State::restoring: return from == State::created;
        case State::ready: return from == State::restoring;
        case State::running: return from == State::ready;
        case State::finished: return from == State::running;
        case State::failed: return from != State::failed;
    }
    return false;
}

void TaskLifecycle::transition_to(State next) {
    EOSIM_INVARIANT(
        valid(state_, next),
        "a task moves only along its lifecycle (created, restoring, ready, running, finished; failed from any but failed)");
    state_ = next;
}

}  // namespace eosim::engine
