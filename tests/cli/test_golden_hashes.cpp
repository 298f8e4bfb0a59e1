// The golden trace hashes (tests/golden/trace-hashes.json): every scenario of the default suite
// over a few seeds must give the hash the file holds, in every build this test runs in: in CI the
// Release build (gcc -O3) and the sanitizer build (clang -O1).
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
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

TEST_CASE("a golden check names the hash, scenario and seed that differ and how to regenerate",
          "[golden]") {
    eosim::testing::TempDir dir;
    // A golden file written for a suite of one scenario (the golden file's first) over seed 1, then
    // one trace hash and one state hash changed and a run the suite does not have added.
    std::ifstream in(kProjectDir / "tests/golden/trace-hashes.json");
    std::stringstream text;
    text << in.rdbuf();
    const std::string scenario = nlohmann::json::parse(text.str())["hashes"].begin().key();
    const std::filesystem::path suite = dir.path() / "one.suite.json";
    std::ofstream(suite)
        << nlohmann::json{{"name", "one"},
                          {"runs",
                           {{{"scenario", eosim::testing::catalogue_scenario(scenario).string()}}}}}
               .dump();
    const std::filesystem::path golden = dir.path() / "golden.json";
    GoldenCommand write;
    write.golden_path = golden.string();
    write.project_dir = "/";
    write.suite_path = suite.string();
    write.seeds = "1";
    write.write = true;
    std::ostringstream out, err;
    REQUIRE(golden_command(write, out, err) == kExitMet);
    CHECK(out.str().find("wrote 1 trace hashes and state hashes") != std::string::npos);

    nlohmann::json j = nlohmann::json::parse(std::ifstream(golden));
    REQUIRE(j["state_hashes"][scenario]["1"].get<std::string>().size() == 16);
    j["hashes"][scenario]["1"] = "0000000000000000";
    j["state_hashes"][scenario]["1"] = "2222222222222222";
    j["hashes"]["no-such-scenario"]["1"] = "1111111111111111";
    std::ofstream(golden, std::ios::trunc) << j.dump();

    GoldenCommand command;
    command.golden_path = golden.string();
    command.project_dir = "/";
    const GoldenCheck check = check_golden(command);
    REQUIRE(check.mismatches.size() == 3);
    const std::string text_out = check.describe();
    CHECK(text_out.find("trace hash differs: scenario " + scenario +
                        " seed 1: golden 0000000000000000") != std::string::npos);
    CHECK(text_out.find("state hash differs: scenario " + scenario +
                        " seed 1: golden 2222222222222222") != std::string::npos);
    CHECK(
        text_out.find(
            "trace hash differs: scenario no-such-scenario seed 1: golden 1111111111111111, this build (no such run)") !=
        std::string::npos);
    CHECK(text_out.find("eosim golden --write") != std::string::npos);
    CHECK(text_out.find("commit message") != std::string::npos);
}
