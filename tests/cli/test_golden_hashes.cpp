// The golden trace hashes (tests/golden/trace-hashes.json): every scenario of the default suite over
// a few seeds must give the hash the file holds, in every build this test runs in: in CI the Release
// build (gcc -O3) and the sanitizer build (clang -O1).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/golden_command.h"
#include "tests/catalogue.h"
#include "tests/cli/test_support.h"
#include "tests/temp_dir.h"

using namespace eosim::cli;
using eosim::testing::kProjectDir;

TEST_CASE("every scenario of the default suite gives its golden trace hash", "[golden]") {
    GoldenCommand command;
    command.project_dir = kProjectDir.string();
    const GoldenCheck check = check_golden(command);
    INFO(check.describe());
    CHECK(check.runs >= 3);
    CHECK(check.mismatches.empty());
}

TEST_CASE("a golden check names the scenario and seed that differ and how to regenerate", "[golden]") {
    eosim::testing::TempDir dir;
    // A golden file for a suite of one scenario (the golden file's first), with one of its hashes
    // changed and one run the suite does not have.
    std::ifstream in(kProjectDir / "tests/golden/trace-hashes.json");
    std::stringstream text;
    text << in.rdbuf();
    nlohmann::json j = nlohmann::json::parse(text.str());
    const std::string scenario = j["hashes"].begin().key();
    const nlohmann::json hashes = j["hashes"][scenario];
    j["hashes"] = nlohmann::json::object();
    j["hashes"][scenario] = hashes;
    j["hashes"][scenario]["1"] = "0000000000000000";
    j["hashes"]["no-such-scenario"]["1"] = "1111111111111111";
    const std::filesystem::path suite = dir.path() / "one.suite.json";
    std::ofstream(suite) << nlohmann::json{
        {"name", "one"}, {"runs", {{{"scenario", eosim::testing::catalogue_scenario(scenario).string()}}}}}.dump();
    j["suite"] = suite.string();
    const std::filesystem::path broken = dir.path() / "golden.json";
    std::ofstream(broken) << j.dump();

    GoldenCommand command;
    command.golden_path = broken.string();
    command.project_dir = "/";
    const GoldenCheck check = check_golden(command);
    REQUIRE(check.mismatches.size() == 2);
    const std::string text_out = check.describe();
    CHECK(text_out.find("scenario " + scenario + " seed 1: golden 0000000000000000") != std::string::npos);
    CHECK(text_out.find("scenario no-such-scenario seed 1: golden 1111111111111111, this build (no such run)") !=
          std::string::npos);
    CHECK(text_out.find("eosim golden --write") != std::string::npos);
    CHECK(text_out.find("commit message") != std::string::npos);
}
