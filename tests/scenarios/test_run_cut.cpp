// A run that does not finish says why it was cut, first; a hung run ends early as a liveness
// failure once faults are quiet and the liveness bound has passed without progress; the missing
// output of a cut run is not an exactly-once violation.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/cli/test_support.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

// kafka-count-eos with tm1 crashed for good at 2.3 s and no spare: the job can never redeploy.
json hung_scenario() {
    std::ifstream in(testing::catalogue_scenario("kafka-count-eos"));
    std::stringstream text;
    text << in.rdbuf();
    json s = json::parse(text.str());
    s["faults"] = {{"schedule",
                    {{{"kind", "crash"}, {"nodes", {"tm1"}}, {"at", "2.3s"}, {"restart", false}}}}};
    return s;
}

const OracleVerdict& verdict_of(const RunResult& r, const std::string& kind) {
    for (const OracleVerdict& v : r.verdicts) {
        if (v.oracle == kind) return v;
    }
    FAIL("no verdict of " << kind);
    throw;
}

TEST_CASE("a hung run ends early as a liveness failure and says so", "[scenarios][cut]") {
    const Scenario scenario = load_scenario_text(hung_scenario().dump(), "hung.json");
    RunOptions options;
    options.seed = 1;
    const RunResult r = run_scenario(scenario, options);
    INFO(r.cut);
    CHECK_FALSE(r.job_finished);
    CHECK_THAT(r.cut, Catch::StartsWith("cut early at"));
    CHECK_THAT(r.cut, Catch::Contains("past the liveness bound (120.000s)"));
    // It stopped soon after quiet + bound (2.3 s + 120 s), not at the time_limit (3600 s).
    CHECK(r.figures.virtual_seconds < 130);
    CHECK_FALSE(verdict_of(r, "liveness").passed);
    CHECK(verdict_of(r, "exactly_once_output").passed);
    CHECK_THAT(verdict_of(r, "exactly_once_output").message,
               Catch::Contains("not judged, the run was cut"));
    CHECK_FALSE(r.expectation_met);
    CHECK_THAT(r.expectation_message, Catch::StartsWith("the run was cut early at"));
}

TEST_CASE("without the liveness oracle a hung run goes to the time_limit, which it names first",
          "[scenarios][cut]") {
    json s = hung_scenario();
    s["oracles"] = {"exactly_once_output", "visibility"};
    s["time_limit"] = "300s";
    const Scenario scenario = load_scenario_text(s.dump(), "hung.json");
    RunOptions options;
    options.seed = 1;
    const RunResult r = run_scenario(scenario, options);
    CHECK(r.cut == "cut at the time_limit (300.000s) before the job finished");
    CHECK(r.figures.virtual_seconds == Approx(300).epsilon(0.01));
    CHECK(verdict_of(r, "exactly_once_output").passed);
    CHECK_THAT(r.expectation_message, Catch::StartsWith("the run was cut at the time_limit"));
}

TEST_CASE("a run that finishes is not cut", "[scenarios][cut]") {
    const Scenario scenario = load_scenario(testing::catalogue_scenario("kafka-count-eos"));
    RunOptions options;
    options.seed = 1;
    const RunResult r = run_scenario(scenario, options);
    CHECK(r.job_finished);
    CHECK(r.cut.empty());
}

}  // namespace
}  // namespace eosim::scenarios
