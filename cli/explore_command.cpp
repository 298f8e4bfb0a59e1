#include "cli/explore_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cli/exit_codes.h"
#include "cli/run_values.h"
#include "scenarios/coverage.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/shrinker.h"

namespace eosim::cli {

namespace {

struct SeedOutcome {
    std::vector<std::string> fired;  // oracles that fired
    bool outcome_met = false;        // what `eosim run` would accept (exit 0)
    std::map<std::string, int64_t> coverage;
};

// Hands out seeds to the worker threads and prints finished ones in seed order.
class Exploration {
public:
    Exploration(const scenarios::Scenario& scenario, std::vector<uint64_t> seeds, bool unbounded, double budget_seconds,
                uint64_t max_events, std::ostream& out)
        : scenario_(scenario),
          seeds_(std::move(seeds)),
          unbounded_(unbounded),
          budget_seconds_(budget_seconds),
          max_events_(max_events),
          out_(out),
          start_(std::chrono::steady_clock::now()) {}

    void run(size_t jobs) {
        std::vector<std::thread> threads;
        for (size_t i = 0; i < jobs; ++i) threads.emplace_back([this] { work(); });
        for (std::thread& t : threads) t.join();
    }

    const std::map<uint64_t, SeedOutcome>& outcomes() const { return outcomes_; }
    double elapsed_seconds() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    bool next_seed(uint64_t& seed) {
        const size_t index = next_.fetch_add(1);
        if (budget_seconds_ > 0 && elapsed_seconds() >= budget_seconds_) return false;
        if (index < seeds_.size()) {
            seed = seeds_[index];
            return true;
        }
        if (!unbounded_ || seeds_.empty()) return false;
        seed = seeds_.back() + (index - seeds_.size() + 1);
        return true;
    }

    void work() {
        uint64_t seed = 0;
        while (next_seed(seed)) {
            scenarios::RunOptions options;
            options.seed = seed;
            options.max_events = max_events_;
            const scenarios::RunResult result = scenarios::run_scenario(scenario_, options);
            SeedOutcome outcome;
            for (const scenarios::OracleVerdict& v : result.verdicts) {
                if (!v.passed) outcome.fired.push_back(v.oracle);
            }
            outcome.outcome_met = scenarios::run_outcome_met(result);
            outcome.coverage = result.coverage;
            finished(seed, std::move(outcome));
        }
    }

    // Prints every finished seed whose predecessors have all been printed (ordered output).
    void finished(uint64_t seed, SeedOutcome outcome) {
        std::lock_guard<std::mutex> lock(mutex_);
        outcomes_.emplace(seed, std::move(outcome));
        pending_.push_back(seed);
        std::sort(pending_.begin(), pending_.end());
        while (!pending_.empty() && printable(pending_.front())) {
            print(pending_.front(), outcomes_.at(pending_.front()));
            printed_ = pending_.front();
            any_printed_ = true;
            pending_.erase(pending_.begin());
        }
    }

    // A seed is printable once every seed handed out before it has finished.
    bool printable(uint64_t seed) const {
        const uint64_t first = seeds_.empty() ? 0 : seeds_.front();
        if (!any_printed_) return seed == first;
        const auto it = std::upper_bound(seeds_.begin(), seeds_.end(), printed_);
        const uint64_t expected = it != seeds_.end() ? *it : printed_ + 1;
        return seed == expected;
    }

    void print(uint64_t seed, const SeedOutcome& outcome) {
        if (outcome.fired.empty() && outcome.outcome_met) return;
        std::string oracles;
        for (const std::string& name : outcome.fired) oracles += (oracles.empty() ? "" : ",") + name;
        out_ << "seed=" << seed << " oracle=" << (oracles.empty() ? "none" : oracles);
        if (!outcome.outcome_met) out_ << " (not expected)";
        out_ << "  reproduce: " << scenarios::reproduce_command(scenario_, seed) << '\n' << std::flush;
    }

    const scenarios::Scenario& scenario_;
    const std::vector<uint64_t> seeds_;
    const bool unbounded_;
    const double budget_seconds_;
    const uint64_t max_events_;
    std::ostream& out_;
    const std::chrono::steady_clock::time_point start_;
    std::atomic<size_t> next_{0};
    std::mutex mutex_;
    std::map<uint64_t, SeedOutcome> outcomes_;
    std::vector<uint64_t> pending_;
    uint64_t printed_ = 0;
    bool any_printed_ = false;
};

}  // namespace

int explore_command(const ExploreCommand& command, std::ostream& out, std::ostream& err) {
    scenarios::Scenario scenario;
    try {
        scenario = scenarios::load_scenario(command.file);
    } catch (const scenarios::ScenarioError& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    std::vector<uint64_t> seeds;
    double budget_seconds = 0;
    try {
        seeds = parse_seed_set(command.seeds.value_or(command.time_budget ? "1" : "1..100"));
        if (command.time_budget) {
            budget_seconds = parse_duration_seconds(*command.time_budget);
            if (budget_seconds <= 0) throw std::invalid_argument("--time-budget: expected a positive duration");
        }
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    const bool unbounded = command.time_budget && !command.seeds;  // a budget alone: seeds 1, 2, 3, ...
    size_t jobs = command.jobs != 0 ? command.jobs : std::max(1u, std::thread::hardware_concurrency());
    if (!unbounded) jobs = std::min(jobs, seeds.size());

    out << "explore " << command.file << ": "
        << (scenario.random_faults ? std::string(scenarios::to_string(scenario.random_faults->mode)) + " random faults"
                                   : std::string("its explicit faults only (no faults.random)"))
        << "; " << (unbounded ? "seeds from " + std::to_string(seeds.front()) : std::to_string(seeds.size()) + " seeds")
        << (command.time_budget ? " within " + *command.time_budget : std::string()) << "; " << jobs << " thread"
        << (jobs == 1 ? "" : "s") << '\n'
        << std::flush;
    Exploration exploration(scenario, seeds, unbounded, budget_seconds, command.max_events, out);
    exploration.run(jobs);

    const auto& outcomes = exploration.outcomes();
    scenarios::CoverageSummary coverage;
    for (const auto& [seed, outcome] : outcomes) coverage.add_run(outcome.coverage);
    out << scenarios::coverage_table(coverage, scenario.sometimes);
    const std::vector<std::string> never = scenarios::check_sometimes(coverage, scenario.sometimes);

    std::map<std::string, int64_t> per_oracle;
    int64_t seeds_fired = 0;
    int64_t not_met = 0;
    uint64_t first_failing = 0;
    for (const auto& [seed, outcome] : outcomes) {
        if (!outcome.fired.empty() && seeds_fired++ == 0) first_failing = seed;
        for (const std::string& name : outcome.fired) ++per_oracle[name];
        if (!outcome.outcome_met) ++not_met;
    }
    std::string by_oracle;
    for (const auto& [name, count] : per_oracle) by_oracle += (by_oracle.empty() ? "" : ", ") + name + ": " + std::to_string(count);
    char timing[96];
    std::snprintf(timing, sizeof timing, "%.1f s", exploration.elapsed_seconds());
    const uint64_t lowest = outcomes.empty() ? 0 : outcomes.begin()->first;
    const uint64_t highest = outcomes.empty() ? 0 : outcomes.rbegin()->first;
    out << "explored " << outcomes.size() << " seeds (" << lowest << ".." << highest << ") in " << timing << ": "
        << seeds_fired << " fired an oracle" << (by_oracle.empty() ? "" : " (" + by_oracle + ")") << '\n';
    if (seeds_fired > 0) out << "shrink one: eosim shrink " << command.file << " --seed " << first_failing << '\n';

    bool ok = not_met == 0 && never.empty();
    for (const std::string& name : never) out << "sometimes expectation never met: " << name << '\n';
    if (not_met > 0) out << not_met << " seed(s) gave an outcome the scenario does not expect (marked \"not expected\")\n";
    if (!scenario.expect.pass) {
        const std::string wanted = scenario.expect.violation;
        const bool found = per_oracle.count(wanted) != 0;
        out << "negative control: " << wanted << (found ? " found on " + std::to_string(per_oracle[wanted]) + " seed(s), as expected"
                                                        : " never found: the control did not show its bug")
            << '\n';
        ok = ok && found;
    }
    return ok ? kExitMet : kExitNotMet;
}

}  // namespace eosim::cli
