#include "scenarios/shrinker.h"

#include <algorithm>
#include <climits>
#include <map>

#include "scenarios/fault_json.h"
#include "scenarios/fault_types.h"
#include "scenarios/reproducer.h"
#include "scenarios/run/planned_faults.h"
#include "sim/invariant.h"

namespace eosim::scenarios {

namespace {

using sim::Duration;

constexpr int64_t kMs = 1'000'000;
constexpr int kMaxRounds = 4;

RunOptions run_options(uint64_t seed, const ShrinkOptions& options) {
    RunOptions run;
    run.seed = seed;
    run.max_events = options.max_events;
    return run;
}

// The smallest value in [low, known] for which `fails` holds, where `fails(known)` is known to
// hold; a binary search that only ever settles on a value it has seen fail.
template <typename Fails>
int64_t smallest_failing(int64_t low, int64_t known, Fails fails) {
    while (low < known) {
        const int64_t mid = low + (known - low) / 2;
        if (fails(mid)) {
            known = mid;
        } else {
            low = mid + 1;
        }
    }
    return known;
}

class Shrinker {
public:
    Shrinker(const Scenario& base, uint64_t seed, FailureSignature target,
             const ShrinkOptions& options)
        : base_(base), seed_(seed), target_(target), options_(options) {
        for (const DeploymentSpec& d : base.deployments) deployment_at_.push_back(d.at);
    }

    // Replays the candidate; true when it shows the target failure.
    bool fails(const std::vector<sim::FaultSpec>& faults, const std::vector<int64_t>& records) {
        std::string key = faults_to_json(faults).dump();
        for (int64_t n : records) {
            key += '/';
            key += std::to_string(n);
        }
        for (sim::Duration at : deployment_at_) {
            key += '@';
            key += std::to_string(at.ns);
        }
        if (auto it = cache_.find(key); it != cache_.end()) return it->second;
        if (replays_ >= options_.max_replays) {
            budget_exhausted_ = true;
            return false;
        }
        ++replays_;
        const bool same =
            shows(replay_run(make(faults, records), run_options(seed_, options_)), target_);
        cache_.emplace(std::move(key), same);
        return same;
    }

    Scenario make(const std::vector<sim::FaultSpec>& faults,
                  const std::vector<int64_t>& records) const {
        Scenario s = base_;
        s.faults = faults;
        s.random_faults.reset();
        for (size_t i = 0; i < s.inputs.size(); ++i) s.inputs[i].records = records[i];
        for (size_t d = 0; d < deployment_at_.size(); ++d) s.deployments[d].at = deployment_at_[d];
        return s;
    }

    // Delta debugging over the faults (Zeller's ddmin): removes chunks, then complements, halving
    // the granularity until no single fault can go.
    void ddmin(std::vector<sim::FaultSpec>& faults, const std::vector<int64_t>& records) {
        if (faults.empty()) return;
        if (fails({}, records)) {
            faults.clear();
            return;
        }
        size_t parts = 2;
        while (faults.size() >= 2) {
            const std::vector<std::vector<sim::FaultSpec>> chunks = split(faults, parts);
            bool reduced = false;
            for (const auto& chunk : chunks) {
                if (fails(chunk, records)) {
                    faults = chunk;
                    parts = 2;
                    reduced = true;
                    break;
                }
            }
            for (size_t i = 0; !reduced && chunks.size() > 2 && i < chunks.size(); ++i) {
                std::vector<sim::FaultSpec> complement;
                for (size_t j = 0; j < chunks.size(); ++j) {
                    if (j != i)
                        complement.insert(complement.end(), chunks[j].begin(), chunks[j].end());
                }
                if (fails(complement, records)) {
                    faults = std::move(complement);
                    parts = std::max<size_t>(parts - 1, 2);
                    reduced = true;
                }
            }
            if (reduced) continue;
            if (parts >= faults.size()) break;
            parts = std::min(parts * 2, faults.size());
        }
    }

    // Simpler values for each fault's parameters; true when anything changed.
    bool simplify_faults(std::vector<sim::FaultSpec>& faults, const std::vector<int64_t>& records) {
        bool changed = false;
        for (size_t i = 0; i < faults.size(); ++i) {
            auto attempt = [&](auto&& set) {
                return [&, set](int64_t value) {
                    std::vector<sim::FaultSpec> candidate = faults;
                    set(candidate[i], value);
                    return fails(candidate, records);
                };
            };
            auto shrink_field = [&](int64_t low, int64_t current, auto&& set) {
                if (current <= low) return;
                const int64_t best = smallest_failing(low, current, attempt(set));
                if (best != current) {
                    set(faults[i], best);
                    changed = true;
                }
            };
            if (!faults[i].trigger.point.empty() &&
                faults[i].trigger.not_after != sim::Time::never()) {
                std::vector<sim::FaultSpec> candidate = faults;
                candidate[i].trigger.not_after = sim::Time::never();
                if (fails(candidate, records)) {
                    faults = std::move(candidate);
                    changed = true;
                }
            }
            for (const ShrinkableDuration& d : fault_type(faults[i].kind).shrinkable(faults[i])) {
                if ((faults[i].*d.field).ns % kMs != 0) continue;
                shrink_field(d.least_ms, (faults[i].*d.field).ns / kMs,
                             [field = d.field](sim::FaultSpec& x, int64_t ms) {
                                 x.*field = Duration::millis(ms);
                             });
            }
            if (faults[i].trigger.point.empty() && faults[i].trigger.at.ns % kMs == 0) {
                shrink_field(0, faults[i].trigger.at.ns / kMs, [](sim::FaultSpec& x, int64_t ms) {
                    x.trigger.at = sim::Time::zero() + Duration::millis(ms);
                });
            }
            if (faults[i].trigger.filters_attempt()) {  // no attempt filter, if the failure stays
                std::vector<sim::FaultSpec> candidate = faults;
                candidate[i].trigger.attempt_min = 1;
                candidate[i].trigger.attempt_max = INT32_MAX;
                if (fails(candidate, records)) {
                    faults = std::move(candidate);
                    changed = true;
                }
            }
            if (faults[i]
                    .trigger.filters_task()) {  // no vertex or subtask filter, if the failure stays
                std::vector<sim::FaultSpec> candidate = faults;
                candidate[i].trigger.point_vertex.clear();
                candidate[i].trigger.point_subtask = -1;
                if (fails(candidate, records)) {
                    faults = std::move(candidate);
                    changed = true;
                }
            }
            if (!faults[i].trigger.point.empty() && faults[i].trigger.delay.ns % kMs == 0) {
                shrink_field(
                    0, faults[i].trigger.delay.ns / kMs,
                    [](sim::FaultSpec& x, int64_t ms) { x.trigger.delay = Duration::millis(ms); });
            }
            if (!faults[i].trigger.point.empty()) {
                shrink_field(1, faults[i].trigger.occurrence, [](sim::FaultSpec& x, int64_t k) {
                    x.trigger.occurrence = static_cast<int32_t>(k);
                });
            }
        }
        return changed;
    }

    bool cut_records(const std::vector<sim::FaultSpec>& faults, std::vector<int64_t>& records) {
        bool changed = false;
        for (size_t i = 0; i < records.size(); ++i) {
            const int64_t best = smallest_failing(1, records[i], [&](int64_t n) {
                std::vector<int64_t> candidate = records;
                candidate[i] = n;
                return fails(faults, candidate);
            });
            if (best != records[i]) {
                records[i] = best;
                changed = true;
            }
        }
        return changed;
    }

    // Each later deployment as early as the failure allows (in whole milliseconds), still after the
    // one before it and after every timed savepoint that was taken before it (a named savepoint a
    // deployment starts from must stay before it). Not for an upgrade swarm: its deployments are
    // drawn per seed.
    bool earlier_deployments(const std::vector<sim::FaultSpec>& faults,
                             const std::vector<int64_t>& records) {
        if (base_.upgrade_swarm) return false;
        bool changed = false;
        for (size_t d = 0; d < deployment_at_.size(); ++d) {
            if (deployment_at_[d].ns % kMs != 0) continue;
            Duration floor = d == 0 ? Duration{} : deployment_at_[d - 1];
            for (const SavepointSpec& savepoint : base_.savepoints) {
                if (savepoint.at && *savepoint.at < deployment_at_[d])
                    floor = std::max(floor, *savepoint.at);
            }
            const int64_t low = floor.ns / kMs + 1;
            const int64_t current = deployment_at_[d].ns / kMs;
            if (current <= low) continue;
            const int64_t best = smallest_failing(low, current, [&](int64_t ms) {
                const Duration kept = deployment_at_[d];
                deployment_at_[d] = Duration::millis(ms);
                const bool same = fails(faults, records);
                deployment_at_[d] = kept;
                return same;
            });
            if (best != current) {
                deployment_at_[d] = Duration::millis(best);
                changed = true;
            }
        }
        return changed;
    }

    const std::vector<Duration>& deployment_at() const { return deployment_at_; }

    void note(const std::string& line) const {
        if (options_.log) options_.log(line);
    }

    size_t replays() const { return replays_; }
    bool budget_exhausted() const { return budget_exhausted_; }

private:
    static std::vector<std::vector<sim::FaultSpec>> split(const std::vector<sim::FaultSpec>& faults,
                                                          size_t parts) {
        std::vector<std::vector<sim::FaultSpec>> chunks;
        size_t start = 0;
        for (size_t p = 0; p < parts; ++p) {
            const size_t end = start + (faults.size() - start) / (parts - p);
            chunks.emplace_back(faults.begin() + static_cast<std::ptrdiff_t>(start),
                                faults.begin() + static_cast<std::ptrdiff_t>(end));
            start = end;
        }
        return chunks;
    }

    const Scenario& base_;
    uint64_t seed_;
    FailureSignature target_;
    const ShrinkOptions& options_;
    std::vector<Duration> deployment_at_;  // each later deployment's "at", as far as shrunk
    std::map<std::string, bool> cache_;
    size_t replays_ = 0;
    bool budget_exhausted_ = false;
};

}  // namespace

bool run_outcome_met(const RunResult& result) {
    const bool ended = std::any_of(
        result.timeline.begin(), result.timeline.end(),
        [](const TimelineEvent& e) { return e.what == "job.finished" || e.what == "job.failed"; });
    return result.expectation_met && ended;
}

std::string FailureSignature::what() const {
    return invariant.empty() ? oracle + " fires" : "engine " + invariant;
}

Replay replay_run(const Scenario& scenario, const RunOptions& options) {
    const sim::ScopedInvariantHandler stops_the_run(sim::throw_invariant_broken);
    Replay replay;
    try {
        replay.result = run_scenario(scenario, options);
    } catch (const sim::InvariantBrokenError& broken) {
        replay.invariant_broken = broken.what();
    }
    return replay;
}

std::optional<FailureSignature> failure_of(const RunResult& result) {
    for (const OracleVerdict& v : result.verdicts) {
        if (!v.passed) return FailureSignature{v.oracle, run_outcome_met(result), ""};
    }
    return std::nullopt;
}

std::optional<FailureSignature> failure_of(const Replay& replay) {
    if (!replay.invariant_broken.empty())
        return FailureSignature{"", false, replay.invariant_broken};
    return failure_of(*replay.result);
}

bool shows(const Replay& replay, const FailureSignature& target) {
    if (!target.invariant.empty()) return replay.invariant_broken == target.invariant;
    if (!replay.result || run_outcome_met(*replay.result) != target.expectation_met) return false;
    return std::any_of(
        replay.result->verdicts.begin(), replay.result->verdicts.end(),
        [&](const OracleVerdict& v) { return !v.passed && v.oracle == target.oracle; });
}

std::optional<ShrinkResult> shrink_failing_run(const Scenario& scenario, uint64_t seed,
                                               const ShrinkOptions& options) {
    const Replay original = replay_run(scenario, run_options(seed, options));
    const std::optional<FailureSignature> target = failure_of(original);
    if (!target) return std::nullopt;

    ShrinkResult result;
    result.target = *target;
    result.faults_before = fault_plan(scenario, seed);
    for (const InputSpec& in : scenario.inputs) result.records_before.push_back(in.records);
    for (const DeploymentSpec& d : scenario.deployments)
        result.deployments_at_before.push_back(d.at);

    Shrinker shrinker(scenario, seed, *target, options);
    std::vector<sim::FaultSpec> faults = result.faults_before;
    std::vector<int64_t> records = result.records_before;
    shrinker.note("replaying with the schedule made explicit (" + std::to_string(faults.size()) +
                  " faults)");
    if (shrinker.fails(faults, records)) {
        // Faults that never fired: gone in one step when the failure does not need them (a run
        // that broke an invariant left no account of its faults: ddmin finds the ones it needs).
        if (original.result) {
            std::vector<bool> did_fire(faults.size(), false);
            for (const sim::FiredFault& f : original.result->faults) {
                if (f.plan_index < did_fire.size()) did_fire[f.plan_index] = true;
            }
            std::vector<sim::FaultSpec> fired;
            for (size_t i = 0; i < faults.size(); ++i) {
                if (did_fire[i]) fired.push_back(faults[i]);
            }
            if (fired.size() < faults.size() && shrinker.fails(fired, records))
                faults = std::move(fired);
        }
        for (int round = 0; round < kMaxRounds; ++round) {
            const size_t before = faults.size();
            shrinker.ddmin(faults, records);
            shrinker.note("round " + std::to_string(round + 1) + ": " +
                          std::to_string(faults.size()) + " faults after ddmin (" +
                          std::to_string(shrinker.replays()) + " replays so far)");
            bool changed = faults.size() != before;
            changed = shrinker.cut_records(faults, records) || changed;
            changed = shrinker.simplify_faults(faults, records) || changed;
            changed = shrinker.earlier_deployments(faults, records) || changed;
            if (!changed || shrinker.budget_exhausted()) break;
        }
    } else {
        shrinker.note("the explicit schedule does not reproduce the failure; keeping the original");
    }
    result.faults_after = faults;
    result.records_after = records;
    result.deployments_at_after = shrinker.deployment_at();
    result.minimal = shrinker.make(faults, records);
    result.last = replay_run(result.minimal, run_options(seed, options));
    result.replays = shrinker.replays() + 1;
    result.budget_exhausted = shrinker.budget_exhausted();
    return result;
}

nlohmann::ordered_json shrunk_scenario_document(const nlohmann::ordered_json& original,
                                                const ShrinkResult& result,
                                                const std::string& source, uint64_t seed) {
    nlohmann::ordered_json doc = original;
    Reproducer shrunk_from;
    shrunk_from.file = source;
    shrunk_from.seed = seed;
    const std::string origin = "Shrunk by `" + shrunk_from.shrink_text() +
                               "`: " + std::to_string(result.faults_after.size()) + " of " +
                               std::to_string(result.faults_before.size()) +
                               " faults; the same failure: " + result.target.what() +
                               ". Run it with --seed " + std::to_string(seed) + ".";
    const std::string description = doc.contains("description") && doc["description"].is_string()
                                        ? doc["description"].get<std::string>()
                                        : "";
    doc["description"] = origin + (description.empty() ? "" : " Original: " + description);
    if (doc.contains("name") && doc["name"].is_string()) {
        doc["name"] = doc["name"].get<std::string>() + "-seed" + std::to_string(seed) + "-shrunk";
    }
    if (doc.contains("input") && doc["input"].is_array()) {
        for (size_t i = 0; i < doc["input"].size() && i < result.records_after.size(); ++i) {
            doc["input"][i]["records"] = result.records_after[i];
        }
    }
    if (doc.contains("deployments") && doc["deployments"].is_array()) {
        for (size_t d = 0; d < doc["deployments"].size() && d < result.deployments_at_after.size();
             ++d) {
            if (result.deployments_at_after[d] != result.deployments_at_before[d]) {
                doc["deployments"][d]["at"] = format_duration_exact(result.deployments_at_after[d]);
            }
        }
    }
    doc["faults"] = nlohmann::ordered_json{{"schedule", faults_to_json(result.faults_after)}};
    return doc;
}

}  // namespace eosim::scenarios
