#include "scenarios/random_faults.h"

#include <algorithm>
#include <string_view>

#include "engine/vocabulary/protocol_points.h"
#include "scenarios/fault_types.h"
#include "sim/invariant.h"

namespace eosim::scenarios {

namespace {

using sim::Duration;
using sim::FaultKind;

constexpr int64_t kRatioSteps = 1000;  // drawn message-loss ratios are multiples of 1/1000

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether every node that may announce `point` is a candidate target of `kind`.
bool announcers_are_candidates(const RandomFaults& spec, const RandomFaultKind& kind,
                               const std::string& point) {
    if (announced_by_job_manager(point)) return contains(kind.nodes, "jobmanager");
    return std::all_of(spec.task_manager_nodes.begin(), spec.task_manager_nodes.end(),
                       [&](const std::string& tm) { return contains(kind.nodes, tm); });
}

sim::FaultSpec draw_fault(const RandomFaults& spec, const RandomFaultKind& kind, sim::Prng& prng) {
    const FaultType& type = fault_type(kind.kind);
    sim::FaultSpec fault;
    fault.kind = kind.kind;
    Duration effect = type.draw(kind, fault, prng);
    if (const Duration limit = spec.quiet_after - spec.window_from;
        effect > limit) {  // it can end before the quiet period
        type.clip_effect(fault, limit);
        effect = limit;
    }

    const PointTriggers& points = spec.point_triggers;
    if (!points.points.empty() && prng.chance(points.ratio)) {
        fault.trigger.point = pick(points.points, prng);
        fault.trigger.occurrence = static_cast<int32_t>(prng.between(1, points.max_occurrence));
        if (auto it = points.vertices.find(fault.trigger.point);
            it != points.vertices.end() && prng.chance(sim::Ratio{1, 2})) {
            fault.trigger.point_vertex = pick(it->second, prng);
        }
        if (!points.after_failover.is_zero() && prng.chance(points.after_failover))
            fault.trigger.attempt_min = 2;
        if (points.delay) fault.trigger.delay = draw_duration(*points.delay, prng);
        fault.trigger.not_after = sim::Time::zero() + (spec.quiet_after - effect);
        // Half of the crashes and pauses at a point hit whichever node announced it.
        if (type.drawn_at_announcer() &&
            announcers_are_candidates(spec, kind, fault.trigger.point) &&
            prng.chance(sim::Ratio{1, 2})) {
            fault.nodes.clear();
        }
    } else if (!spec.end_ratio.is_zero() && prng.chance(spec.end_ratio)) {
        const Duration latest =
            std::min(spec.input_end + spec.end_after, spec.quiet_after - effect);
        const Duration earliest =
            std::min(latest, std::max(spec.window_from, spec.input_end - spec.end_before));
        fault.trigger.at = sim::Time::zero() + draw_between(earliest, latest, prng);
    } else {
        const Duration latest = std::min(spec.window_to, spec.quiet_after - effect);
        fault.trigger.at = sim::Time::zero() + draw_between(spec.window_from, latest, prng);
    }
    EOSIM_INVARIANT(fault.trigger.point.empty()
                        ? fault.trigger.at + effect <= sim::Time::zero() + spec.quiet_after
                        : fault.trigger.not_after + effect <= sim::Time::zero() + spec.quiet_after,
                    "a drawn fault's effect ends before the quiet time");
    return fault;
}

void choose_kinds(const RandomFaults& spec, sim::Prng& prng, FaultDraw& draw) {
    if (spec.mode == RandomMode::fixed) {
        for (const RandomFaultKind& kind : spec.kinds) {
            draw.kinds_on.push_back(kind.kind);
            draw.weights.push_back(kind.weight);
        }
        return;
    }
    std::vector<size_t> on;
    for (size_t i = 0; i < spec.kinds.size(); ++i) {
        if (prng.chance(sim::Ratio{1, 2})) on.push_back(i);
    }
    if (on.empty()) on.push_back(prng.below(spec.kinds.size()));
    for (size_t i : on) {
        draw.kinds_on.push_back(spec.kinds[i].kind);
        draw.weights.push_back(spec.kinds[i].weight * static_cast<uint32_t>(prng.between(1, 10)));
    }
}

const RandomFaultKind& kind_spec(const RandomFaults& spec, FaultKind kind) {
    for (const RandomFaultKind& k : spec.kinds) {
        if (k.kind == kind) return k;
    }
    EOSIM_INVARIANT(false, "a kind switched on is configured");
    return spec.kinds.front();
}

}  // namespace

Duration draw_between(Duration low, Duration high, sim::Prng& prng) {
    constexpr int64_t kMs = 1'000'000;
    const int64_t low_ms = (low.ns + kMs - 1) / kMs;
    const int64_t high_ms = high.ns / kMs;
    if (low_ms > high_ms) return prng.duration_between(low, high);
    return Duration::millis(prng.between(low_ms, high_ms));
}

Duration draw_duration(const DurationRange& range, sim::Prng& prng) {
    return draw_between(range.min, range.max, prng);
}

sim::Ratio draw_ratio(const RatioRange& range, sim::Prng& prng) {
    const auto thousandths_up = [](sim::Ratio r) {
        return static_cast<int64_t>(
            (static_cast<__uint128_t>(r.numerator) * kRatioSteps + r.denominator - 1) /
            r.denominator);
    };
    const auto thousandths_down = [](sim::Ratio r) {
        return static_cast<int64_t>(static_cast<__uint128_t>(r.numerator) * kRatioSteps /
                                    r.denominator);
    };
    const int64_t low = thousandths_up(range.min);
    const int64_t high = std::max(low, thousandths_down(range.max));
    return sim::Ratio{static_cast<uint64_t>(prng.between(low, high)), kRatioSteps};
}

const char* to_string(RandomMode mode) { return mode == RandomMode::swarm ? "swarm" : "fixed"; }

bool announced_by_job_manager(const std::string& point) {
    const auto& jm = engine::points::kJobManagerPoints;
    return std::find(std::begin(jm), std::end(jm), point) != std::end(jm);
}

FaultDraw draw_random_faults(const RandomFaults& spec, sim::Prng& prng) {
    EOSIM_INVARIANT(!spec.kinds.empty() && spec.count_min <= spec.count_max,
                    "random faults: kinds and an ordered count");
    EOSIM_INVARIANT(spec.window_from < spec.window_to && spec.window_to <= spec.quiet_after,
                    "random faults: a window that ends by the quiet time");
    const uint64_t draws_before = prng.draws();
    FaultDraw draw;
    draw.mode = spec.mode;
    choose_kinds(spec, prng, draw);
    draw.count = static_cast<int32_t>(prng.between(spec.count_min, spec.count_max));
    uint64_t total_weight = 0;
    for (uint32_t w : draw.weights) total_weight += w;
    for (int32_t n = 0; n < draw.count; ++n) {
        uint64_t ticket = prng.below(total_weight);
        size_t chosen = 0;
        while (ticket >= draw.weights[chosen]) ticket -= draw.weights[chosen++];
        draw.faults.push_back(draw_fault(spec, kind_spec(spec, draw.kinds_on[chosen]), prng));
    }
    std::stable_sort(
        draw.faults.begin(), draw.faults.end(),
        [](const sim::FaultSpec& a, const sim::FaultSpec& b) {
            const sim::Time ta = a.trigger.point.empty() ? a.trigger.at : sim::Time::never();
            const sim::Time tb = b.trigger.point.empty() ? b.trigger.at : sim::Time::never();
            return ta < tb;
        });
    draw.prng_draws = prng.draws() - draws_before;
    return draw;
}

std::string describe_draw(const FaultDraw& draw) {
    std::string kinds;
    for (size_t i = 0; i < draw.kinds_on.size(); ++i) {
        if (!kinds.empty()) kinds += ", ";
        kinds += std::string(sim::to_string(draw.kinds_on[i])) + " (weight " +
                 std::to_string(draw.weights[i]) + ")";
    }
    return std::string(to_string(draw.mode)) + ": " + kinds + "; " + std::to_string(draw.count) +
           " faults drawn, " + std::to_string(draw.prng_draws) + " random values";
}

}  // namespace eosim::scenarios
