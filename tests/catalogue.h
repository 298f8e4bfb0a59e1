#pragma once
// The scenario catalogue for the tests and the benchmarks: scenarios/catalogue/<theme>/<name>.json,
// found by name, so that no test or benchmark depends on the theme a scenario is in.
#include <filesystem>
#include <string>

#include "scenarios/scenario_files.h"

namespace eosim::testing {

inline const std::filesystem::path kCatalogue = std::filesystem::path(EOSIM_SOURCE_DIR) / "scenarios" / "catalogue";

// The catalogue's file for scenario `name` (e.g. "kafka-count-eos"); throws when there is none.
inline std::filesystem::path catalogue_scenario(const std::string& name) {
    return scenarios::find_scenario_file(kCatalogue, name);
}

}  // namespace eosim::testing
