#include "cli/sensitivity_check.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/worker_pool.h"
#include "reports/run_record.h"
#include "scenarios/sensitivity.h"

namespace eosim::cli {

namespace {

// The run record a worker printed last, or nullopt when it did not complete.
std::optional<reports::RunRecord> record_of(const WorkerOutcome& o) {
    if (o.timed_out || o.term_signal != 0 || (o.exit_code != 0 && o.exit_code != 1))
        return std::nullopt;
    try {
        return reports::run_record_from_json(nlohmann::json::parse(final_line(o.out)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::string failure_of(const WorkerOutcome& o) {
    if (o.timed_out) return "timed out";
    if (o.term_signal != 0) return "killed by " + signal_name(o.term_signal);
    const std::string line = last_line(o.err_tail);
    return "exit code " + std::to_string(o.exit_code) + (line.empty() ? "" : ": " + line);
}

}  // namespace

reports::SensitivityTable plan_sensitivity(const SuitePlan& plan) {
    reports::SensitivityTable table;
    for (const PlannedScenario& s : plan.scenarios) {
        if (!s.expect.job_failure.empty()) continue;
        const scenarios::Scenario loaded = scenarios::load_scenario(s.file);
        for (const scenarios::KnownBadTwin& twin : scenarios::known_bad_twins_of(s.file)) {
            // A negative control runs only the twins it targets (caught where its violation
            // vanishes).
            if (!s.expect.pass && !twin.targeted) continue;
            reports::TwinResult t;
            t.scenario = s.name;
            t.file = s.file;
            t.twin = twin.name;
            t.summary = twin.summary;
            t.seeds = s.seeds.size();
            const auto& skip = loaded.sensitivity_skip;
            t.skipped = std::find(skip.begin(), skip.end(), twin.name) != skip.end();
            if (t.skipped) t.why = loaded.sensitivity_why;
            // A twin whose scenario the loader refuses cannot run with the same faults, e.g. a
            // fault at sink.precommitted, which only the exactly-once sink announces.
            try {
                scenarios::load_twin(s.file, loaded.name, twin);
            } catch (const scenarios::ScenarioError& error) {
                t.not_applicable = error.what();
            }
            table.twins.push_back(std::move(t));
        }
    }
    return table;
}

void run_sensitivity(reports::SensitivityTable& table, const SuitePlan& plan,
                     const InProcessWorker& worker, unsigned jobs, double timeout_seconds) {
    std::map<std::string, const PlannedScenario*> by_file;
    for (const PlannedScenario& s : plan.scenarios) by_file[s.file] = &s;
    std::vector<WorkerTask> tasks;
    std::vector<std::pair<size_t, uint64_t>> task_of;  // task id -> twin, seed
    for (size_t i = 0; i < table.twins.size(); ++i) {
        const reports::TwinResult& t = table.twins[i];
        if (t.skipped || !t.not_applicable.empty()) continue;
        for (uint64_t seed : by_file.at(t.file)->seeds) {
            std::vector<std::string> argv = t.reproducer(seed).arguments();
            argv.insert(argv.begin(), worker.program);
            argv.insert(argv.end(), {"--json", "--json-history", "none"});
            tasks.push_back({tasks.size(), std::move(argv)});
            task_of.emplace_back(i, seed);
        }
    }
    const auto start = std::chrono::steady_clock::now();
    WorkerPool pool(std::max(1u, jobs), WorkerLimits{timeout_seconds, 0, 64u << 20}, worker);
    std::vector<std::vector<uint64_t>> caught_seeds(table.twins.size());
    pool.run(
        tasks,
        [&](WorkerOutcome&& outcome) {
            const auto [index, seed] = task_of[outcome.id];
            reports::TwinResult& t = table.twins[index];
            const std::optional<reports::RunRecord> record = record_of(outcome);
            if (!record) {
                if (t.errors++ == 0)
                    t.first_error = failure_of(outcome) + " (seed " + std::to_string(seed) + ")";
                return;
            }
            bool caught = false;
            if (!by_file.at(t.file)->expect.pass) {
                // A negative control's twin is caught where the run misses the expected violation.
                caught = !record->expectation_met;
                if (caught) ++t.by["no " + by_file.at(t.file)->expect.violation];
            }
            for (const auto& verdict : record->verdicts) {
                if (verdict.passed || !by_file.at(t.file)->expect.pass) continue;
                ++t.by[verdict.oracle];
                caught = true;
            }
            if (caught) caught_seeds[index].push_back(seed);
        },
        [] { return false; });
    for (size_t i = 0; i < table.twins.size(); ++i) {
        table.twins[i].caught = static_cast<int64_t>(caught_seeds[i].size());
        if (!caught_seeds[i].empty())
            table.twins[i].first_caught_seed =
                *std::min_element(caught_seeds[i].begin(), caught_seeds[i].end());
    }
    table.runs = tasks.size();
    table.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace eosim::cli
