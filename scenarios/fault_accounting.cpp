#include "scenarios/fault_accounting.h"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "scenarios/fault_types.h"

namespace eosim::scenarios {

namespace {

using sim::seconds_text;

std::string ordinal(int64_t n) {
    const int64_t tens = n % 100;
    const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                         : n % 10 == 1              ? "st"
                         : n % 10 == 2              ? "nd"
                         : n % 10 == 3              ? "rd"
                                                    : "th";
    return std::to_string(n) + suffix;
}

std::string times(int64_t n) { return n == 1 ? "once" : std::to_string(n) + " times"; }

// Which announcements a point fault counts: " by count subtask 1 on tm0 in attempt 2..".
std::string filter_text(const sim::FaultTrigger& t) {
    std::string text;
    if (t.filters_task()) {
        text += " by " + (t.point_vertex.empty() ? std::string("any vertex's") : t.point_vertex);
        if (t.point_subtask >= 0) text += " subtask " + std::to_string(t.point_subtask);
    }
    if (!t.point_node.empty()) text += " on " + t.point_node;
    if (t.filters_attempt()) {
        text += " in attempt " + std::to_string(t.attempt_min) + ".." +
                (t.attempt_max == INT32_MAX ? "" : std::to_string(t.attempt_max));
    }
    return text;
}

std::string trigger_text(const sim::FaultTrigger& t) {
    if (t.point.empty()) return "at " + seconds_text(t.at);
    std::string text = "at the " + ordinal(t.occurrence) + " " + t.point + filter_text(t);
    if (t.delay > sim::Duration::zero()) text += " + " + seconds_text(sim::Time::zero() + t.delay);
    return text;
}

}  // namespace

const char* to_string(FaultOutcome outcome) {
    switch (outcome) {
        case FaultOutcome::fired: return "fired";
        case FaultOutcome::no_effect: return "no_effect";
        case FaultOutcome::not_fired: return "not_fired";
    }
    return "not_fired";
}

FaultTally tally(const std::vector<FaultAccount>& accounts) {
    FaultTally t;
    for (const FaultAccount& a : accounts) {
        ++t.planned;
        if (a.outcome == FaultOutcome::fired) ++t.fired;
        if (a.outcome == FaultOutcome::no_effect) ++t.without_effect;
        if (a.outcome == FaultOutcome::not_fired) ++t.not_fired;
    }
    return t;
}

FaultAccounting::FaultAccounting(sim::World& world, sim::FaultInjector& injector, size_t scheduled,
                                 EffectProbes probes,
                                 std::function<std::string(const std::string&)> announcer_of)
    : world_(world),
      injector_(injector),
      scheduled_(scheduled),
      probes_(std::move(probes)),
      announcer_of_(std::move(announcer_of)),
      tracked_(injector.plan().size()) {
    world_.on_point([this](const sim::ProtocolPointEvent& event) { on_point(event); });
    injector_.on_firing(
        [this](size_t index, const std::vector<sim::NodeId>& targets) { firing(index, targets); });
    injector_.on_fired([this](const sim::FiredFault& record) { fired(record); });
}

void FaultAccounting::on_point(const sim::ProtocolPointEvent& event) {
    auto it = announced_.find(event.point);
    if (it == announced_.end())
        it = announced_.emplace(std::string(event.point), Announced{}).first;
    Announced& a = it->second;
    ++a.all;
    const size_t slot = Announced::slot(event.node);
    if (a.by_node.size() <= slot) a.by_node.resize(slot + 1, 0);
    ++a.by_node[slot];
}

int64_t FaultAccounting::counter(size_t index) const {
    const Tracked& tr = tracked_[index];
    const sim::FaultSpec& spec = injector_.plan()[index];
    return fault_type(spec.kind).counter(
        FaultCounters{world_, probes_, tr.fired ? &tr.record : nullptr}, spec);
}

void FaultAccounting::firing(size_t index, const std::vector<sim::NodeId>& targets) {
    const FaultType& type = fault_type(injector_.plan()[index].kind);
    Tracked& tr = tracked_[index];
    // Per-fault counters (a partition's, a loss rule's) start at zero when it acts; shared ones
    // (a slow link's, storage's, Kafka's) count from their value now.
    tr.baseline = type.counter_per_fault() ? 0 : counter(index);
    if (!type.accounts_targets()) return;
    for (sim::NodeId node : targets) {
        const std::string& name = world_.nodes().name(node);
        if (!world_.nodes().is_up(node)) continue;
        const EffectProbes::NodeLoad load =
            probes_.load_of ? probes_.load_of(node) : EffectProbes::NodeLoad{};
        std::string what;
        if (!load.engine_node) {
            what = name + " (an outside system's node)";
            ++tr.hits;
        } else {
            if (load.job_manager) {
                what = "the JobManager on " + name;
                ++tr.hits;
            }
            if (load.tasks > 0) {
                what += (what.empty() ? "" : ", ") + std::to_string(load.tasks) + " task" +
                        (load.tasks == 1 ? "" : "s") + " on " + name;
                tr.hits += load.tasks;
            }
            if (what.empty()) what = name + " held no task and no JobManager";
        }
        tr.hit_text += (tr.hit_text.empty() ? "" : "; ") + what;
    }
}

void FaultAccounting::fired(const sim::FiredFault& record) {
    Tracked& tr = tracked_[record.plan_index];
    tr.fired = true;
    tr.record = record;
    const sim::FaultSpec& spec = injector_.plan()[record.plan_index];
    const FaultType& type = fault_type(spec.kind);
    // What a kind accounting its targets hit is known when it fires; a counter is read when its
    // effect ends.
    tr.closes_at = type.accounts_targets() ? record.at : record.at + type.counted_for(spec);
    next_close_ = std::min(next_close_, tr.closes_at);
}

void FaultAccounting::close_due(sim::Time now) {
    next_close_ = sim::Time::never();
    const std::vector<sim::FaultSpec>& plan = injector_.plan();
    for (size_t i = 0; i < plan.size(); ++i) {
        Tracked& tr = tracked_[i];
        if (!tr.fired || tr.closed) continue;
        if (tr.closes_at > now) {
            next_close_ = std::min(next_close_, tr.closes_at);
            continue;
        }
        tr.closed = true;
        if (!fault_type(plan[i].kind).accounts_targets()) tr.hits = counter(i) - tr.baseline;
    }
}

std::string FaultAccounting::describe_unfired(size_t index, const std::string& run_end) const {
    const sim::FaultSpec& spec = injector_.plan()[index];
    const sim::FaultTrigger& t = spec.trigger;
    const sim::FaultInjector::PointProgress progress = injector_.progress(index);
    const std::string end =
        " the run ended at " + seconds_text(world_.now()) + " (" + run_end + ")";
    if (t.point.empty()) return "due at " + seconds_text(t.at) + ", after" + end;
    auto count = announced_.find(t.point);
    const int64_t all = count == announced_.end() ? 0 : count->second.all;
    if (all == 0) {
        return "its point " + t.point + " was never announced in this run (announced by " +
               announcer_of_(t.point) + ")";
    }
    if (progress.triggered_at == sim::Time::never()) {
        std::string why =
            "occurrence " + std::to_string(t.occurrence) + " of " + t.point + " never reached: ";
        if (t.filters_attempt() || t.filters_task()) {
            return why + std::to_string(progress.seen) + " of its " + times(all) + " came" +
                   filter_text(t);
        }
        if (t.point_node.empty()) return why + "the point came " + times(all) + " in this run";
        const sim::NodeId node = world_.nodes().find(t.point_node);
        const std::vector<int64_t>& by_node = count->second.by_node;
        const size_t slot = Announced::slot(node);
        const int64_t on_node = slot < by_node.size() ? by_node[slot] : 0;
        return why + t.point_node + " announced it " +
               (on_node == 0 ? std::string("never") : times(on_node)) +
               " (all nodes: " + times(all) + ")";
    }
    const sim::Time due = progress.triggered_at + t.delay;
    if (due > t.not_after) {
        return "the " + ordinal(t.occurrence) + " " + t.point + " came at " +
               seconds_text(progress.triggered_at) + ", so it was due at " + seconds_text(due) +
               ", after its not_after (" + seconds_text(t.not_after) + "): dropped";
    }
    return "the " + ordinal(t.occurrence) + " " + t.point + " came at " +
           seconds_text(progress.triggered_at) + "; due at " + seconds_text(due) + ", after" + end;
}

FaultAccount FaultAccounting::account(size_t index, const std::string& run_end) const {
    const sim::FaultSpec& spec = injector_.plan()[index];
    const Tracked& tr = tracked_[index];
    FaultAccount a;
    a.plan_index = index;
    a.drawn = index >= scheduled_;
    a.kind = sim::to_string(spec.kind);
    a.trigger = trigger_text(spec.trigger);
    if (!tr.fired) {
        a.outcome = FaultOutcome::not_fired;
        a.detail = "never fired: " + describe_unfired(index, run_end);
        return a;
    }
    a.at_ns = tr.record.at.ns;
    a.nodes = tr.record.nodes;
    const FaultType& type = fault_type(spec.kind);
    const bool by_counter = !type.accounts_targets();
    a.hits =
        tr.record.skipped ? 0 : (by_counter && !tr.closed ? counter(index) - tr.baseline : tr.hits);
    const std::string when =
        "fired at " + seconds_text(tr.record.at) + (a.nodes.empty() ? "" : " on " + [&] {
            std::string names;
            for (const std::string& n : a.nodes) names += (names.empty() ? "" : ",") + n;
            return names;
        }());
    if (tr.record.skipped) {
        a.outcome = FaultOutcome::no_effect;
        a.detail = when + " without effect: " + tr.record.action;
        return a;
    }
    if (a.hits == 0) {
        a.outcome = FaultOutcome::no_effect;
        a.detail = when + " without effect: " +
                   (by_counter || tr.hit_text.empty() ? type.nothing_hit(spec) : tr.hit_text);
        return a;
    }
    a.outcome = FaultOutcome::fired;
    a.detail = when + ": " + tr.record.action + "; hit: " +
               (by_counter ? std::to_string(a.hits) + " " + type.hit_unit() : tr.hit_text);
    return a;
}

std::vector<FaultAccount> FaultAccounting::finish(const std::string& run_end) const {
    std::vector<FaultAccount> out;
    for (size_t i = 0; i < tracked_.size(); ++i) out.push_back(account(i, run_end));
    return out;
}

std::string strict_fault_failure(const std::vector<FaultAccount>& accounts, bool drawn) {
    int64_t first_drawn = -1;  // when the first drawn fault fired
    for (const FaultAccount& a : accounts) {
        if (a.drawn && a.at_ns >= 0 && (first_drawn < 0 || a.at_ns < first_drawn))
            first_drawn = a.at_ns;
    }
    std::string text;
    int64_t count = 0;
    for (const FaultAccount& a : accounts) {
        if (a.outcome == FaultOutcome::fired || (a.drawn && !drawn)) continue;
        if (!drawn && first_drawn >= 0 && (a.at_ns < 0 || first_drawn <= a.at_ns))
            continue;  // the dice came first
        if (++count <= 3) {
            text += std::string(text.empty() ? "" : "; ") + (a.drawn ? "drawn fault " : "fault ") +
                    std::to_string(a.plan_index) + " (" + a.kind + " " + a.trigger + ") " +
                    a.detail;
        }
    }
    if (count == 0) return "";
    return "strict faults: " + std::to_string(count) + " planned fault" + (count == 1 ? "" : "s") +
           " did not fire with an effect: " + text + (count > 3 ? "; ..." : "");
}

}  // namespace eosim::scenarios
