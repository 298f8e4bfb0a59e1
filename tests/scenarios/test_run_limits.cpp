// The loader's run limits (scenarios/run_limits.h): every size a scenario sets is checked before
// anything is allocated, and the error names the limit and how to raise it.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/run_limits.h"
#include "scenarios/scenario.h"
#include "tests/catalogue.h"
#include "tests/cli/test_support.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

json limits_base() {
    std::ifstream in(testing::catalogue_scenario("kafka-count-eos"));
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}

// The error of loading `document`; fails the test if it loads.
ScenarioError limits_error_of(const json& document) {
    try {
        (void)load_scenario_text(document.dump(), "limits.json");
    } catch (const ScenarioError& e) {
        return e;
    }
    FAIL("the scenario loaded; expected a limit error");
    throw;
}

void check_names_limit(const ScenarioError& e, const std::string& path,
                       const std::string& constant) {
    INFO(e.what());
    CHECK(e.json_path() == path);
    CHECK_THAT(e.what(),
               Catch::Contains("the run limit " + constant + " in scenarios/run_limits.h"));
    CHECK_THAT(e.what(), Catch::Contains("raise it there and rebuild"));
}

TEST_CASE("limits: the base scenario loads", "[loader][limits]") {
    CHECK_NOTHROW(load_scenario_text(limits_base().dump(), "x.json"));
}

TEST_CASE("limits: a trillion records is refused before anything is allocated",
          "[loader][limits]") {
    json s = limits_base();
    s["input"][0]["records"] = 1'000'000'000'000;
    check_names_limit(limits_error_of(s), "/input/0/records", "kMaxInputRecords");
    // The limit counts all inputs together.
    s = limits_base();
    s["input"][0]["records"] = kMaxInputRecords;
    s["input"][0]["rate_per_second"] = 1'000'000;
    s["world"]["topics"].push_back({{"name", "second"}});
    s["input"].push_back({{"topic", "second"}, {"records", 1}});
    check_names_limit(limits_error_of(s), "/input/1/records", "kMaxInputRecords");
}

TEST_CASE("limits: keys", "[loader][limits]") {
    json s = limits_base();
    s["input"][0]["keys"] = kMaxKeysPerInput + 1;
    check_names_limit(limits_error_of(s), "/input/0/keys", "kMaxKeysPerInput");
}

TEST_CASE("limits: partitions of all topics together", "[loader][limits]") {
    json s = limits_base();
    s["world"]["topics"][0]["partitions"] = kMaxTopicPartitions;
    check_names_limit(limits_error_of(s), "/world/topics/1/partitions", "kMaxTopicPartitions");
}

TEST_CASE("limits: task managers and slots (the bound on parallelism)", "[loader][limits]") {
    json s = limits_base();
    s["world"]["task_managers"] = 1000;
    s["world"]["spare_task_managers"] = 100;
    check_names_limit(limits_error_of(s), "/world/spare_task_managers", "kMaxTaskManagers");
    s = limits_base();
    s["world"]["task_managers"] = 100;
    s["world"]["slots_per_task_manager"] = 100;
    check_names_limit(limits_error_of(s), "/world/slots_per_task_manager", "kMaxSlots");
    // Parallelism is bounded by the slots (an existing check), so by kMaxSlots too.
    s = limits_base();
    s["job"]["vertices"][0]["parallelism"] = 1'000'000;
    const ScenarioError e = limits_error_of(s);
    CHECK(e.json_path() == "/job/vertices/0/parallelism");
}

TEST_CASE("limits: fault counts", "[loader][limits]") {
    json s = limits_base();
    json schedule = json::array();
    for (int64_t i = 0; i <= kMaxScheduledFaults; ++i)
        schedule.push_back({{"kind", "crash"}, {"nodes", {"tm0"}}, {"at", "1s"}});
    s["faults"]["schedule"] = schedule;
    check_names_limit(limits_error_of(s), "/faults/schedule", "kMaxScheduledFaults");
    s = limits_base();
    s["faults"]["random"] = {{"count", kMaxRandomFaults + 1},
                             {"quiet_after", "10s"},
                             {"kinds", {{"crash", json::object()}}}};
    check_names_limit(limits_error_of(s), "/faults/random/count", "kMaxRandomFaults");
}

TEST_CASE("limits: durations against the time_limit", "[loader][limits]") {
    json s = limits_base();
    s["time_limit"] = "100000s";
    check_names_limit(limits_error_of(s), "/time_limit", "kMaxTimeLimitSeconds");

    s = limits_base();
    s["time_limit"] = "60s";
    s["faults"]["schedule"][1]["at"] = "90s";
    ScenarioError e = limits_error_of(s);
    CHECK(e.json_path() == "/faults/schedule/1/at");
    CHECK_THAT(e.what(), Catch::Contains("the fault would never fire"));

    s = limits_base();
    s["time_limit"] = "5s";  // 10000 records at 1000 per second take 10 s
    s.erase("faults");
    e = limits_error_of(s);
    CHECK(e.json_path() == "/input/0");
    CHECK_THAT(e.what(), Catch::Contains("raise rate_per_second or time_limit"));

    s = limits_base();
    s["time_limit"] = "60s";
    s["liveness_bound"] = "90s";
    e = limits_error_of(s);
    CHECK(e.json_path() == "/liveness_bound");
    CHECK_THAT(e.what(), Catch::Contains("within the time_limit"));
}

TEST_CASE("limits: `eosim run` gives exit 2 and the limit for a trillion records, at once",
          "[loader][limits][cli]") {
    testing::TempDir dir;
    json s = limits_base();
    s["input"][0]["records"] = 1'000'000'000'000;
    testing::write_text(dir / "huge.json", s.dump());
    const testing::Finished f =
        testing::run_to_end({testing::kEosim.string(), "run", (dir / "huge.json").string()});
    INFO(f.err);
    CHECK(f.exit_code == 2);
    CHECK_THAT(f.err, Catch::Contains("kMaxInputRecords"));
    CHECK_THAT(f.err, Catch::Contains("/input/0/records"));
}

}  // namespace
}  // namespace eosim::scenarios
