// The contract harness's asynchronous calls in flight: each step of virtual time, the calls that
// end, the answers held back, and a subtask waiting for its requests before a pre-commit.
#include <limits>
#include <string>

#include "testkit/contract_harness.h"
#include "testkit/contract_instances.h"

namespace eosim::testkit {

void ContractHarness::run_time(int64_t millis) {
    const sim::Time until = world_.now() + sim::Duration::millis(millis);
    world_.scheduler().schedule_at(until, sim::kNoNode, kTick, 0, [] {});
    world_.scheduler().run_until(until);
}

void ContractHarness::advance(int64_t millis) {
    log_calls();  // the previous step's; the calls of timers and late answers in these millis are
                  // this step's
    // The calls in flight now end first (a few ms each), oldest first; calls their answers make
    // stay in flight.
    const uint64_t last = calls_in_flight_.empty() ? 0 : calls_in_flight_.back().seq;
    while (!calls_in_flight_.empty() && calls_in_flight_.front().seq <= last) take_step(0);
    run_time(millis);
    line(std::to_string(millis) + " ms pass", true);
    fail_over_if_failed();
}

void ContractHarness::hold_call(Subtask& caller, engine::SinkContext::AsyncCall call) {
    ++calls_sent_;
    const std::string system = call.system == &objects_     ? "objects"
                               : call.system == &documents_ ? "documents"
                                                            : "key_values";
    calls_.push_back("       " + caller.name() + " -> " + system + ": call #" +
                     std::to_string(call.id) + " SENT (in flight)");
    calls_in_flight_.push_back(InFlight{&caller, system, std::move(call), false, calls_sent_});
    if (paths_ != nullptr) ++paths_->effects["asynchronous calls sent"];
}

void ContractHarness::take_step(size_t index) {
    run_time(kLegMillis);  // the leg travels (timers due meanwhile fire; none drops a call of a
                           // live instance)
    if (index >= calls_in_flight_.size()) return;
    InFlight& step = calls_in_flight_[index];
    const std::string call =
        "       call #" + std::to_string(step.call.id) + " of " + step.caller->name();
    if (!step.landed) {
        step.landed = true;
        calls_.push_back(
            call + ": its request LANDS at " + step.system +
            (calls_in_flight_.size() > 1 && index > 0 ? " (overtaking older calls)" : ""));
        const std::function<void()> land = std::move(step.call.land);
        land();  // the system notes the call it applies
        return;
    }
    InFlight done = std::move(step);
    calls_in_flight_.erase(calls_in_flight_.begin() + static_cast<std::ptrdiff_t>(index));
    const auto state = done.caller->incarnation->state;
    const bool reachable =
        state != Incarnation::State::crashed;  // a closed instance still gets its late answers
    calls_.push_back(call + ": its answer " +
                     (reachable ? "reaches it" : "is dropped (the instance is gone)") +
                     (index > 0 ? " (overtaking older calls)" : ""));
    if (!reachable) return;
    if (paths_ != nullptr && state != Incarnation::State::live)
        ++paths_->effects["asynchronous answers delivered to a closed (zombie) instance"];
    if (paths_ != nullptr && index > 0)
        ++paths_->effects["asynchronous calls overtaking older ones"];
    done.call.answer();
}

void ContractHarness::step_call(int32_t pick) {
    if (calls_in_flight_.empty()) return;
    log_calls();
    const size_t index = static_cast<size_t>(pick) % calls_in_flight_.size();
    const bool lands = !calls_in_flight_[index].landed;
    take_step(index);
    line(std::string("one call in flight ") + (lands ? "lands" : "is answered") + " (#" +
             std::to_string(index + 1) + " of those in flight)",
         true);
    fail_over_if_failed();
}

bool ContractHarness::wait_for_flush(Subtask& subtask, int64_t id,
                                     const std::vector<int32_t>& call_picks) {
    Incarnation& incarnation = *subtask.incarnation;
    const auto state = incarnation.state;
    for (size_t round = 0; round < kFlushSteps; ++round) {
        if (subtask.sink->prepare_pre_commit(id)) return incarnation.state == state;
        if (incarnation.state != state || violation_) return false;
        if (round == 0)
            calls_.push_back(
                "       " + subtask.name() +
                " is not ready to pre-commit (prepare_pre_commit): it waits, taking no input");
        if (calls_in_flight_.empty()) {
            run_time(10);  // its own timers (a back-off) may be what it waits for
            continue;
        }
        const size_t pick = round < call_picks.size() ? static_cast<size_t>(call_picks[round]) : 0;
        take_step(pick % calls_in_flight_.size());
    }
    violation_ = subtask.name() + " never got ready to pre-commit checkpoint " +
                 std::to_string(id) + ": prepare_pre_commit said false through " +
                 std::to_string(kFlushSteps) +
                 " steps of calls in flight (or 10 ms each with none)";
    return false;
}

}  // namespace eosim::testkit
