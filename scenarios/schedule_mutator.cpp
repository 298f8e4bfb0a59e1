#include "scenarios/schedule_mutator.h"

#include <algorithm>
#include <utility>

#include "scenarios/fault_types.h"

namespace eosim::scenarios {

namespace {

constexpr int64_t kScheduleShiftMaxMs = 2000;

// How long a fault's effect lasts once fired (a crash: until the restart; without one, 0).
sim::Duration mutator_effect_length(const sim::FaultSpec& f) {
    return fault_type(f.kind).effect_length(f).value_or(sim::Duration::zero());
}

bool mutator_shift(std::vector<sim::FaultSpec>& faults, const std::optional<RandomFaults>& random,
                   sim::Prng& prng) {
    if (faults.empty()) return false;
    sim::FaultSpec& f = faults[prng.below(faults.size())];
    if (f.trigger.point.empty()) {
        const int64_t ms = prng.between(-kScheduleShiftMaxMs, kScheduleShiftMaxMs);
        int64_t at = f.trigger.at.ns + ms * 1'000'000;
        const int64_t low = random ? random->window_from.ns : 0;
        int64_t high = random ? random->quiet_after.ns - mutator_effect_length(f).ns : at;
        high = std::max(high, low);
        f.trigger.at = sim::Time{std::clamp(at, low, high)};
        return true;
    }
    if (prng.below(4) == 0) {
        f.trigger.delay = sim::Duration::millis(prng.between(0, 500));
    } else {
        const int32_t step = static_cast<int32_t>(prng.between(1, 3));
        f.trigger.occurrence = prng.below(2) == 0 ? f.trigger.occurrence + step
                                                  : std::max(1, f.trigger.occurrence - step);
    }
    return true;
}

// Two faults of the same trigger form exchange their triggers: two times, or two points (a crash
// at a point may have no nodes, "the announcer", which a time trigger cannot take).
bool mutator_swap(std::vector<sim::FaultSpec>& faults, sim::Prng& prng) {
    if (faults.size() < 2) return false;
    const size_t a = prng.below(faults.size());
    std::vector<size_t> partners;
    for (size_t i = 0; i < faults.size(); ++i) {
        if (i != a && faults[i].trigger.point.empty() == faults[a].trigger.point.empty())
            partners.push_back(i);
    }
    if (partners.empty()) return false;
    const size_t b = partners[prng.below(partners.size())];
    std::swap(faults[a].trigger, faults[b].trigger);
    return true;
}

bool mutator_add(std::vector<sim::FaultSpec>& faults, const std::optional<RandomFaults>& random,
                 sim::Prng& prng) {
    if (!random || random->kinds.empty()) return false;
    RandomFaults one = *random;
    one.count_min = 1;
    one.count_max = 1;
    sim::Prng draw = prng.fork(prng.next());
    FaultDraw drawn = draw_random_faults(one, draw);
    if (drawn.faults.empty()) return false;
    faults.push_back(std::move(drawn.faults.front()));
    return true;
}

// Aims a fault at a protocol point of the random section's list: at its k-th announcement (k in
// 1..3), after a failover half the time when the point is one a restore announces, a short delay
// after it. The narrow windows (a restore, a pre-commit, the end of input) are where the thin bugs
// live, and a time drawn uniformly over seconds rarely lands in one.
bool mutator_aim(std::vector<sim::FaultSpec>& faults, const std::optional<RandomFaults>& random,
                 sim::Prng& prng) {
    if (!random || random->point_triggers.points.empty() || faults.empty()) return false;
    sim::FaultSpec& f = faults[prng.below(faults.size())];
    // A link's ends stay as they are; a crash or pause without nodes hits its own point's
    // announcer.
    const FaultType& type = fault_type(f.kind);
    if (type.targets() == sim::FaultTargets::link || (type.drawn_at_announcer() && f.nodes.empty()))
        return false;
    const std::vector<std::string>& points = random->point_triggers.points;
    sim::FaultTrigger trigger;
    trigger.point = points[prng.below(points.size())];
    trigger.occurrence = static_cast<int32_t>(prng.between(1, 3));
    trigger.delay = sim::Duration::millis(prng.between(0, 200));
    if (prng.below(2) == 0) trigger.attempt_min = 2;  // only after a failover
    trigger.not_after =
        sim::Time{random->quiet_after.ns - mutator_effect_length(f).ns - trigger.delay.ns};
    f.trigger = trigger;
    return true;
}

// Adds a copy of one of `donor`'s faults (another corpus entry's schedule): what made that entry
// interesting joins what makes this one interesting. Never a crash without restart: a scenario
// plans how many nodes die for good, and a second copy can kill the last JobManager (or
// TaskManager) a job has, which no engine survives (jobmanager-ha-lost-watch's guided mutants).
bool mutator_splice(std::vector<sim::FaultSpec>& faults, const std::vector<sim::FaultSpec>* donor,
                    sim::Prng& prng) {
    if (donor == nullptr) return false;
    std::vector<const sim::FaultSpec*> copyable;
    for (const sim::FaultSpec& f : *donor) {
        if (fault_type(f.kind).effect_length(f)) copyable.push_back(&f);
    }
    if (copyable.empty()) return false;
    faults.push_back(*copyable[prng.below(copyable.size())]);
    return true;
}

bool mutator_remove(std::vector<sim::FaultSpec>& faults, sim::Prng& prng) {
    if (faults.empty()) return false;
    faults.erase(faults.begin() + static_cast<std::ptrdiff_t>(prng.below(faults.size())));
    return true;
}

bool mutator_retarget(std::vector<sim::FaultSpec>& faults,
                      const std::optional<RandomFaults>& random, sim::Prng& prng) {
    if (!random || faults.empty()) return false;
    sim::FaultSpec& f = faults[prng.below(faults.size())];
    if (f.nodes.size() != 1) return false;
    if (fault_type(f.kind).targets() != sim::FaultTargets::node_or_announcer) return false;
    for (const RandomFaultKind& kind : random->kinds) {
        if (kind.kind != f.kind || kind.nodes.size() < 2) continue;
        const std::string& node = kind.nodes[prng.below(kind.nodes.size())];
        if (std::find(f.other_nodes.begin(), f.other_nodes.end(), node) != f.other_nodes.end())
            return false;
        f.nodes = {node};
        return true;
    }
    return false;
}

}  // namespace

ScheduleMutant mutate_schedule(const std::vector<sim::FaultSpec>& faults,
                               const std::optional<RandomFaults>& random, sim::Prng& prng,
                               const std::vector<sim::FaultSpec>* donor) {
    static constexpr const char* kNames[] = {"shift",    "swap", "add",   "remove",
                                             "retarget", "aim",  "splice"};
    ScheduleMutant mutant{faults, ""};
    // One to three mutations, each a random operator; one that cannot apply (e.g. swap on a single
    // fault) is skipped, and an unchanged mutant gets a shift or an add as a last resort.
    const int64_t count = prng.between(1, 3);
    for (int64_t i = 0; i < count; ++i) {
        const auto op = static_cast<size_t>(prng.below(7));
        bool applied = false;
        switch (op) {
            case 0: applied = mutator_shift(mutant.faults, random, prng); break;
            case 1: applied = mutator_swap(mutant.faults, prng); break;
            case 2: applied = mutator_add(mutant.faults, random, prng); break;
            case 3: applied = mutator_remove(mutant.faults, prng); break;
            case 4: applied = mutator_retarget(mutant.faults, random, prng); break;
            case 5: applied = mutator_aim(mutant.faults, random, prng); break;
            default: applied = mutator_splice(mutant.faults, donor, prng); break;
        }
        if (applied) mutant.how += (mutant.how.empty() ? "" : ", ") + std::string(kNames[op]);
    }
    if (mutant.how.empty()) {
        if (mutator_add(mutant.faults, random, prng)) {
            mutant.how = "add";
        } else if (mutator_shift(mutant.faults, random, prng)) {
            mutant.how = "shift";
        }
    }
    return mutant;
}

}  // namespace eosim::scenarios
