#include "reports/suite_summary.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "reports/run_report.h"

namespace eosim::reports {

namespace {

void add(ScenarioSummary& s, const RunRecord& r) {
    s.seeds.push_back(r.seed);
    ++s.runs;
    if (r.status == RunStatus::passed) ++s.passed;
    if (r.status != RunStatus::passed) ++s.failed;
    if (r.status == RunStatus::error) ++s.errors;
    if (expected_violation_found(r)) ++s.violations_found;
    s.wall_seconds += r.wall_seconds;
    s.faults.planned += r.figures.faults_planned;
    s.faults.fired += r.figures.faults_fired;
    s.faults.without_effect += r.figures.faults_without_effect;
    s.faults.not_fired += r.figures.faults_not_fired;
}

std::string wall_text(double seconds) {
    char text[32];
    if (seconds < 60) {
        std::snprintf(text, sizeof text, "%.1fs", seconds);
    } else {
        std::snprintf(text, sizeof text, "%dm%02ds", static_cast<int>(seconds) / 60,
                      static_cast<int>(seconds) % 60);
    }
    return text;
}

}  // namespace

std::string faults_text(const scenarios::FaultTally& t) {
    if (t.planned == 0) return "-";
    return std::to_string(t.planned) + "/" + std::to_string(t.fired) + "/" +
           std::to_string(t.without_effect);
}

std::string scenario_result(const ScenarioSummary& s, bool sometimes_checked) {
    if (s.failed > 0) return "FAILED";
    const bool violation_missing = s.expects_violation && s.violations_found == 0 && s.runs > 0;
    if (violation_missing) return sometimes_checked ? "NOT FOUND" : "none yet";
    if (!s.sometimes_missing.empty()) return "MISSING";
    return "ok";
}

std::string short_expectation(const scenarios::Expectation& expect) {
    if (!expect.job_failure.empty()) {
        constexpr size_t kShown = 16;
        const std::string& text = expect.job_failure;
        return "job fails: \"" + (text.size() <= kShown ? text : text.substr(0, kShown) + "...") +
               "\"";
    }
    if (expect.pass) return "pass";
    return (expect.every_seed ? "violates " : "may violate ") + expect.violation;
}

bool SuiteSummary::all_met() const {
    if (total.failed != 0) return false;
    return std::all_of(scenarios.begin(), scenarios.end(),
                       [](const ScenarioSummary& s) { return s.sometimes_missing.empty(); });
}

SuiteSummary summarize(const std::vector<RunRecord>& records,
                       const std::map<std::string, std::vector<std::string>>* sometimes) {
    std::map<std::string, ScenarioSummary> by_name;
    for (const RunRecord& r : records) {
        ScenarioSummary& s = by_name[r.scenario];
        if (s.runs == 0) {
            s.scenario = r.scenario;
            s.expectation = describe_expectation(r.expect);
            s.short_expectation = reports::short_expectation(r.expect);
            s.expects_violation = !r.expect.pass;
        }
        add(s, r);
    }
    SuiteSummary summary;
    summary.total.scenario = "total";
    summary.sometimes_checked = sometimes != nullptr;
    for (auto& [name, s] : by_name) {
        std::sort(s.seeds.begin(), s.seeds.end());
        if (sometimes != nullptr) {
            if (auto it = sometimes->find(name); it != sometimes->end()) {
                for (const std::string& combination : it->second) s.sometimes_runs[combination] = 0;
            }
            for (const RunRecord& r : records) {
                if (r.scenario != name) continue;
                for (auto& [combination, runs] : s.sometimes_runs)
                    runs += r.coverage.count(combination) != 0 ? 1 : 0;
            }
            for (const auto& [combination, runs] : s.sometimes_runs) {
                if (runs == 0) s.sometimes_missing.push_back(combination);
            }
        }
        summary.scenarios.push_back(s);
    }
    for (const RunRecord& r : records) add(summary.total, r);
    std::sort(summary.total.seeds.begin(), summary.total.seeds.end());
    summary.total.seeds.erase(std::unique(summary.total.seeds.begin(), summary.total.seeds.end()),
                              summary.total.seeds.end());
    return summary;
}

std::string seed_ranges(const std::vector<uint64_t>& seeds, size_t max_ranges) {
    if (seeds.empty()) return "-";
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    for (uint64_t seed : seeds) {
        if (!ranges.empty() && (seed == ranges.back().second || seed == ranges.back().second + 1)) {
            ranges.back().second = seed;
        } else {
            ranges.emplace_back(seed, seed);
        }
    }
    auto range_text = [](uint64_t a, uint64_t b) {
        return a == b ? std::to_string(a) : std::to_string(a) + ".." + std::to_string(b);
    };
    if (ranges.size() > max_ranges) {
        return std::to_string(seeds.size()) + " seeds in " +
               range_text(seeds.front(), seeds.back());
    }
    std::string out;
    for (const auto& [a, b] : ranges) out += (out.empty() ? "" : ", ") + range_text(a, b);
    return out;
}

namespace {

// The seeds every row ran, when they are the same for every row (then said once above the table
// instead of in a column); "" when they differ.
std::string shared_seeds(const SuiteSummary& summary) {
    if (summary.scenarios.empty()) return "";
    const std::vector<uint64_t>& first = summary.scenarios.front().seeds;
    for (const ScenarioSummary& s : summary.scenarios) {
        if (s.seeds != first) return "";
    }
    return seed_ranges(first);
}

}  // namespace

void write_summary_table(std::ostream& out, const SuiteSummary& summary) {
    const std::string seeds_once = shared_seeds(summary);
    size_t name_width = 8, expect_width = 6, seeds_width = 5, faults_width = 6;
    for (const ScenarioSummary& s : summary.scenarios) {
        name_width = std::max(name_width, s.scenario.size());
        expect_width = std::max(expect_width, s.short_expectation.size());
        seeds_width = std::max(seeds_width, seed_ranges(s.seeds).size());
        faults_width = std::max(faults_width, faults_text(s.faults).size());
    }
    faults_width = std::max(faults_width, faults_text(summary.total.faults).size());
    if (!seeds_once.empty()) {
        seeds_width = 0;
        out << "seeds " << seeds_once << " for every scenario\n";
    }
    char line[512];
    auto row = [&](const std::string& name, const std::string& expect, const std::string& seeds,
                   const std::string& met, const std::string& errors, const std::string& found,
                   const std::string& result, const std::string& faults, const std::string& wall) {
        const std::string seeds_cell =
            seeds_width == 0
                ? ""
                : seeds + std::string(seeds_width - std::min(seeds_width, seeds.size()) + 2, ' ');
        std::snprintf(line, sizeof line, "%-*s  %-*s  %s%9s %3s %5s  %-9s %*s %6s\n",
                      static_cast<int>(name_width), name.c_str(), static_cast<int>(expect_width),
                      expect.c_str(), seeds_cell.c_str(), met.c_str(), errors.c_str(),
                      found.c_str(), result.c_str(), static_cast<int>(faults_width), faults.c_str(),
                      wall.c_str());
        out << line;
    };
    auto met = [](const ScenarioSummary& s) {
        return std::to_string(s.passed) + "/" + std::to_string(s.runs);
    };
    row("scenario", "expect", "seeds", "met/runs", "err", "found", "result", "faults", "wall");
    for (const ScenarioSummary& s : summary.scenarios) {
        row(s.scenario, s.short_expectation, seed_ranges(s.seeds), met(s), std::to_string(s.errors),
            s.expects_violation ? std::to_string(s.violations_found) : "-",
            scenario_result(s, summary.sometimes_checked), faults_text(s.faults),
            wall_text(s.wall_seconds));
    }
    const ScenarioSummary& t = summary.total;
    row("total", "", "", met(t), std::to_string(t.errors), std::to_string(t.violations_found),
        summary.all_met() ? "ok" : (t.failed > 0 ? "FAILED" : "MISSING"), faults_text(t.faults),
        wall_text(t.wall_seconds));
    out << "(met/runs: runs that met the scenario's expectation; err: runs that crashed, hung or ran out of memory;\n"
           " found: runs of a negative control in which the expected oracle fired; result: ok, FAILED (a run did not\n"
           " meet its expectation), NOT FOUND (a negative control whose violation appeared in no run: each run may\n"
           " pass alone, the scenario does not), MISSING (an expected coverage combination never happened); faults:\n"
           " planned/fired with an effect/without effect over the runs (`eosim run` says why the rest never fired);\n"
           " wall: the runs' own wall time)\n";
    bool any_sometimes = false;
    for (const ScenarioSummary& s : summary.scenarios) {
        if (s.sometimes_runs.empty()) continue;
        if (!any_sometimes)
            out << "coverage a scenario expects sometimes (runs in which it happened):\n";
        any_sometimes = true;
        out << "  " << s.scenario << ":";
        for (const auto& [combination, runs] : s.sometimes_runs) {
            out << ' ' << combination << ' ' << (runs == 0 ? "NEVER" : std::to_string(runs));
            if (&combination != &s.sometimes_runs.rbegin()->first) out << ',';
        }
        out << '\n';
    }
    for (const ScenarioSummary& s : summary.scenarios) {
        for (const std::string& combination : s.sometimes_missing) {
            out << "SOMETIMES NEVER MET: " << s.scenario << ": " << combination
                << " happened in none of its " << s.runs << " runs\n";
        }
    }
}

nlohmann::json to_json(const SuiteSummary& summary) {
    auto row = [](const ScenarioSummary& s) {
        nlohmann::json j = {{"scenario", s.scenario},
                            {"seeds", seed_ranges(s.seeds, SIZE_MAX)},
                            {"runs", s.runs},
                            {"passed", s.passed},
                            {"failed", s.failed},
                            {"errors", s.errors},
                            {"wall_seconds", s.wall_seconds}};
        if (!s.expectation.empty()) j["expect"] = s.expectation;
        j["faults"] = {{"planned", s.faults.planned},
                       {"fired", s.faults.fired},
                       {"without_effect", s.faults.without_effect},
                       {"not_fired", s.faults.not_fired}};
        if (s.expects_violation) j["violations_found"] = s.violations_found;
        if (!s.sometimes_runs.empty()) {
            j["sometimes"] = s.sometimes_runs;
            j["sometimes_missing"] = s.sometimes_missing;
        }
        return j;
    };
    nlohmann::json rows = nlohmann::json::array();
    for (const ScenarioSummary& s : summary.scenarios) {
        rows.push_back(row(s));
        rows.back()["result"] = scenario_result(s, summary.sometimes_checked);
    }
    nlohmann::json total = row(summary.total);
    total["violations_found"] = summary.total.violations_found;
    return {{"scenarios", std::move(rows)},
            {"total", std::move(total)},
            {"sometimes_checked", summary.sometimes_checked},
            {"all_met", summary.all_met()}};
}

}  // namespace eosim::reports
