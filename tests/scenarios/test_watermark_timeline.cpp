// The run's timeline shows each vertex's watermark (scenarios/timeline.h): a line of spans per
// vertex, in lane "watermark <vertex>", whose values never go back within an attempt and end at the
// end of input for a bounded job; jobs without event time show none.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <string>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"

namespace eosim::scenarios {
namespace {

TEST_CASE("timeline: a watermark line per vertex, ending at the end of input",
          "[timeline][event_time]") {
    Scenario s = load_scenario(testing::catalogue_scenario("window-count-eos"));
    s.faults = {};
    const RunResult result = run_scenario(s, RunOptions{1, nullptr});
    REQUIRE(result.job_finished);
    std::map<std::string, int> spans;
    std::map<std::string, std::string> last;
    int64_t previous_end = -1;
    for (const TimelineEvent& e : result.timeline) {
        if (e.what != "watermark") continue;
        ++spans[e.lane];
        last[e.lane] = e.detail;
        if (e.lane == "watermark window" && e.end_ns >= 0) {
            CHECK(e.at_ns >= previous_end);  // one line: spans follow each other
            previous_end = e.end_ns;
        }
    }
    for (const char* lane : {"watermark window", "watermark results", "watermark late"}) {
        INFO(lane);
        CHECK(spans[lane] > 5);
        CHECK(last[lane].find("end of input") != std::string::npos);
    }
    CHECK(spans["watermark source"] > 5);  // what the sources emit

    const RunResult plain = run_scenario(
        load_scenario(testing::catalogue_scenario("kafka-count-eos")), RunOptions{1, nullptr});
    for (const TimelineEvent& e : plain.timeline) CHECK(e.what != "watermark");
}

}  // namespace
}  // namespace eosim::scenarios
