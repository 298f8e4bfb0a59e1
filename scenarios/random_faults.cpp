#include "scenarios/random_faults.h"

#include <algorithm>
#include <cassert>
#include <string_view>

#include "engine/vocabulary/protocol_points.h"

namespace eosim::scenarios {

namespace {

using sim::Duration;
using sim::FaultKind;

constexpr int64_t kRatioSteps = 1000;  // drawn message-loss ratios are multiples of 1/1000

template <typename T>
const T& pick(const std::vector<T>& items, sim::Prng& prng) {
    assert(!items.empty());
    return items[prng.below(items.size())];
}

// Uniform in [low, high], in whole milliseconds when the range holds one (logs and shrunk files
// read better), else in nanoseconds.
Duration draw_between(Duration low, Duration high, sim::Prng& prng) {
    constexpr int64_t kMs = 1'000'000;
    const int64_t low_ms = (low.ns + kMs - 1) / kMs;
    const int64_t high_ms = high.ns / kMs;
    if (low_ms > high_ms) return prng.duration_between(low, high);
    return Duration::millis(prng.between(low_ms, high_ms));
}

Duration draw_duration(const DurationRange& range, sim::Prng& prng) { return draw_between(range.min, range.max, prng); }

// A ratio in [min, max], rounded inwards to thousandths.
sim::Ratio draw_ratio(const RatioRange& range, sim::Prng& prng) {
    const auto thousandths_up = [](sim::Ratio r) {
        return static_cast<int64_t>((static_cast<__uint128_t>(r.numerator) * kRatioSteps + r.denominator - 1) /
                                    r.denominator);
    };
    const auto thousandths_down = [](sim::Ratio r) {
        return static_cast<int64_t>(static_cast<__uint128_t>(r.numerator) * kRatioSteps / r.denominator);
    };
    const int64_t low = thousandths_up(range.min);
    const int64_t high = std::max(low, thousandths_down(range.max));
    return sim::Ratio{static_cast<uint64_t>(prng.between(low, high)), kRatioSteps};
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// Whether every node that may announce `point` is a candidate target of `kind`.
bool announcers_are_candidates(const RandomFaults& spec, const RandomFaultKind& kind, const std::string& point) {
    if (announced_by_job_manager(point)) return contains(kind.nodes, "jobmanager");
    return std::all_of(spec.task_manager_nodes.begin(), spec.task_manager_nodes.end(),
                       [&](const std::string& tm) { return contains(kind.nodes, tm); });
}

// The kind's own parameters; returns how long its effect lasts (0: instantaneous).
Duration draw_parameters(const RandomFaultKind& kind, sim::FaultSpec& fault, sim::Prng& prng) {
    switch (kind.kind) {
        case FaultKind::crash:
            fault.nodes = {pick(kind.nodes, prng)};
            fault.restart = true;
            fault.restart_delay = draw_duration(kind.restart_delay, prng);
            return fault.restart_delay;
        case FaultKind::pause: fault.nodes = {pick(kind.nodes, prng)}; break;
        case FaultKind::partition: {
            fault.nodes = {pick(kind.nodes, prng)};
            // `job_manager_cut` of the partitions of a TaskManager (when the JobManager is a candidate too)
            // cut it off from the JobManager only, one way: what it sends to the JobManager is
            // lost, while the JobManager, Kafka and the other TaskManagers still reach it. The
            // JobManager drops it and fails over; its tasks run on and write -- a zombie -- until
            // it misses the JobManager's heartbeats.
            if (fault.nodes.front().rfind("tm", 0) == 0 && contains(kind.nodes, "jobmanager") &&
                prng.chance(kind.job_manager_cut)) {
                fault.other_nodes = {"jobmanager"};
                fault.one_way = true;
                break;
            }
            std::vector<std::string> others;
            for (const std::string& node : kind.nodes) {
                if (node != fault.nodes.front()) others.push_back(node);
            }
            // Half of the partitions cut one node from everything else, half from one other node.
            if (!others.empty() && prng.chance(sim::Ratio{1, 2})) fault.other_nodes = {pick(others, prng)};
            fault.one_way = prng.chance(kind.one_way);
            break;
        }
        case FaultKind::slow_link: {
            const size_t first = prng.below(kind.nodes.size());
            size_t second = prng.below(kind.nodes.size() - 1);
            if (second >= first) ++second;
            fault.nodes = {kind.nodes[first], kind.nodes[second]};
            fault.multiplier = static_cast<uint32_t>(prng.between(kind.multiplier.min, kind.multiplier.max));
            break;
        }
        case FaultKind::storage_slow:
            fault.multiplier = static_cast<uint32_t>(prng.between(kind.multiplier.min, kind.multiplier.max));
            break;
        case FaultKind::storage_failure:
        case FaultKind::broker_unavailable:
        case FaultKind::kafka_write_failure:
        case FaultKind::kafka_commit_errors:
        case FaultKind::kafka_commit_outcome_unknown:
        case FaultKind::kafka_produce_ack_lost: break;
        case FaultKind::transaction_abort: return Duration::zero();
        case FaultKind::system_unavailable:
        case FaultKind::system_write_errors: fault.system = pick(kind.systems, prng); break;
        case FaultKind::bulk_partial_failure:
        case FaultKind::system_call_races:
            fault.system = pick(kind.systems, prng);
            fault.ratio = draw_ratio(kind.ratio, prng);
            break;
        case FaultKind::message_loss: {
            for (const std::string& message : kind.messages) {
                if (prng.chance(sim::Ratio{1, 2})) fault.messages.push_back(message);
            }
            if (fault.messages.empty()) fault.messages.push_back(pick(kind.messages, prng));
            fault.ratio = draw_ratio(kind.ratio, prng);
            break;
        }
    }
    fault.duration = draw_duration(kind.duration, prng);
    return fault.duration;
}

// Shortens the effect to at most `limit` (so that it can end before the quiet period).
Duration clip_effect(sim::FaultSpec& fault, Duration effect, Duration limit) {
    if (effect <= limit) return effect;
    if (fault.kind == FaultKind::crash) {
        fault.restart_delay = limit;
    } else {
        fault.duration = limit;
    }
    return limit;
}

sim::FaultSpec draw_fault(const RandomFaults& spec, const RandomFaultKind& kind, sim::Prng& prng) {
    sim::FaultSpec fault;
    fault.kind = kind.kind;
    Duration effect = draw_parameters(kind, fault, prng);
    effect = clip_effect(fault, effect, spec.quiet_after - spec.window_from);

    const PointTriggers& points = spec.point_triggers;
    if (!points.points.empty() && prng.chance(points.ratio)) {
        fault.trigger.point = pick(points.points, prng);
        fault.trigger.occurrence = static_cast<int32_t>(prng.between(1, points.max_occurrence));
        if (auto it = points.vertices.find(fault.trigger.point); it != points.vertices.end() && prng.chance(sim::Ratio{1, 2})) {
            fault.trigger.point_vertex = pick(it->second, prng);
        }
        if (!points.after_failover.is_zero() && prng.chance(points.after_failover)) fault.trigger.attempt_min = 2;
        if (points.delay) fault.trigger.delay = draw_duration(*points.delay, prng);
        fault.trigger.not_after = sim::Time::zero() + (spec.quiet_after - effect);
        const bool hits_a_node = fault.kind == FaultKind::crash || fault.kind == FaultKind::pause;
        // Half of the crashes and pauses at a point hit whichever node announced it.
        if (hits_a_node && announcers_are_candidates(spec, kind, fault.trigger.point) &&
            prng.chance(sim::Ratio{1, 2})) {
            fault.nodes.clear();
        }
    } else if (!spec.end_ratio.is_zero() && prng.chance(spec.end_ratio)) {
        const Duration latest = std::min(spec.input_end + spec.end_after, spec.quiet_after - effect);
        const Duration earliest = std::min(latest, std::max(spec.window_from, spec.input_end - spec.end_before));
        fault.trigger.at = sim::Time::zero() + draw_between(earliest, latest, prng);
    } else {
        const Duration latest = std::min(spec.window_to, spec.quiet_after - effect);
        fault.trigger.at = sim::Time::zero() + draw_between(spec.window_from, latest, prng);
    }
    assert(fault.trigger.point.empty() ? fault.trigger.at + effect <= sim::Time::zero() + spec.quiet_after
                                       : fault.trigger.not_after + effect <= sim::Time::zero() + spec.quiet_after);
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
    assert(false && "a kind switched on is configured");
    return spec.kinds.front();
}

}  // namespace

const char* to_string(RandomMode mode) { return mode == RandomMode::swarm ? "swarm" : "fixed"; }

bool announced_by_job_manager(const std::string& point) {
    const auto& jm = engine::points::kJobManagerPoints;
    return std::find(std::begin(jm), std::end(jm), point) != std::end(jm);
}

FaultDraw draw_random_faults(const RandomFaults& spec, sim::Prng& prng) {
    assert(!spec.kinds.empty() && spec.count_min <= spec.count_max);
    assert(spec.window_from < spec.window_to && spec.window_to <= spec.quiet_after);
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
    std::stable_sort(draw.faults.begin(), draw.faults.end(), [](const sim::FaultSpec& a, const sim::FaultSpec& b) {
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
        kinds += std::string(sim::to_string(draw.kinds_on[i])) + " (weight " + std::to_string(draw.weights[i]) + ")";
    }
    return std::string(to_string(draw.mode)) + ": " + kinds + "; " + std::to_string(draw.count) + " faults drawn, " +
           std::to_string(draw.prng_draws) + " random values";
}

}  // namespace eosim::scenarios
