#pragma once
// Scenario documents for loader tests: a catalogue scenario as JSON to edit, a document loaded from
// a temporary file, and the checks of a document the loader must refuse (the JSON path it names,
// a fragment of its message, the file).
#include <fstream>
#include <string>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::testing {

// The catalogue's scenario `name` as JSON, for a test to change one block of.
inline nlohmann::json catalogue_json(const std::string& name) {
    std::ifstream in(catalogue_scenario(name));
    return nlohmann::json::parse(in);
}

// `document` written to a temporary file named `file_name` and loaded.
inline scenarios::Scenario load_document(const nlohmann::json& document,
                                         const std::string& file_name = "scenario.json") {
    TempDir dir;
    return scenarios::load_scenario(dir.write(file_name, document.dump(2)));
}

// The JSON path the loader names when it refuses `document`; empty when it loads.
inline std::string load_error_path(const nlohmann::json& document) {
    try {
        load_document(document, "bad.json");
    } catch (const scenarios::ScenarioError& error) {
        return error.json_path();
    }
    return "";
}

// The loader refuses `document` at `path`, with `fragment` in its message and the file named.
inline void check_load_error(const nlohmann::json& document, const std::string& path,
                             const std::string& fragment) {
    try {
        load_document(document, "bad.json");
    } catch (const scenarios::ScenarioError& error) {
        INFO(error.what());
        CHECK(error.json_path() == path);
        CHECK_THAT(error.what(), Catch::Contains(fragment));
        CHECK_THAT(error.what(), Catch::Contains("bad.json"));
        return;
    }
    FAIL("the scenario loaded, but an error at " + path + " was expected");
}

}  // namespace eosim::testing
