#pragma once
// Calls that race: the delivery of a client's write to an outside system, as
// a real network and a real server may deliver it. An admitted write is delivered
//   - now: applied, answered (every call, unless races are switched on);
//   - answer_lost: applied, but the answer never comes back: the caller sees `timeout` (a retry
//     then lands a second time unless the write is idempotent);
//   - late: not applied yet; the caller sees `timeout`; the request lands later, just before the
//     `late_by_calls`-th following call to the system (whoever makes it: another client's write
//     may land first, or the caller's own retry), and at the latest `kLateAtMost` after it was
//     sent;
//   - request_lost: never applied; the caller sees `timeout`.
// A timeout therefore tells the caller nothing about whether its write applied, will apply, or
// never will. Reads are never raced (a lost read answer is a failed read); a read counts as a call
// for the late requests' turns.
//
// Where the deliveries come from: a script (the testkit's contract level draws them as a command,
// so a failing case shrinks to the deliveries that matter) or, in a fault window, a seeded draw per
// write (`set_races`, the `system_call_races` fault kind: with `ratio` a write races; of those, 2
// in 5 lose their answer, 2 in 5 land late by 1-8 calls, 1 in 5 is lost). Deterministic by seed.
//
// The call log: every call of a system (reads and writes, with their arguments and answers, and
// late writes when they land) is reported to a log function when one is set (the testkit's
// counterexamples); building the text costs nothing when none is set.
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

enum class CallDelivery : uint8_t { now, answer_lost, late, request_lost };
const char* to_string(CallDelivery delivery);

struct RaceStep {
    CallDelivery delivery = CallDelivery::now;
    int32_t late_by_calls = 1;  // late: lands before the n-th following call (1..)
};

struct CallNote {
    NodeId caller = kNoNode;
    std::string call;    // e.g. "SET k3 7", "bulk [index auto-id {...}]"
    std::string answer;  // e.g. "ok", "timeout (applied, answer lost)", "LANDS (sent earlier,
                         // answered timeout)"
};

struct CallRaceStats {
    uint64_t answers_lost = 0;   // applied, the caller saw a timeout
    uint64_t late = 0;           // held, the caller saw a timeout
    uint64_t requests_lost = 0;  // never applied, the caller saw a timeout
    uint64_t landed_late = 0;    // held writes that landed
};

class CallRaces {
public:
    static constexpr Duration kLateAtMost = Duration::seconds(1);

    explicit CallRaces(Scheduler& scheduler);
    CallRaces(const CallRaces&) = delete;
    CallRaces& operator=(const CallRaces&) = delete;

    // The next admitted writes get these deliveries, in order, after those scripted before (then
    // `now` again, or the random draw).
    void script(std::vector<RaceStep> steps);
    // Before `until`, each admitted write races with `ratio` (drawn from `prng`).
    void set_races(Ratio ratio, Time until, Prng prng);
    // No more races (scripted or drawn); writes already held still land.
    void calm();

    // Called at every admitted call, before it is applied: the held writes whose turn has come
    // land.
    void before_call();
    // How the admitted write from `caller` is delivered.
    RaceStep next_write();
    // Holds a write (`apply` owns what it needs) to land later.
    void hold(NodeId caller, std::string call, std::function<void()> apply, int32_t late_by_calls);
    size_t held() const { return held_.size(); }
    const CallRaceStats& stats() const { return stats_; }

    void set_log(std::function<void(const CallNote&)> log) { log_ = std::move(log); }
    bool logging() const { return static_cast<bool>(log_); }
    // Notes one call; `call` and `answer` are built only when a log is set.
    void note(NodeId caller, const std::function<std::string()>& call,
              const std::function<std::string()>& answer) const {
        if (log_) log_(CallNote{caller, call(), answer()});
    }

private:
    struct Held {
        uint64_t id = 0;
        NodeId caller = kNoNode;
        int32_t calls_left = 1;
        std::string call;
        std::function<void()> apply;
    };
    void land(size_t index);

    Scheduler& scheduler_;
    std::deque<RaceStep> script_;
    Ratio ratio_ = Ratio::never();
    Time until_ = Time::zero();
    Prng prng_{0};
    std::vector<Held> held_;
    uint64_t next_held_ = 1;
    CallRaceStats stats_;
    std::function<void(const CallNote&)> log_;
};

}  // namespace eosim::sim::external
