#pragma once
// Scenario files on disk. The catalogue keeps them in theme folders (scenarios/catalogue/<theme>/),
// so a folder of scenarios is walked recursively: what `eosim suite FOLDER` runs, and how the tests
// and benchmarks find a catalogue scenario by name without knowing its theme.
#include <filesystem>
#include <string>
#include <vector>

namespace eosim::scenarios {

// A scenario file: `*.json`, but not a suite (`*.suite.json`) or a schema (`*schema.json`).
bool is_scenario_file_name(const std::string& file_name);

// Every scenario file in `folder` and its subfolders, recursively (hidden files and folders
// skipped), sorted by the path below `folder`: the same order on every machine. Empty when there
// are none. Throws ScenarioError (the folder, "/", why) when the folder cannot be listed.
std::vector<std::filesystem::path> scenario_files_in(const std::filesystem::path& folder);

// The scenario file `<name>.json` somewhere below `folder`. Throws ScenarioError when there is
// none or more than one.
std::filesystem::path find_scenario_file(const std::filesystem::path& folder,
                                         const std::string& name);

}  // namespace eosim::scenarios
