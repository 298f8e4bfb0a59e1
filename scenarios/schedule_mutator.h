#pragma once
// Mutations of an explicit fault schedule, for `eosim explore --strategy guided`: the
// greybox fuzzer's "havoc" step over a list of `sim::FaultSpec`s instead of bytes. One call makes
// one mutant with one or more of:
//   shift   a time-triggered fault moves by up to +-2 s (within the random section's window and
//           quiet period); a point-triggered one changes its occurrence by +-1..3 (at least 1) or
//           its delay after the point;
//   swap    two faults of the same trigger form (two times, two points) exchange their triggers;
//   add     one fault drawn as the scenario's faults.random draws them (needs that section);
//   remove  one fault goes;
//   retarget  a crash, pause or partition hits another of the random section's candidate nodes;
//   aim     a fault moves to the k-th (1..3) announcement of one of the random section's
//           point_triggers points, half the time only after a failover, up to 200 ms after it;
//   splice  a copy of one of another corpus entry's faults joins (with a donor schedule).
// Every draw comes from the PRNG handed in, so a mutant is a function of (schedule, prng seed).
//
// What it keeps: every fault valid for the loader (points and node names are only ever taken from
// the schedule itself or from the random section, which the loader checked); a drawn fault's
// effect ends by the quiet period, as drawn ones do.
// What it does not do: run anything, or judge whether a mutant is interesting (exploration.h).
#include <optional>
#include <string>
#include <vector>

#include "scenarios/random_faults.h"
#include "sim/fault_plan.h"
#include "sim/prng.h"

namespace eosim::scenarios {

struct ScheduleMutant {
    std::vector<sim::FaultSpec> faults;
    std::string how;  // the mutations applied, e.g. "shift 2, remove 0"
};

// `random` is the scenario's faults.random section (nullopt: no add, retarget or aim); `donor`
// another schedule to splice from (null: no splice).
ScheduleMutant mutate_schedule(const std::vector<sim::FaultSpec>& faults,
                               const std::optional<RandomFaults>& random, sim::Prng& prng,
                               const std::vector<sim::FaultSpec>* donor = nullptr);

}  // namespace eosim::scenarios
