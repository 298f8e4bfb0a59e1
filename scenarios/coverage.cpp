#include "scenarios/coverage.h"

#include <algorithm>
#include <cstdio>

#include "engine/vocabulary/protocol_points.h"
#include "oracles/oracle_registry.h"
#include "scenarios/fault_types.h"
#include "scenarios/scenario.h"

namespace eosim::scenarios {

namespace {

namespace points = engine::points;

constexpr std::string_view kPointPrefix = "point:";
constexpr std::string_view kOraclePrefix = "oracle:";

std::vector<std::string> fault_kind_names() { return FaultTypes::global().names(); }

template <typename Range>
std::string join(const Range& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + std::string(item);
    return out;
}

bool has_targets(const sim::FiredFault& fired) { return !fired.nodes.empty(); }

}  // namespace

std::string check_combination_name(const std::string& name) {
    if (name.rfind(kOraclePrefix, 0) == 0) {
        if (oracles::OracleRegistry::global().find(name.substr(kOraclePrefix.size())) != nullptr)
            return "";
        return "\"oracle:<oracle name>\" with an oracle name (exactly_once_output, at_least_once_output, "
               "state_after_restore, visibility, liveness)";
    }
    const std::vector<std::string> kinds = fault_kind_names();
    const size_t at = name.find('@');
    const std::string form =
        "\"<fault kind>@<phase>\", \"<fault kind>@point:<protocol point>\" or "
        "\"oracle:<oracle name>\"";
    if (at == std::string::npos) return form;
    const std::string kind = name.substr(0, at);
    const std::string phase = name.substr(at + 1);
    if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) {
        return form + ", with a fault kind (" + join(kinds) + ")";
    }
    if (phase.rfind(kPointPrefix, 0) == 0) {
        const std::string_view point = std::string_view(phase).substr(kPointPrefix.size());
        if (std::find(std::begin(points::kAll), std::end(points::kAll), point) !=
            std::end(points::kAll))
            return "";
        return form + ", with a protocol point (" + join(points::kAll) + ")";
    }
    if (std::find(std::begin(phases::kAll), std::end(phases::kAll), phase) !=
        std::end(phases::kAll)) {
        const CoverageNodes nodes = FaultTypes::global().find(kind)->coverage_nodes();
        if (phase == phases::kZombieResumed && nodes != CoverageNodes::frozen)
            return form + " (zombie-resumed is a pause phase)";
        if (phase == phases::kZombieWrites && nodes != CoverageNodes::cut_off)
            return form + " (zombie-writes is a partition phase)";
        return "";
    }
    return form + ", with a phase (" + join(phases::kAll) + ")";
}

// --- CoverageTracker ---

void CoverageTracker::point(sim::Time at, std::string_view point, const std::string& node,
                            int64_t detail) {
    if (point == points::kSinkPrecommitted) {
        ++precommitted_[node][detail];
    } else if (point == points::kSinkCommitted) {
        auto it = precommitted_.find(node);
        if (it != precommitted_.end()) {
            auto cp = it->second.find(detail);
            if (cp != it->second.end() && --cp->second <= 0) it->second.erase(cp);
        }
        if (detail >= last_completed_) awaiting_notification_.erase(node);
    } else if (point == points::kCheckpointNotified) {
        if (detail >= last_completed_) awaiting_notification_.erase(node);
    } else if (point == points::kCheckpointTriggered) {
        checkpoints_in_progress_.insert(detail);
    } else if (point == points::kStopWithSavepointTriggered) {
        checkpoints_in_progress_.insert(detail);
        stop_savepoints_.insert(detail);
        stopping_ = true;
    } else if (point == points::kSavepointCompleted) {
        checkpoints_in_progress_.erase(detail);
        if (stop_savepoints_.contains(
                detail)) {  // notified like a checkpoint (the sinks commit it)
            last_completed_ = detail;
            awaiting_notification_ = job_nodes_;
        }
    } else if (point == points::kJobFinished) {
        stopping_ = false;
        ending_ = false;
    } else if (point == points::kWindowFired) {
        fired_since_checkpoint_.insert(node);
    } else if (point == points::kCheckpointCompleted) {
        fired_since_checkpoint_.clear();
        checkpoints_in_progress_.erase(detail);
        last_completed_ = detail;
        awaiting_notification_ = job_nodes_;
    } else if (point == points::kCheckpointAborted) {
        checkpoints_in_progress_.erase(detail);
    } else if (point == points::kAlignmentStarted) {
        ++aligning_[node][detail];
    } else if (point == points::kTaskSnapshotted) {
        auto it = aligning_.find(node);
        if (it != aligning_.end()) {
            auto cp = it->second.find(detail);
            if (cp != it->second.end() && --cp->second <= 0) it->second.erase(cp);
        }
    } else if (point == points::kTaskRestoring) {
        job_nodes_.insert(node);
    } else if (point == points::kFailoverStarted) {
        restoring_ = true;
        ending_ = false;
        stopping_ = false;
        precommitted_.clear();
        aligning_.clear();
        fired_since_checkpoint_.clear();
        job_nodes_.clear();
        awaiting_notification_.clear();
        checkpoints_in_progress_.clear();
        for (Pause& pause : pauses_) {
            if (at < pause.resume_at) pause.failover_during = true;
        }
        for (Pause& cut : partitions_) {
            if (at < cut.resume_at) cut.failover_during = true;
        }
    } else if (point == points::kJobRunning) {
        restoring_ = false;
    } else if (point == points::kTaskEndOfData) {
        ending_ = true;
    }
}

bool CoverageTracker::holds_precommitted(const std::string& node) const {
    auto it = precommitted_.find(node);
    return it != precommitted_.end() && !it->second.empty();
}

bool CoverageTracker::aligning(const std::string& node) const {
    auto it = aligning_.find(node);
    return it != aligning_.end() && !it->second.empty();
}

void CoverageTracker::hit(sim::FaultKind kind, std::string_view phase) {
    ++hits_[std::string(sim::to_string(kind)) + "@" + std::string(phase)];
}

void CoverageTracker::fault(const sim::FiredFault& fired, const sim::FaultSpec& spec) {
    if (fired.skipped) return;
    const sim::FaultKind kind = fired.kind;
    hit(kind, phases::kAny);
    if (!spec.trigger.point.empty()) hit(kind, std::string(kPointPrefix) + spec.trigger.point);

    const bool global = !has_targets(fired);
    const auto any_target = [&](auto&& predicate) {
        return std::any_of(fired.nodes.begin(), fired.nodes.end(), predicate);
    };
    const bool precommitted =
        global ? std::any_of(precommitted_.begin(), precommitted_.end(),
                             [](const auto& entry) { return !entry.second.empty(); })
               : any_target([&](const std::string& n) { return holds_precommitted(n); });
    const bool in_flight = !awaiting_notification_.empty() &&
                           (global || any_target([&](const std::string& n) {
                                return n.starts_with("jobmanager") ||
                                       awaiting_notification_.count(n) != 0;  // HA: jobmanager-1..
                            }));
    const bool in_alignment =
        global ? std::any_of(aligning_.begin(), aligning_.end(),
                             [](const auto& entry) { return !entry.second.empty(); })
               : any_target([&](const std::string& n) { return aligning(n); });
    const bool window_fired =
        global
            ? !fired_since_checkpoint_.empty()
            : any_target([&](const std::string& n) { return fired_since_checkpoint_.contains(n); });
    if (precommitted) hit(kind, phases::kSinkPrecommitted);
    if (window_fired) hit(kind, phases::kWindowFired);
    if (in_flight) hit(kind, phases::kNotificationInFlight);
    if (restoring_) hit(kind, phases::kRestore);
    if (ending_) hit(kind, phases::kEndOfJob);
    if (stopping_) hit(kind, phases::kStopWithSavepoint);
    if (in_alignment) hit(kind, phases::kAlignment);
    if (!checkpoints_in_progress_.empty()) hit(kind, phases::kCheckpointing);

    switch (fault_type(kind).coverage_nodes()) {
        case CoverageNodes::untouched: break;
        case CoverageNodes::ended:
            for (const std::string& node : fired.nodes) forget_node(node);
            break;
        case CoverageNodes::frozen:
            for (const std::string& node : fired.nodes)
                pauses_.push_back(Pause{kind, node, fired.at + spec.duration, false});
            break;
        case CoverageNodes::cut_off:
            partitions_.push_back(
                Pause{kind, fired.nodes.front(), fired.at + spec.duration, false});
            break;
    }
}

void CoverageTracker::forget_node(const std::string& node) {
    precommitted_.erase(node);
    aligning_.erase(node);
    fired_since_checkpoint_.erase(node);
    awaiting_notification_.erase(node);
    job_nodes_.erase(node);
}

void CoverageTracker::finish(sim::Time end) {
    for (const Pause& pause : pauses_) {
        if (pause.failover_during && pause.resume_at <= end)
            hit(pause.kind, phases::kZombieResumed);
    }
    pauses_.clear();
    for (const Pause& cut : partitions_) {
        if (cut.failover_during && fenced_writes_ > 0) hit(cut.kind, phases::kZombieWrites);
    }
    partitions_.clear();
}

void CoverageTracker::oracle_fired(const std::string& oracle) {
    ++hits_[std::string(kOraclePrefix) + oracle];
}

// --- summaries ---

void CoverageSummary::add_run(const std::map<std::string, int64_t>& hits) {
    ++runs_;
    for (const auto& [name, count] : hits) {
        CombinationCount& c = combinations_[name];
        c.hits += count;
        if (count > 0) ++c.runs;
    }
}

std::vector<std::string> check_sometimes(const CoverageSummary& summary,
                                         const std::vector<std::string>& sometimes) {
    std::vector<std::string> missing;
    for (const std::string& name : sometimes) {
        auto it = summary.combinations().find(name);
        if (it == summary.combinations().end() || it->second.runs == 0) missing.push_back(name);
    }
    return missing;
}

std::string coverage_table(const CoverageSummary& summary,
                           const std::vector<std::string>& sometimes) {
    std::map<std::string, CombinationCount> rows = summary.combinations();
    for (const std::string& name : sometimes)
        rows.try_emplace(name);  // expected but never hit: a 0 row
    size_t width = std::string_view("combination").size();
    for (const auto& [name, count] : rows) width = std::max(width, name.size());
    std::string out = "coverage over " + std::to_string(summary.runs()) + " run" +
                      (summary.runs() == 1 ? "" : "s") + "\n";
    char line[512];
    std::snprintf(line, sizeof line, "  %-*s %8s %7s\n", static_cast<int>(width), "combination",
                  "hits", "runs");
    out += line;
    for (const auto& [name, count] : rows) {
        const bool expected =
            std::find(sometimes.begin(), sometimes.end(), name) != sometimes.end();
        std::snprintf(line, sizeof line, "  %-*s %8lld %7lld", static_cast<int>(width),
                      name.c_str(), static_cast<long long>(count.hits),
                      static_cast<long long>(count.runs));
        out += line;
        if (expected) out += count.runs > 0 ? "  (sometimes: ok)" : "  (sometimes: NEVER HIT)";
        out += '\n';
    }
    return out;
}

}  // namespace eosim::scenarios
