#include "sim/external/call_races.h"

#include <algorithm>

namespace eosim::sim::external {

namespace {
constexpr EventKind kLateCall{"outside.late_call"};
}

const char* to_string(CallDelivery delivery) {
    switch (delivery) {
        case CallDelivery::now: return "now";
        case CallDelivery::answer_lost: return "answer_lost";
        case CallDelivery::late: return "late";
        case CallDelivery::request_lost: return "request_lost";
    }
    return "?";
}

CallRaces::CallRaces(Scheduler& scheduler) : scheduler_(scheduler) {}

void CallRaces::script(std::vector<RaceStep> steps) {
    script_.insert(script_.end(), steps.begin(), steps.end());
}

void CallRaces::set_races(Ratio ratio, Time until, Prng prng) {
    ratio_ = ratio;
    until_ = until;
    prng_ = prng;
}

void CallRaces::calm() {
    script_.clear();
    ratio_ = Ratio::never();
}

void CallRaces::before_call() {
    for (Held& h : held_) --h.calls_left;
    // In the order they were sent (held_ keeps it); landing one changes nothing in held_ but
    // itself.
    for (size_t i = 0; i < held_.size();) {
        if (held_[i].calls_left <= 0) {
            land(i);
        } else {
            ++i;
        }
    }
}

RaceStep CallRaces::next_write() {
    RaceStep step;
    if (!script_.empty()) {
        step = script_.front();
        script_.pop_front();
    } else if (!ratio_.is_zero() && scheduler_.now() < until_ && prng_.chance(ratio_)) {
        const uint64_t r = prng_.below(5);
        step.delivery = r < 2   ? CallDelivery::answer_lost
                        : r < 4 ? CallDelivery::late
                                : CallDelivery::request_lost;
        step.late_by_calls = static_cast<int32_t>(prng_.between(1, 8));
    }
    if (step.delivery == CallDelivery::answer_lost) ++stats_.answers_lost;
    if (step.delivery == CallDelivery::late) ++stats_.late;
    if (step.delivery == CallDelivery::request_lost) ++stats_.requests_lost;
    return step;
}

void CallRaces::hold(NodeId caller, std::string call, std::function<void()> apply,
                     int32_t late_by_calls) {
    const uint64_t id = next_held_++;
    held_.push_back(
        Held{id, caller, std::max(1, late_by_calls), std::move(call), std::move(apply)});
    scheduler_.schedule(kLateAtMost, kNoNode, kLateCall, id, [this, id] {
        auto it =
            std::find_if(held_.begin(), held_.end(), [id](const Held& h) { return h.id == id; });
        if (it != held_.end()) land(static_cast<size_t>(it - held_.begin()));
    });
}

void CallRaces::land(size_t index) {
    Held held = std::move(held_[index]);
    held_.erase(held_.begin() + static_cast<std::ptrdiff_t>(index));
    ++stats_.landed_late;
    held.apply();
    note(
        held.caller, [&] { return held.call; },
        [] { return std::string("LANDS now (sent earlier; its caller saw a timeout)"); });
}

}  // namespace eosim::sim::external
