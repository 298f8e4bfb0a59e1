// Implements cli/golden_command.h.
#include "cli/golden_command.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/suite_plan.h"
#include "reports/run_report.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::cli {
namespace {

constexpr const char* kDefaultSuite = "scenarios/default.suite.json";
constexpr const char* kDefaultGoldenSeeds = "1..3";
constexpr const char* kRegenerate = "build/cli/eosim golden --write";

using Hashes =
    std::map<std::string, std::map<std::string, std::string>>;  // scenario -> seed -> hex

struct GoldenFile {
    std::string suite = kDefaultSuite;
    std::string seeds = kDefaultGoldenSeeds;
    Hashes hashes;        // trace hashes
    Hashes state_hashes;  // what the outside systems hold at the end
};

// The hashes object of `j` at `field` (absent: none), checked.
Hashes read_hashes(const std::string& path, const nlohmann::json& j, const std::string& field) {
    Hashes hashes;
    if (!j.contains(field)) return hashes;
    if (!j[field].is_object())
        throw std::runtime_error(path + ": at /" + field + ": expected an object");
    for (const auto& [scenario, seeds] : j[field].items()) {
        if (!seeds.is_object())
            throw std::runtime_error(path + ": at /" + field + "/" + scenario +
                                     ": expected an object");
        for (const auto& [seed, hash] : seeds.items()) {
            if (!hash.is_string()) {
                throw std::runtime_error(path + ": at /" + field + "/" + scenario + "/" + seed +
                                         ": expected a string");
            }
            hashes[scenario][seed] = hash.get<std::string>();
        }
    }
    return hashes;
}

GoldenFile read_golden(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open the golden file");
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(path + ": not a golden file: " + e.what());
    }
    GoldenFile g;
    if (!j.is_object() || !j.contains("suite") || !j["suite"].is_string() || !j.contains("seeds") ||
        !j["seeds"].is_string() || !j.contains("hashes") || !j["hashes"].is_object()) {
        throw std::runtime_error(
            path + ": expected {\"suite\": string, \"seeds\": string, \"hashes\": object}");
    }
    g.suite = j["suite"].get<std::string>();
    g.seeds = j["seeds"].get<std::string>();
    g.hashes = read_hashes(path, j, "hashes");
    g.state_hashes = read_hashes(path, j, "state_hashes");
    return g;
}

// Runs the suite x seeds: `hashes` and `state_hashes` of the golden file they give.
void compute_hashes(const std::string& project_dir, const std::string& suite,
                    const std::string& seeds, size_t& runs, GoldenFile& out) {
    const std::filesystem::path suite_path = std::filesystem::path(project_dir) / suite;
    const SuitePlan plan = load_suite_plan(suite_path, seeds);
    std::vector<scenarios::Scenario> loaded;
    for (const PlannedScenario& s : plan.scenarios)
        loaded.push_back(scenarios::load_scenario(s.file));
    out.hashes.clear();
    out.state_hashes.clear();
    for (const PlannedRun& run : plan.runs) {
        scenarios::RunOptions options;
        options.seed = run.seed;
        const scenarios::RunResult result = scenarios::run_scenario(loaded[run.scenario], options);
        const std::string& name = plan.scenarios[run.scenario].name;
        out.hashes[name][std::to_string(run.seed)] = reports::hex64(result.trace_hash);
        out.state_hashes[name][std::to_string(run.seed)] = reports::hex64(result.state_hash);
        ++runs;
    }
}

// Every scenario x seed where `golden` and `actual` differ (or one lacks it), as mismatches of
// `hash`.
void compare(const std::string& hash, const Hashes& golden, const Hashes& actual,
             std::vector<GoldenMismatch>& mismatches) {
    std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> both;
    for (const auto& [scenario, seeds] : golden) {
        for (const auto& [seed, value] : seeds) both[{scenario, seed}].first = value;
    }
    for (const auto& [scenario, seeds] : actual) {
        for (const auto& [seed, value] : seeds) both[{scenario, seed}].second = value;
    }
    for (const auto& [key, values] : both) {
        if (values.first != values.second)
            mismatches.push_back({hash, key.first, key.second, values.first, values.second});
    }
}

}  // namespace

std::string GoldenCheck::describe() const {
    std::ostringstream out;
    for (const GoldenMismatch& m : mismatches) {
        out << m.hash << " hash differs: scenario " << m.scenario << " seed " << m.seed
            << ": golden " << (m.golden.empty() ? "(none)" : m.golden) << ", this build "
            << (m.actual.empty() ? "(no such run)" : m.actual) << '\n';
    }
    if (!mismatches.empty()) {
        out << mismatches.size() << " hashes of " << runs
            << " runs differ from tests/golden/trace-hashes.json.\n"
            << "If this build type or compiler differs from the one that wrote the file, that is a determinism leak: find it.\n"
            << "If a change meant to alter behaviour, regenerate from the project root with `"
            << kRegenerate
            << "` and say in the commit message why the hashes changed (tests/README.md).\n";
    }
    return out.str();
}

GoldenCheck check_golden(const GoldenCommand& command) {
    const std::string path =
        (std::filesystem::path(command.project_dir) / command.golden_path).string();
    const GoldenFile golden = read_golden(path);
    GoldenCheck check;
    GoldenFile actual;
    compute_hashes(command.project_dir,
                   command.suite_path.empty() ? golden.suite : command.suite_path,
                   command.seeds.empty() ? golden.seeds : command.seeds, check.runs, actual);
    compare("trace", golden.hashes, actual.hashes, check.mismatches);
    compare("state", golden.state_hashes, actual.state_hashes, check.mismatches);
    return check;
}

int golden_command(const GoldenCommand& command, std::ostream& out, std::ostream& err) {
    try {
        if (!command.write) {
            const GoldenCheck check = check_golden(command);
            if (!check.mismatches.empty()) {
                err << check.describe();
                return kExitNotMet;
            }
            out << "golden: all " << check.runs << " trace hashes and state hashes agree with "
                << command.golden_path << '\n';
            return kExitMet;
        }
        GoldenFile golden;
        const std::string path =
            (std::filesystem::path(command.project_dir) / command.golden_path).string();
        if (std::filesystem::exists(path)) golden = read_golden(path);
        if (!command.suite_path.empty()) golden.suite = command.suite_path;
        if (!command.seeds.empty()) golden.seeds = command.seeds;
        size_t runs = 0;
        compute_hashes(command.project_dir, golden.suite, golden.seeds, runs, golden);
        nlohmann::json j = {
            {"about",
             std::string(
                 "Trace hashes (\"hashes\") and state hashes (what the outside systems hold at the end) every "
                 "build type and compiler must reproduce. Regenerate with `") +
                 kRegenerate +
                 "` only in a commit whose message says why they changed (tests/README.md)."},
            {"suite", golden.suite},
            {"seeds", golden.seeds},
            {"hashes", golden.hashes},
            {"state_hashes", golden.state_hashes}};
        std::ofstream file(path, std::ios::binary | std::ios::trunc);
        file << j.dump(2) << '\n';
        if (!file) {
            err << "error: cannot write " << path << '\n';
            return kExitBadInput;
        }
        out << "golden: wrote " << runs << " trace hashes and state hashes to "
            << command.golden_path << '\n';
        return kExitMet;
    } catch (const scenarios::ScenarioError& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    } catch (const std::runtime_error& e) {
        err << "error: " << e.what() << '\n';
        return kExitBadInput;
    }
}

}  // namespace eosim::cli
