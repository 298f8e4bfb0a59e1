// Implements scenarios/scenario_files.h.
#include "scenarios/scenario_files.h"

#include <algorithm>
#include <system_error>

#include "scenarios/scenario.h"

namespace eosim::scenarios {

bool is_scenario_file_name(const std::string& file_name) {
    return file_name.ends_with(".json") && !file_name.ends_with(".suite.json") &&
           !file_name.ends_with("schema.json");
}

std::vector<std::filesystem::path> scenario_files_in(const std::filesystem::path& folder) {
    std::vector<std::filesystem::path> files;
    std::error_code error;
    std::filesystem::recursive_directory_iterator it(folder, error);
    for (; !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
        const std::string name = it->path().filename().string();
        if (name.starts_with(".")) {
            if (it->is_directory(error)) it.disable_recursion_pending();
            continue;
        }
        if (it->is_regular_file(error) && is_scenario_file_name(name)) files.push_back(it->path());
    }
    if (error) {
        throw ScenarioError(folder.lexically_normal().string(), "/",
                            "cannot list the folder: " + error.message());
    }
    std::sort(files.begin(), files.end(), [&folder](const auto& a, const auto& b) {
        return a.lexically_relative(folder).generic_string() <
               b.lexically_relative(folder).generic_string();
    });
    return files;
}

std::filesystem::path find_scenario_file(const std::filesystem::path& folder,
                                         const std::string& name) {
    std::vector<std::filesystem::path> found;
    for (const auto& file : scenario_files_in(folder)) {
        if (file.filename().string() == name + ".json") found.push_back(file);
    }
    const std::string where = folder.lexically_normal().string();
    if (found.empty())
        throw ScenarioError(where, "/",
                            "expected a scenario file " + name +
                                ".json in the folder or its subfolders, found none");
    if (found.size() > 1) {
        throw ScenarioError(where, "/",
                            "expected one scenario file " + name + ".json, found " +
                                found[0].string() + " and " + found[1].string());
    }
    return found[0];
}

}  // namespace eosim::scenarios
