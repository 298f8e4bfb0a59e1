// cli::suite_plan: what a suite runs, from a scenario file, a suite file or a folder; errors name
// the file and the JSON path.
#include <catch2/catch.hpp>

#include "cli/suite_plan.h"
#include "scenarios/scenario_files.h"
#include "tests/catalogue.h"
#include "tests/cli/test_support.h"

namespace eosim::cli {
namespace {

using testing::kCliFixtures;
using testing::TempDir;
using testing::write_text;

TEST_CASE("suite plan: a suite file lists scenarios with seed ranges, relative to itself",
          "[cli]") {
    const SuitePlan plan = load_suite_plan(kCliFixtures / "quick.suite.json", std::nullopt);
    CHECK(plan.name == "quick");
    REQUIRE(plan.scenarios.size() == 2);
    CHECK(plan.scenarios[0].name == "quick-dup");  // sorted by name
    CHECK(plan.scenarios[1].name == "quick-eos");
    CHECK(plan.scenarios[0].file == (kCliFixtures / "quick-dup.json").lexically_normal().string());
    CHECK(plan.scenarios[0].seeds == std::vector<uint64_t>{1, 2, 3, 4});
    CHECK_FALSE(plan.scenarios[0].expect.pass);
    REQUIRE(plan.runs.size() == 8);
    CHECK(plan.runs[0].scenario == 0);
    CHECK(plan.runs[4].scenario == 1);
    CHECK(plan.runs[4].seed == 1);
    CHECK(reproducer(plan.scenarios[1], 3, false).text() ==
          "eosim run " + plan.scenarios[1].file + " --seed 3");
    CHECK(reproducer(plan.scenarios[1], 3, true).text() ==
          "eosim run " + plan.scenarios[1].file + " --seed 3 --strict-faults");
}

TEST_CASE("suite plan: --seeds replaces every range", "[cli]") {
    const SuitePlan plan = load_suite_plan(kCliFixtures / "quick.suite.json", std::string("5..6"));
    REQUIRE(plan.runs.size() == 4);
    CHECK(plan.scenarios[1].seeds == std::vector<uint64_t>{5, 6});
}

TEST_CASE("suite plan: --fresh-seeds runs every scenario above the seeds it is tuned to",
          "[cli][fresh_seeds]") {
    SuitePlan plan =
        load_suite_plan(kCliFixtures / "quick.suite.json", std::nullopt);  // seeds 1..4
    use_fresh_seeds(plan, "");
    REQUIRE(plan.scenarios.size() == 2);
    std::vector<uint64_t> above;
    for (uint64_t seed = 5; seed <= 16; ++seed)
        above.push_back(seed);  // three times as many, right above
    CHECK(plan.scenarios[0].seeds == above);
    CHECK(plan.scenarios[1].seeds == above);
    REQUIRE(plan.runs.size() == 24);
    CHECK(plan.runs[12].scenario == 1);
    CHECK(plan.runs[12].seed == 5);

    SuitePlan given = load_suite_plan(kCliFixtures / "quick.suite.json", std::nullopt);
    use_fresh_seeds(given, "101..103");
    CHECK(given.scenarios[1].seeds == std::vector<uint64_t>{101, 102, 103});
    CHECK(given.runs.size() == 6);

    SuitePlan overlapping = load_suite_plan(kCliFixtures / "quick.suite.json", std::nullopt);
    try {
        use_fresh_seeds(overlapping, "3..10");
        FAIL("accepted");
    } catch (const std::invalid_argument& e) {
        CHECK(
            std::string(e.what()) ==
            "--fresh-seeds: expected seeds above the suite's own (its highest is 4), found 3..10");
    }
}

TEST_CASE("suite plan: a folder means its scenario files, not suites or schemas", "[cli]") {
    TempDir dir;
    for (const char* name : {"b.json", "a.json"}) {
        std::filesystem::copy_file(kCliFixtures / "quick-eos.json", dir / name);
    }
    write_text(dir / "x.suite.json", "{\"runs\": []}");
    write_text(dir / "schema.json", "{}");
    write_text(dir / "notes.txt", "not a scenario");
    const SuitePlan plan = load_suite_plan(dir.path(), std::string("1..3"));
    // quick-eos.json has no "name", so each is named after its file.
    REQUIRE(plan.scenarios.size() == 2);
    CHECK(plan.scenarios[0].name == "a");
    CHECK(plan.scenarios[1].name == "b");
    CHECK(plan.runs.size() == 6);
}

TEST_CASE("suite plan: a folder means every scenario in it and its subfolders", "[cli]") {
    TempDir dir;
    std::filesystem::create_directories(dir / "catalogue/theme-b/deeper");
    std::filesystem::create_directories(dir / "catalogue/theme-a");
    for (const char* name : {"catalogue/theme-b/deeper/c.json", "catalogue/theme-b/b.json",
                             "catalogue/theme-a/a.json"}) {
        std::filesystem::copy_file(kCliFixtures / "quick-eos.json", dir / name);
    }
    write_text(dir / "catalogue/theme-a/schema.json", "{}");
    SECTION("given as PATH") {
        const SuitePlan plan = load_suite_plan(dir / "catalogue", std::string("1..2"));
        REQUIRE(plan.scenarios.size() == 3);
        CHECK(plan.scenarios[0].name == "a");
        CHECK(plan.scenarios[2].name == "c");
        CHECK(plan.scenarios[2].file ==
              (dir / "catalogue/theme-b/deeper/c.json").lexically_normal().string());
        CHECK(plan.runs.size() == 6);
    }
    SECTION("as a suite entry, relative to the suite file") {
        write_text(dir / "all.suite.json",
                   R"({"runs": [{"scenario": "catalogue", "seeds": "1"}]})");
        const SuitePlan plan = load_suite_plan(dir / "all.suite.json", std::nullopt);
        CHECK(plan.scenarios.size() == 3);
        CHECK(plan.runs.size() == 3);
    }
    SECTION("one name in two themes is refused") {
        std::filesystem::copy_file(kCliFixtures / "quick-eos.json",
                                   dir / "catalogue/theme-a/c.json");
        CHECK_THROWS_WITH(load_suite_plan(dir / "catalogue", std::nullopt),
                          Catch::Contains("unique"));
    }
    SECTION("a folder with no scenario file at any depth is refused") {
        std::filesystem::create_directories(dir / "empty/sub");
        CHECK_THROWS_WITH(load_suite_plan(dir / "empty", std::nullopt),
                          Catch::Contains("found none"));
    }
}

TEST_CASE("suite plan: the default suite runs every scenario of the catalogue", "[cli]") {
    const SuitePlan plan =
        load_suite_plan(testing::kProjectDir / "scenarios/default.suite.json", std::string("1"));
    const std::vector<std::filesystem::path> catalogue =
        scenarios::scenario_files_in(testing::kCatalogue);
    REQUIRE_FALSE(catalogue.empty());
    CHECK(plan.scenarios.size() == catalogue.size());
    CHECK(plan.runs.size() == catalogue.size());
}

TEST_CASE("suite plan: a single scenario file, default seeds 1..100", "[cli]") {
    const SuitePlan plan = load_suite_plan(kCliFixtures / "quick-eos.json", std::nullopt);
    CHECK(plan.name == "quick-eos");
    CHECK(plan.runs.size() == 100);
}

TEST_CASE(
    "suite plan: an entry's expect replaces the scenario's, and the reproduce command says so",
    "[cli]") {
    TempDir dir;
    std::filesystem::copy_file(kCliFixtures / "quick-dup.json", dir / "dup.json");
    write_text(
        dir / "s.suite.json",
        R"({"name": "s", "runs": [{"scenario": "dup.json", "seeds": "1", "expect": "pass"}]})");
    const SuitePlan plan = load_suite_plan(dir / "s.suite.json", std::nullopt);
    REQUIRE(plan.scenarios.size() == 1);
    CHECK(plan.scenarios[0].expect.pass);
    CHECK(plan.scenarios[0].expect_overridden);
    CHECK_THAT(reproducer(plan.scenarios[0], 1, false).text(),
               Catch::EndsWith("--seed 1 --expect pass"));
}

TEST_CASE("suite plan: mistakes name the file and the JSON path", "[cli]") {
    TempDir dir;
    std::filesystem::copy_file(kCliFixtures / "quick-eos.json", dir / "eos.json");
    std::filesystem::copy_file(kCliFixtures / "quick-eos.json", dir / "other.json");
    const std::vector<std::pair<std::string, std::string>> cases = {
        {R"({"runs": [{"scenario": "eos.json", "seed": "1..3"}]})", "/runs/0/seed"},
        {R"({"runs": [{"scenario": "missing.json"}]})", "/runs/0/scenario"},
        {R"({"runs": [{"scenario": "eos.json", "seeds": "3..1"}]})", "/runs/0/seeds"},
        {R"({"runs": [{"scenario": "eos.json", "expect": "fail"}]})", "/runs/0/expect"},
        {R"({"runs": [{"scenario": "eos.json", "expect": {"violation": "at_least_once_output"}}]})",
         "/runs/0/expect"},
        {R"({"runs": []})", "/runs"},
        {R"({"name": "x"})", "/runs"},
        {R"({"runs": [{"scenario": "eos.json"}], "extra": 1})", "/extra"},
    };
    for (const auto& [text, path] : cases) {
        write_text(dir / "bad.suite.json", text);
        INFO(text);
        try {
            load_suite_plan(dir / "bad.suite.json", std::nullopt);
            FAIL("accepted");
        } catch (const scenarios::ScenarioError& error) {
            CHECK(error.json_path() == path);
            CHECK_THAT(error.file(), Catch::EndsWith("bad.suite.json"));
        }
    }
    SECTION("two files with one scenario name") {
        write_text(dir / "n1.json", testing::read_text(kCliFixtures / "quick-eos.json"));
        nlohmann::json renamed =
            nlohmann::json::parse(testing::read_text(kCliFixtures / "quick-eos.json"));
        renamed["name"] = "n1";
        write_text(dir / "n2.json", renamed.dump());
        write_text(dir / "dup.suite.json",
                   R"({"runs": [{"scenario": "n1.json"}, {"scenario": "n2.json"}]})");
        CHECK_THROWS_WITH(load_suite_plan(dir / "dup.suite.json", std::nullopt),
                          Catch::Contains("unique"));
    }
    SECTION("a bad scenario file is reported with its own path") {
        write_text(dir / "broken.json", R"({"world": {}})");
        write_text(dir / "b.suite.json", R"({"runs": [{"scenario": "broken.json"}]})");
        CHECK_THROWS_WITH(load_suite_plan(dir / "b.suite.json", std::nullopt),
                          Catch::Contains("broken.json"));
    }
    CHECK_THROWS_AS(load_suite_plan(dir / "nothing-here", std::nullopt), scenarios::ScenarioError);
}

}  // namespace
}  // namespace eosim::cli
