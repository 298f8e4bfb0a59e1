// The scenario catalogue (scenarios/catalogue/<theme>/) and scenarios/scenario_files.h: folders are
// walked recursively and in a fixed order, a scenario is found by name wherever its theme puts it,
// every shipped scenario file sits in exactly one theme folder, and each theme's README index has a
// row for every file in it (and none for a file that is not), whose oracles and expectation are the
// file's own.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/scenario.h"
#include "scenarios/scenario_files.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> relative_names(const std::vector<fs::path>& files,
                                        const fs::path& folder) {
    std::vector<std::string> names;
    for (const fs::path& file : files)
        names.push_back(file.lexically_relative(folder).generic_string());
    return names;
}

// The index rows of a theme README: "| `file.json` | story | faults | oracles | expect |", by file.
std::map<std::string, std::vector<std::string>> index_rows(const fs::path& readme) {
    std::map<std::string, std::vector<std::string>> rows;
    std::ifstream in(readme);
    for (std::string line; std::getline(in, line);) {
        if (!line.starts_with("| `")) continue;
        std::vector<std::string> cells;
        std::istringstream split(line.substr(1));
        for (std::string cell; std::getline(split, cell, '|');) {
            const size_t first = cell.find_first_not_of(' ');
            const size_t last = cell.find_last_not_of(' ');
            cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
        }
        const std::string file = cells[0].substr(1, cells[0].size() - 2);  // without the backquotes
        rows[file] = cells;
    }
    return rows;
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
}

// What is wrong with a theme folder's README index; empty when it agrees with the folder's files.
std::vector<std::string> index_problems(const fs::path& theme) {
    std::vector<std::string> problems;
    const fs::path readme = theme / "README.md";
    if (!fs::exists(readme)) return {theme.filename().string() + ": no README.md"};
    std::map<std::string, std::vector<std::string>> rows = index_rows(readme);
    for (const fs::path& file : scenario_files_in(theme)) {
        const std::string name = file.filename().string();
        const auto row = rows.find(name);
        if (row == rows.end()) {
            problems.push_back(name + ": no row in the index");
            continue;
        }
        const std::vector<std::string> cells = row->second;
        rows.erase(row);
        if (cells.size() != 5) {
            problems.push_back(name + ": expected 5 cells (file, story, faults, oracles, expect)");
            continue;
        }
        const Scenario scenario = load_scenario(file);
        if (cells[3] != joined(scenario.oracles))
            problems.push_back(name + ": oracles are " + joined(scenario.oracles));
        const Expectation& expect = scenario.expect;
        const bool says_pass = cells[4] == "pass";
        if (expect.pass && expect.job_failure.empty() && !says_pass)
            problems.push_back(name + ": expects pass");
        if (!expect.pass && expect.job_failure.empty() &&
            cells[4].find("negative control: " + expect.violation) != 0) {
            problems.push_back(name + ": is a negative control of " + expect.violation);
        }
        if (!expect.job_failure.empty() && cells[4].find("negative control: the job fails") != 0) {
            problems.push_back(name + ": is a negative control whose job must fail");
        }
        if (!expect.job_failure.empty() && !expect.pass &&
            cells[4].find(expect.violation) == std::string::npos) {
            problems.push_back(name + ": is a negative control of a failed job where " +
                               expect.violation + " fires");
        }
    }
    for (const auto& [name, cells] : rows)
        problems.push_back(name + ": a row for a file that is not in the folder");
    return problems;
}

std::vector<fs::path> theme_folders() {
    std::vector<fs::path> themes;
    for (const auto& entry : fs::directory_iterator(testing::kCatalogue)) {
        if (entry.is_directory()) themes.push_back(entry.path());
    }
    std::sort(themes.begin(), themes.end());
    return themes;
}

TEST_CASE("scenario files: a folder is walked recursively, sorted by the path below it",
          "[scenarios][catalogue]") {
    testing::TempDir dir;
    fs::create_directories(dir / "b-theme/deeper");
    fs::create_directories(dir / "a-theme");
    fs::create_directories(dir / ".hidden");
    for (const char* name : {"z.json", "b-theme/deeper/c.json", "b-theme/a.json", "a-theme/y.json"})
        dir.write(name, "{}");
    for (const char* name :
         {"x.suite.json", "schema.json", "a-theme/notes.md", ".hidden/h.json", "b-theme/.h.json"}) {
        dir.write(name, "{}");
    }
    CHECK(relative_names(scenario_files_in(dir.path()), dir.path()) ==
          std::vector<std::string>{"a-theme/y.json", "b-theme/a.json", "b-theme/deeper/c.json",
                                   "z.json"});
    CHECK(scenario_files_in(dir / "a-theme").size() == 1);
    CHECK_THROWS_AS(scenario_files_in(dir / "no-such-folder"), ScenarioError);
}

TEST_CASE("scenario files: a scenario is found by name in any subfolder, once",
          "[scenarios][catalogue]") {
    testing::TempDir dir;
    fs::create_directories(dir / "one");
    fs::create_directories(dir / "two");
    dir.write("one/story.json", "{}");
    dir.write("one/twice.json", "{}");
    dir.write("two/twice.json", "{}");
    CHECK(find_scenario_file(dir.path(), "story") == dir / "one/story.json");
    CHECK_THROWS_WITH(find_scenario_file(dir.path(), "missing"),
                      Catch::Contains("missing.json") && Catch::Contains("found none"));
    CHECK_THROWS_WITH(find_scenario_file(dir.path(), "twice"),
                      Catch::Contains("expected one scenario file twice.json"));
}

TEST_CASE("catalogue: every shipped scenario file is in exactly one theme folder",
          "[scenarios][catalogue]") {
    const fs::path scenarios_folder = testing::kCatalogue.parent_path();
    const std::vector<fs::path> shipped = scenario_files_in(scenarios_folder);
    REQUIRE_FALSE(shipped.empty());
    std::map<std::string, std::string> theme_of;
    for (const fs::path& file : shipped) {
        const fs::path relative = file.lexically_relative(testing::kCatalogue);
        INFO(file.string());
        // catalogue/<theme>/<file>: nothing outside the catalogue, nothing loose or nested deeper.
        REQUIRE(std::distance(relative.begin(), relative.end()) == 2);
        CHECK(*relative.begin() != "..");
        CHECK(theme_of.emplace(file.stem().string(), relative.begin()->string())
                  .second);  // names unique
    }
    for (const fs::path& theme : theme_folders()) {
        INFO(theme.string());
        CHECK_FALSE(scenario_files_in(theme).empty());
    }
}

TEST_CASE(
    "catalogue: each theme's README indexes exactly its files, with their oracles and expectation",
    "[scenarios][catalogue]") {
    const std::vector<fs::path> themes = theme_folders();
    REQUIRE_FALSE(themes.empty());
    std::ifstream in(testing::kCatalogue / "README.md");
    std::stringstream catalogue_readme;
    catalogue_readme << in.rdbuf();
    for (const fs::path& theme : themes) {
        INFO(theme.string());
        CHECK(index_problems(theme) == std::vector<std::string>{});
        // The catalogue's README lists the theme with its count.
        const std::string row = "| [`" + theme.filename().string() + "/`](" +
                                theme.filename().string() + "/README.md) | " +
                                std::to_string(scenario_files_in(theme).size()) + " |";
        CHECK_THAT(catalogue_readme.str(), Catch::Contains(row));
    }
}

TEST_CASE("catalogue: an index that misses a file, names a missing one or misstates one is caught",
          "[scenarios][catalogue]") {
    testing::TempDir dir;
    const fs::path theme = dir / "theme";
    fs::create_directories(theme);
    const fs::path eos = testing::catalogue_scenario("kafka-count-eos");
    const fs::path dup = testing::catalogue_scenario("kafka-count-alo-dup");
    fs::copy_file(eos, theme / "eos.json");
    fs::copy_file(dup, theme / "dup.json");
    const std::string eos_oracles = joined(load_scenario(eos).oracles);
    const std::string dup_oracles = joined(load_scenario(dup).oracles);
    const std::string good = "| `eos.json` | story | crash | " + eos_oracles + " | pass |\n" +
                             "| `dup.json` | story | crash | " + dup_oracles +
                             " | negative control: exactly_once_output |\n";
    dir.write("theme/README.md", good);
    CHECK(index_problems(theme).empty());

    dir.write("theme/README.md", "| `eos.json` | story | crash | " + eos_oracles +
                                     " | pass |\n| `gone.json` | s | f | o | pass |\n");
    CHECK(index_problems(theme) ==
          std::vector<std::string>{"dup.json: no row in the index",
                                   "gone.json: a row for a file that is not in the folder"});

    dir.write(
        "theme/README.md",
        "| `eos.json` | story | crash | liveness | negative control: liveness |\n| `dup.json` | story | crash | " +
            dup_oracles + " | pass |\n");
    CHECK(index_problems(theme) ==
          std::vector<std::string>{"dup.json: is a negative control of exactly_once_output",
                                   "eos.json: oracles are " + eos_oracles,
                                   "eos.json: expects pass"});
}

}  // namespace
}  // namespace eosim::scenarios
