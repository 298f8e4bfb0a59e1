#include "cli/sensitivity_command.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iomanip>
#include <map>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/files.h"
#include "cli/run_values.h"
#include "cli/suite_plan.h"
#include "cli/worker_pool.h"
#include "reports/run_record.h"
#include "scenarios/sensitivity.h"

namespace eosim::cli {

namespace {

using nlohmann::json;

// One scenario x twin of the check, and what its runs showed.
struct TwinCheck {
    std::string scenario;
    std::string file;
    std::string twin;
    std::string summary;
    std::vector<uint64_t> seeds;
    bool skipped = false;
    std::string why;  // the scenario's reason, when skipped
    std::string not_applicable;  // why the twin cannot run as the same scenario (the loader's error)
    int64_t caught = 0;
    std::map<std::string, int64_t> by;  // oracle -> seeds it fired on
    int64_t errors = 0;
    std::string first_error;
    std::optional<uint64_t> first_caught_seed;

    std::string verdict() const {
        if (skipped) return "skipped";
        if (!not_applicable.empty()) return "not applicable";
        if (caught > 0) return "caught";
        return errors > 0 ? "ERRORS" : "NOT CAUGHT";
    }
};

std::vector<TwinCheck> plan_checks(const SuitePlan& plan) {
    std::vector<TwinCheck> checks;
    for (const PlannedScenario& s : plan.scenarios) {
        if (!s.expect.pass || !s.expect.job_failure.empty()) continue;  // only scenarios that expect every oracle to pass
        const scenarios::Scenario loaded = scenarios::load_scenario(s.file);
        for (const scenarios::KnownBadTwin& twin : scenarios::known_bad_twins_of(s.file)) {
            TwinCheck check;
            check.scenario = s.name;
            check.file = s.file;
            check.twin = twin.name;
            check.summary = twin.summary;
            check.seeds = s.seeds;
            const auto& skip = loaded.sensitivity_skip;
            check.skipped = std::find(skip.begin(), skip.end(), twin.name) != skip.end();
            if (check.skipped) check.why = loaded.sensitivity_why;
            // A twin whose scenario the loader refuses cannot run with the same faults, e.g. a fault
            // at sink.precommitted, which only the exactly-once sink announces.
            try {
                scenarios::load_twin(s.file, loaded.name, twin);
            } catch (const scenarios::ScenarioError& error) {
                check.not_applicable = error.what();
            }
            checks.push_back(std::move(check));
        }
    }
    return checks;
}

// The JSON object a worker printed last, or nullopt.
std::optional<reports::RunRecord> record_of(const WorkerOutcome& o) {
    if (o.timed_out || o.term_signal != 0 || (o.exit_code != 0 && o.exit_code != 1)) return std::nullopt;
    try {
        return reports::run_record_from_json(json::parse(final_line(o.out)));
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

std::string by_text(const TwinCheck& c) {
    std::string text;
    for (const auto& [oracle, seeds] : c.by) text += (text.empty() ? "" : ", ") + oracle + " " + std::to_string(seeds);
    return text;
}

void print_table(const std::vector<TwinCheck>& checks, std::ostream& out) {
    size_t scenario_width = 8;
    size_t twin_width = 4;
    for (const TwinCheck& c : checks) {
        scenario_width = std::max(scenario_width, c.scenario.size());
        twin_width = std::max(twin_width, c.twin.size());
    }
    out << std::left << std::setw(static_cast<int>(scenario_width) + 2) << "scenario" << std::setw(static_cast<int>(twin_width) + 2)
        << "twin" << std::setw(12) << "caught" << "by\n";
    for (const TwinCheck& c : checks) {
        out << std::left << std::setw(static_cast<int>(scenario_width) + 2) << c.scenario << std::setw(static_cast<int>(twin_width) + 2)
            << c.twin;
        if (c.skipped) {
            out << std::setw(12) << "skipped" << "the scenario says: " << c.why << '\n';
            continue;
        }
        if (!c.not_applicable.empty()) {
            out << std::setw(12) << "n/a" << "the twin cannot run with the same faults: " << c.not_applicable << '\n';
            continue;
        }
        const std::string caught = std::to_string(c.caught) + "/" + std::to_string(c.seeds.size());
        out << std::setw(12) << caught;
        if (c.caught == 0) out << (c.errors > 0 ? "ERRORS" : "NOT CAUGHT");
        else out << by_text(c);
        if (c.errors > 0) out << "  (" << c.errors << " runs failed to run: " << c.first_error << ")";
        out << '\n';
    }
}

json table_json(const std::vector<TwinCheck>& checks) {
    json rows = json::array();
    for (const TwinCheck& c : checks) {
        json row = {{"scenario", c.scenario}, {"file", c.file}, {"twin", c.twin}, {"summary", c.summary},
                    {"verdict", c.verdict()}, {"seeds", c.seeds.size()}, {"caught", c.caught}, {"by", c.by},
                    {"errors", c.errors}};
        if (c.skipped) row["why"] = c.why;
        if (!c.not_applicable.empty()) row["why"] = c.not_applicable;
        if (c.errors > 0) row["first_error"] = c.first_error;
        if (c.first_caught_seed) row["reproduce"] = "eosim run " + c.file + " --twin " + c.twin + " --seed " + std::to_string(*c.first_caught_seed);
        rows.push_back(std::move(row));
    }
    return rows;
}

}  // namespace

int sensitivity_command(const SensitivityCommand& command, std::ostream& out, std::ostream& err) {
    SuitePlan plan;
    std::vector<TwinCheck> checks;
    double timeout = 0;
    try {
        plan = load_suite_plan(command.path, command.seeds);
        checks = plan_checks(plan);
        timeout = parse_duration_seconds(command.timeout);
    } catch (const scenarios::ScenarioError& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    const std::string program = command.self_program.empty() ? "/proc/self/exe" : command.self_program;
    std::vector<WorkerTask> tasks;
    std::vector<std::pair<size_t, uint64_t>> task_of;  // task id -> check, seed
    for (size_t i = 0; i < checks.size(); ++i) {
        if (checks[i].skipped || !checks[i].not_applicable.empty()) continue;
        for (uint64_t seed : checks[i].seeds) {
            tasks.push_back({tasks.size(), {program, "run", checks[i].file, "--twin", checks[i].twin, "--seed", std::to_string(seed), "--json"}});
            task_of.emplace_back(i, seed);
        }
    }
    const auto start = std::chrono::steady_clock::now();
    const unsigned jobs = command.jobs != 0 ? command.jobs : std::max(1u, std::thread::hardware_concurrency());
    WorkerPool pool(jobs, WorkerLimits{timeout, 0, 64u << 20});
    std::vector<std::vector<uint64_t>> caught_seeds(checks.size());
    pool.run(tasks, [&](WorkerOutcome&& outcome) {
        const auto [index, seed] = task_of[outcome.id];
        TwinCheck& c = checks[index];
        const std::optional<reports::RunRecord> record = record_of(outcome);
        if (!record) {
            if (c.errors++ == 0) c.first_error = failure_of(outcome) + " (seed " + std::to_string(seed) + ")";
            return;
        }
        bool caught = false;
        for (const auto& verdict : record->verdicts) {
            if (verdict.passed) continue;
            ++c.by[verdict.oracle];
            caught = true;
        }
        if (caught) caught_seeds[index].push_back(seed);
    }, [] { return false; });
    for (size_t i = 0; i < checks.size(); ++i) {
        checks[i].caught = static_cast<int64_t>(caught_seeds[i].size());
        if (!caught_seeds[i].empty()) checks[i].first_caught_seed = *std::min_element(caught_seeds[i].begin(), caught_seeds[i].end());
    }
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    size_t blind = 0;
    size_t skipped = 0;
    std::map<std::string, int> scenarios_checked;
    for (const TwinCheck& c : checks) {
        ++scenarios_checked[c.scenario];
        if (c.skipped || !c.not_applicable.empty()) ++skipped;
        else if (c.caught == 0) ++blind;
    }
    char head[200];
    std::snprintf(head, sizeof head, "sensitivity: %zu scenarios that expect to pass, %zu known-bad twins, %zu runs in %.1f s\n\n",
                  scenarios_checked.size(), checks.size(), tasks.size(), wall);
    out << head;
    print_table(checks, out);
    out << '\n';
    if (blind == 0) {
        out << "every twin that applies was caught on some seed" << (skipped > 0 ? " (" + std::to_string(skipped) + " skipped or not applicable, with the reason)" : "")
            << '\n';
    } else {
        out << blind << " twin(s) NOT CAUGHT: their scenarios cannot tell that bug class from a correct run; sharpen them "
            << "(faults aimed where the twin differs) or say why with \"sensitivity\": {\"skip\", \"why\"}\n";
    }
    if (!command.json_path.empty()) {
        const std::string problem = write_file_atomically(command.json_path, table_json(checks).dump(2) + "\n");
        if (!problem.empty()) {
            err << "error: " << problem << '\n';
            return kExitBadInput;
        }
    }
    return blind == 0 ? kExitMet : kExitNotMet;
}

}  // namespace eosim::cli
