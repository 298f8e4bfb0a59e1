#include "cli/suite_plan.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "cli/run_values.h"
#include "reports/run_record.h"
#include "reports/suite_summary.h"
#include "scenarios/scenario_files.h"
#include "scenarios/scenario_run.h"

namespace eosim::cli {

namespace {

using nlohmann::json;
using scenarios::ScenarioError;

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() &&
           text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_suite_file(const std::filesystem::path& path) {
    return ends_with(path.filename().string(), ".suite.json");
}

std::string display(const std::filesystem::path& path) { return path.lexically_normal().string(); }

std::vector<std::filesystem::path> scenarios_in_folder(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> files = scenarios::scenario_files_in(folder);
    if (files.empty()) {
        throw ScenarioError(
            display(folder), "/",
            "expected a folder with scenario files (*.json, in it or its subfolders), found none");
    }
    return files;
}

std::vector<uint64_t> seeds_at(const std::string& text, const std::string& file,
                               const std::string& path) {
    try {
        return parse_seed_set(text);
    } catch (const std::invalid_argument& error) {
        throw ScenarioError(file, path, error.what());
    }
}

// Collects scenarios by name, merging repeated entries of the same file.
class PlanBuilder {
public:
    void add(const std::filesystem::path& file, const std::vector<uint64_t>& seeds,
             const std::optional<scenarios::Expectation>& expect, const std::string& where_file,
             const std::string& where_path) {
        const scenarios::Scenario scenario = scenarios::load_scenario(file);
        PlannedScenario planned;
        planned.name = scenario.name;
        planned.file = display(file);
        planned.expect = expect.value_or(scenario.expect);
        planned.expect_overridden = expect.has_value();
        planned.seeds = seeds;
        planned.sometimes = scenario.sometimes;
        if (expect && !expect->pass && !expect->every_seed) {
            const std::string violation = std::string("oracle:") + expect->violation;
            if (std::find(planned.sometimes.begin(), planned.sometimes.end(), violation) ==
                planned.sometimes.end()) {
                planned.sometimes.push_back(violation);
            }
        }
        if (expect && !expect->pass &&
            std::find(scenario.oracles.begin(), scenario.oracles.end(), expect->violation) ==
                scenario.oracles.end()) {
            throw ScenarioError(where_file, where_path + "/expect",
                                std::string("expected an oracle the scenario lists, found \"") +
                                    expect->violation + "\" (not in " + planned.file + ")");
        }
        auto it = by_name_.find(planned.name);
        if (it == by_name_.end()) {
            by_name_.emplace(planned.name, std::move(planned));
            return;
        }
        PlannedScenario& earlier = it->second;
        if (earlier.file != planned.file) {
            throw ScenarioError(where_file, where_path,
                                "expected scenario names to be unique in a suite, found \"" +
                                    planned.name + "\" in both " + earlier.file + " and " +
                                    planned.file);
        }
        if (earlier.expect.pass != planned.expect.pass ||
            earlier.expect.job_failure != planned.expect.job_failure ||
            (!earlier.expect.pass && earlier.expect.violation != planned.expect.violation)) {
            throw ScenarioError(
                where_file, where_path,
                "expected the same expectation wherever " + planned.file + " is listed");
        }
        earlier.seeds.insert(earlier.seeds.end(), planned.seeds.begin(), planned.seeds.end());
        std::sort(earlier.seeds.begin(), earlier.seeds.end());
        earlier.seeds.erase(std::unique(earlier.seeds.begin(), earlier.seeds.end()),
                            earlier.seeds.end());
    }

    void finish(SuitePlan& plan) {
        for (auto& [name, scenario] : by_name_) plan.scenarios.push_back(std::move(scenario));
        for (size_t i = 0; i < plan.scenarios.size(); ++i) {
            for (uint64_t seed : plan.scenarios[i].seeds) plan.runs.push_back(PlannedRun{i, seed});
        }
    }

private:
    std::map<std::string, PlannedScenario> by_name_;  // sorted by name
};

json read_json_file(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw ScenarioError(display(file), "/", "cannot open the file for reading");
    std::ostringstream text;
    text << in.rdbuf();
    try {
        return json::parse(text.str());
    } catch (const json::parse_error& error) {
        throw ScenarioError(display(file), "/", std::string("invalid JSON: ") + error.what());
    }
}

void expected_keys(const json& object, const std::vector<std::string>& allowed,
                   const std::string& file, const std::string& path) {
    for (const auto& item : object.items()) {
        if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
        std::string list;
        for (const std::string& key : allowed) list += (list.empty() ? "" : ", ") + key;
        throw ScenarioError(file, path + "/" + item.key(),
                            "unknown key \"" + item.key() + "\"; expected one of: " + list);
    }
}

std::string seeds_text(const json& value, const std::string& file, const std::string& path) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number_unsigned()) return std::to_string(value.get<uint64_t>());
    throw ScenarioError(
        file, path,
        "expected seeds: a string such as \"1..100\" or \"1..10,20\", or a seed number");
}

// Run `at` of a suite file: its scenario (a file, or a folder of them) over its seeds.
void load_suite_run(const std::filesystem::path& path, const std::string& file,
                    const std::string& at, const json& entry, const std::string& default_seeds,
                    const std::optional<std::string>& seeds_override, PlanBuilder& builder) {
    if (!entry.is_object())
        throw ScenarioError(file, at,
                            "expected an object {\"scenario\": file, \"seeds\": \"1..100\"}");
    expected_keys(entry, {"scenario", "seeds", "expect"}, file, at);
    if (!entry.contains("scenario") || !entry["scenario"].is_string()) {
        throw ScenarioError(file, at + "/scenario",
                            "expected a scenario file or folder, relative to the suite file");
    }
    std::string seeds =
        entry.contains("seeds") ? seeds_text(entry["seeds"], file, at + "/seeds") : default_seeds;
    if (seeds_override) seeds = *seeds_override;
    const std::vector<uint64_t> seed_list =
        seeds_at(seeds, file, seeds_override ? "--seeds" : at + "/seeds");
    std::optional<scenarios::Expectation> expect;
    if (entry.contains("expect")) {
        expect = reports::expectation_from_json(entry["expect"]);
        if (!expect)
            throw ScenarioError(file, at + "/expect",
                                "expected \"pass\" or {\"violation\": oracle name}");
    }
    const std::filesystem::path target = path.parent_path() / entry["scenario"].get<std::string>();
    std::error_code error;
    if (std::filesystem::is_directory(target, error)) {
        for (const auto& scenario : scenarios_in_folder(target))
            builder.add(scenario, seed_list, expect, file, at);
    } else {
        if (!std::filesystem::exists(target, error)) {
            throw ScenarioError(file, at + "/scenario",
                                "expected a scenario file, found no such file: " + display(target));
        }
        builder.add(target, seed_list, expect, file, at);
    }
}

void load_suite_file(const std::filesystem::path& path,
                     const std::optional<std::string>& seeds_override, SuitePlan& plan,
                     PlanBuilder& builder) {
    const std::string file = display(path);
    const json suite = read_json_file(path);
    if (!suite.is_object()) throw ScenarioError(file, "/", "expected an object (a suite)");
    expected_keys(suite, {"name", "description", "seeds", "strict_faults", "runs"}, file, "");
    plan.name = path.filename().string().substr(
        0, path.filename().string().size() - std::string(".suite.json").size());
    if (suite.contains("name")) {
        if (!suite["name"].is_string() || suite["name"].get<std::string>().empty()) {
            throw ScenarioError(file, "/name", "expected a non-empty string");
        }
        plan.name = suite["name"].get<std::string>();
    }
    if (suite.contains("description") && !suite["description"].is_string()) {
        throw ScenarioError(file, "/description", "expected a string");
    }
    if (suite.contains("strict_faults")) {
        if (!suite["strict_faults"].is_boolean())
            throw ScenarioError(file, "/strict_faults", "expected true or false");
        plan.strict_faults = suite["strict_faults"].get<bool>();
    }
    std::string default_seeds = kDefaultSeeds;
    if (suite.contains("seeds")) {
        default_seeds = seeds_text(suite["seeds"], file, "/seeds");
        seeds_at(default_seeds, file, "/seeds");
    }
    if (!suite.contains("runs"))
        throw ScenarioError(file, "/runs", "missing required key \"runs\" (an array of runs)");
    const json& runs = suite["runs"];
    if (!runs.is_array() || runs.empty())
        throw ScenarioError(file, "/runs", "expected a non-empty array of runs");
    for (size_t i = 0; i < runs.size(); ++i)
        load_suite_run(path, file, "/runs/" + std::to_string(i), runs[i], default_seeds,
                       seeds_override, builder);
}

}  // namespace

namespace {

// Adds what `path` names to the plan under construction; returns the name it gives a suite.
std::string add_path(const std::filesystem::path& path,
                     const std::optional<std::string>& seeds_override, SuitePlan& plan,
                     PlanBuilder& builder) {
    std::error_code error;
    const std::string seeds_where = seeds_override ? "--seeds" : "(default seeds)";
    if (!std::filesystem::exists(path, error)) {
        throw ScenarioError(
            display(path), "/",
            "expected a scenario file, a suite file or a folder, found no such file");
    }
    if (std::filesystem::is_directory(path, error)) {
        const std::filesystem::path normal = path.lexically_normal();
        const auto seeds =
            seeds_at(seeds_override.value_or(kDefaultSeeds), display(path), seeds_where);
        for (const auto& file : scenarios_in_folder(path))
            builder.add(file, seeds, std::nullopt, display(path), "/");
        return normal.filename().empty() ? normal.parent_path().filename().string()
                                         : normal.filename().string();
    }
    if (is_suite_file(path)) {
        load_suite_file(path, seeds_override, plan, builder);
        return plan.name;
    }
    const auto seeds = seeds_at(seeds_override.value_or(kDefaultSeeds), display(path), seeds_where);
    builder.add(path, seeds, std::nullopt, display(path), "/");
    return path.stem().string();
}

}  // namespace

SuitePlan load_suite_plan(const std::vector<std::filesystem::path>& paths,
                          const std::optional<std::string>& seeds_override) {
    SuitePlan plan;
    PlanBuilder builder;
    std::string name;
    for (const std::filesystem::path& path : paths) {
        if (!plan.source.empty()) plan.source += ' ';
        plan.source += path.string();
        if (!name.empty()) name += '+';
        name += add_path(path, seeds_override, plan, builder);
        plan.name.clear();
    }
    builder.finish(plan);
    plan.name = name.empty() ? "suite" : name;
    return plan;
}

SuitePlan load_suite_plan(const std::filesystem::path& path,
                          const std::optional<std::string>& seeds_override) {
    return load_suite_plan(std::vector<std::filesystem::path>{path}, seeds_override);
}

std::string expect_argument(const scenarios::Expectation& expect) {
    if (expect.pass) return "pass";
    return std::string("violation:") + expect.violation + (expect.every_seed ? "" : ":some-seeds");
}

void use_fresh_seeds(SuitePlan& plan, const std::string& range) {
    uint64_t highest = 0;
    for (const PlannedScenario& s : plan.scenarios) {
        if (!s.seeds.empty()) highest = std::max(highest, s.seeds.back());
    }
    const std::vector<uint64_t> given =
        range.empty() ? std::vector<uint64_t>{} : parse_seed_set(range);
    if (!given.empty() && given.front() <= highest) {
        throw std::invalid_argument(
            "--fresh-seeds: expected seeds above the suite's own (its highest is " +
            std::to_string(highest) + "), found " + range);
    }
    plan.runs.clear();
    for (size_t i = 0; i < plan.scenarios.size(); ++i) {
        PlannedScenario& s = plan.scenarios[i];
        if (given.empty()) {
            const uint64_t from = s.seeds.empty() ? 1 : s.seeds.back() + 1;
            const uint64_t count = 3 * std::max<uint64_t>(s.seeds.size(), 1);
            s.seeds.clear();
            for (uint64_t seed = from; seed < from + count; ++seed) s.seeds.push_back(seed);
        } else {
            s.seeds = given;
        }
        for (uint64_t seed : s.seeds) plan.runs.push_back(PlannedRun{i, seed});
    }
}

scenarios::Reproducer reproducer(const PlannedScenario& planned, uint64_t seed,
                                 bool strict_faults) {
    scenarios::Reproducer r;
    r.file = planned.file;
    r.seed = seed;
    if (planned.expect_overridden) r.expect = expect_argument(planned.expect);
    r.strict_faults = strict_faults;
    return r;
}

nlohmann::json plan_json(const SuitePlan& plan) {
    json scenarios = json::array();
    for (const PlannedScenario& s : plan.scenarios) {
        scenarios.push_back({{"scenario", s.name},
                             {"file", s.file},
                             {"seeds", reports::seed_ranges(s.seeds, SIZE_MAX)},
                             {"expect", reports::expectation_file_form(s.expect)},
                             {"sometimes", s.sometimes}});
    }
    return {{"name", plan.name},
            {"source", plan.source},
            {"scenarios", std::move(scenarios)},
            {"runs", plan.runs.size()}};
}

}  // namespace eosim::cli
