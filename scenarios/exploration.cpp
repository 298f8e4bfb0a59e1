#include "scenarios/exploration.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <thread>
#include <utility>

#include "scenarios/fault_json.h"
#include "scenarios/run/planned_faults.h"
#include "scenarios/run_shape.h"
#include "scenarios/scenario_run.h"
#include "scenarios/schedule_mutator.h"
#include "scenarios/shrinker.h"
#include "sim/invariant.h"

namespace eosim::scenarios {

namespace {

// One input of a generation: a seed, and for a guided mutant the schedule to run.
struct ExplorationInput {
    uint64_t seed = 0;
    std::optional<std::vector<sim::FaultSpec>> schedule;
    std::string origin = "seed";
};

// What the exploration keeps of a run beyond ExploreRun: the whole schedule it ran (a fresh
// run's drawn faults made explicit) and its keys, for the corpus.
struct ExplorationOutcome {
    ExploreRun run;
    std::vector<sim::FaultSpec> schedule;
    std::set<std::string> keys;
};

struct GuidedCorpusEntry {
    uint64_t seed = 0;
    std::vector<sim::FaultSpec> schedule;
    size_t run_index = 0;
    uint64_t energy = 1;
    uint64_t picks = 0;
};

ExplorationOutcome run_exploration_input(const Scenario& base, const ExplorationInput& input,
                                         const ExploreOptions& options) {
    const Scenario scenario = input.schedule ? with_explicit_schedule(base, *input.schedule) : base;
    RunShapeObserver shape;
    RunOptions run_options;
    run_options.seed = input.seed;
    run_options.max_events = options.max_events;
    run_options.observer = &shape;
    ExplorationOutcome out;
    out.run.seed = input.seed;
    out.run.schedule = input.schedule;
    out.run.origin = input.origin;
    out.schedule = fault_plan(scenario, input.seed);
    RunResult result;
    try {
        result = run_scenario(scenario, run_options);
    } catch (const sim::InvariantBrokenError& broken) {
        out.run.invariant_broken = broken.what();
        return out;  // not met, no coverage: it never joins the corpus
    }
    for (const OracleVerdict& v : result.verdicts) {
        if (!v.passed) out.run.fired.push_back(v.oracle);
    }
    out.run.outcome_met = run_outcome_met(result);
    out.run.trace_hash = result.trace_hash;
    out.run.coverage = result.coverage;
    out.keys = exploration_keys(result, shape.keys());
    return out;
}

// Runs a generation on `jobs` threads; the outcomes come back in input order.
std::vector<ExplorationOutcome> run_exploration_generation(
    const Scenario& scenario, const std::vector<ExplorationInput>& inputs,
    const ExploreOptions& options) {
    std::vector<ExplorationOutcome> outcomes(inputs.size());
    std::atomic<size_t> next{0};
    auto work = [&] {
        for (size_t i = next.fetch_add(1); i < inputs.size(); i = next.fetch_add(1)) {
            outcomes[i] = run_exploration_input(scenario, inputs[i], options);
        }
    };
    const size_t threads = std::max<size_t>(1, std::min(options.jobs, inputs.size()));
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (std::thread& t : pool) t.join();
    return outcomes;
}

// The guided strategy's state between generations.
class GuidedCorpus {
public:
    GuidedCorpus(const Scenario& scenario, uint64_t seed)
        : scenario_(scenario), prng_(sim::Prng(seed).fork("guided")) {}

    // The next input: a fresh seed, or a mutant of an entry picked by energy.
    ExplorationInput next_input(uint64_t fresh_seed, bool first_generation) {
        if (first_generation || entries_.empty() || prng_.below(4) == 0)
            return ExplorationInput{fresh_seed, std::nullopt, "seed"};
        GuidedCorpusEntry& entry = pick();
        ++entry.picks;
        const GuidedCorpusEntry& donor = entries_[prng_.below(entries_.size())];
        ScheduleMutant mutant =
            mutate_schedule(entry.schedule, scenario_.random_faults, prng_, &donor.schedule);
        return ExplorationInput{
            entry.seed, std::move(mutant.faults),
            "mutant of run " + std::to_string(entry.run_index + 1) + ": " + mutant.how};
    }

    // Energy: a new fault x phase (or point) combination weighs kPhaseKeyWeight run-shape keys --
    // the fault landing in a protocol window is the coverage the issue asks for; the event order
    // refines it.
    void consider(const ExplorationOutcome& outcome, size_t new_keys, size_t new_phase_keys) {
        if (new_keys == 0) return;
        constexpr uint64_t kPhaseKeyWeight = 8;
        const uint64_t energy = 1 + (new_keys - new_phase_keys) + kPhaseKeyWeight * new_phase_keys;
        entries_.push_back(
            GuidedCorpusEntry{outcome.run.seed, outcome.schedule, outcome.run.index, energy, 0});
    }

    size_t size() const { return entries_.size(); }

private:
    // Weight energy / (1 + picks), in integer arithmetic: energy * K / (1 + picks).
    GuidedCorpusEntry& pick() {
        constexpr uint64_t kScale = 1'000;
        uint64_t total = 0;
        for (const GuidedCorpusEntry& e : entries_) total += e.energy * kScale / (1 + e.picks) + 1;
        uint64_t at = prng_.below(total);
        for (GuidedCorpusEntry& e : entries_) {
            const uint64_t weight = e.energy * kScale / (1 + e.picks) + 1;
            if (at < weight) return e;
            at -= weight;
        }
        return entries_.back();
    }

    const Scenario& scenario_;
    sim::Prng prng_;
    std::vector<GuidedCorpusEntry> entries_;
};

}  // namespace

const char* to_string(ExploreStrategy strategy) {
    switch (strategy) {
        case ExploreStrategy::swarm: return "swarm";
        case ExploreStrategy::pct: return "pct";
        case ExploreStrategy::guided: return "guided";
    }
    return "?";
}

std::optional<ExploreStrategy> parse_explore_strategy(const std::string& name) {
    if (name == "swarm") return ExploreStrategy::swarm;
    if (name == "pct") return ExploreStrategy::pct;
    if (name == "guided") return ExploreStrategy::guided;
    return std::nullopt;
}

Scenario with_priority_delivery(const Scenario& scenario, const sim::PriorityDeliveryOptions& pct) {
    Scenario s = scenario;
    s.world.network.priority_delivery = pct;
    return s;
}

Scenario with_explicit_schedule(const Scenario& scenario,
                                const std::vector<sim::FaultSpec>& faults) {
    Scenario s = scenario;
    s.faults = faults;
    s.random_faults.reset();
    s.strict_faults = false;
    return s;
}

std::set<std::string> exploration_keys(const RunResult& result,
                                       const std::set<std::string>& shape_keys) {
    std::set<std::string> keys = shape_keys;
    for (const auto& [name, hits] : result.coverage) {
        if (hits > 0) keys.insert(name);
    }
    return keys;
}

ExploreReport explore_scenario(const Scenario& scenario, const std::vector<uint64_t>& seeds,
                               bool unbounded, const ExploreOptions& options,
                               const ExploreProgress& progress) {
    EOSIM_INVARIANT(!seeds.empty(), "exploration over at least one seed");
    const sim::ScopedInvariantHandler one_run_stops(sim::throw_invariant_broken);
    const Scenario base = options.strategy == ExploreStrategy::pct
                              ? with_priority_delivery(scenario, options.pct)
                              : scenario;
    const size_t total = unbounded ? std::numeric_limits<size_t>::max() : seeds.size();
    // Swarm and pct runs are independent: a generation is as large as keeps the threads busy.
    // Guided generations have a fixed size: the inputs of one depend on the corpus the earlier
    // made.
    const size_t generation_size = options.strategy == ExploreStrategy::guided
                                       ? std::max<size_t>(1, options.guided_batch)
                                       : std::max<size_t>(8, 4 * std::max<size_t>(1, options.jobs));
    GuidedCorpus corpus(base, options.guided_seed != 0 ? options.guided_seed : seeds.front());
    std::set<std::string> seen;
    ExploreReport report;
    size_t next_fresh = 0;  // index into the seed sequence of the next fresh seed
    auto fresh_seed = [&] {
        return next_fresh < seeds.size() ? seeds[next_fresh++]
                                         : seeds.back() + (++next_fresh - seeds.size());
    };
    while (report.runs.size() < total) {
        const size_t count = std::min(generation_size, total - report.runs.size());
        std::vector<ExplorationInput> inputs;
        for (size_t i = 0; i < count; ++i) {
            if (options.strategy == ExploreStrategy::guided) {
                const bool first = report.runs.empty();
                ExplorationInput input = corpus.next_input(0, first);
                input.seed = fresh_seed();  // mutants too: a fault schedule on another input and
                                            // other latencies
                inputs.push_back(std::move(input));
            } else {
                inputs.push_back(ExplorationInput{fresh_seed(), std::nullopt, "seed"});
            }
        }
        std::vector<ExplorationOutcome> outcomes =
            run_exploration_generation(base, inputs, options);
        std::vector<ExploreRun> generation;
        for (ExplorationOutcome& outcome : outcomes) {
            outcome.run.index = report.runs.size() + generation.size();
            size_t new_phase_keys = 0;
            for (const std::string& key : outcome.keys) {
                if (!seen.insert(key).second) continue;
                ++outcome.run.new_keys;
                if (outcome.run.coverage.count(key) != 0)
                    ++new_phase_keys;  // a fault x phase combination
            }
            outcome.run.coverage_keys_after = seen.size();
            if (options.strategy == ExploreStrategy::guided)
                corpus.consider(outcome, outcome.run.new_keys, new_phase_keys);
            generation.push_back(outcome.run);
        }
        report.runs.insert(report.runs.end(), generation.begin(), generation.end());
        if (progress && !progress(generation, seen.size())) break;
    }
    report.coverage_keys = seen.size();
    report.corpus_size = corpus.size();
    return report;
}

nlohmann::ordered_json guided_scenario_document(const nlohmann::ordered_json& original,
                                                const ExploreRun& run, const std::string& source) {
    nlohmann::ordered_json doc = original;
    const std::string origin = "Written by `eosim explore " + source + " --strategy guided` (run " +
                               std::to_string(run.index + 1) + ", " + run.origin +
                               "). Run it with --seed " + std::to_string(run.seed) + ".";
    const std::string description = doc.contains("description") && doc["description"].is_string()
                                        ? doc["description"].get<std::string>()
                                        : "";
    doc["description"] = origin + (description.empty() ? "" : " Original: " + description);
    if (doc.contains("name") && doc["name"].is_string()) {
        doc["name"] =
            doc["name"].get<std::string>() + "-guided-run" + std::to_string(run.index + 1);
    }
    doc["faults"] = nlohmann::ordered_json{
        {"schedule", faults_to_json(run.schedule ? *run.schedule : std::vector<sim::FaultSpec>{})}};
    return doc;
}

}  // namespace eosim::scenarios
