// The loader's join and dedup vertices (scenarios/loader/read_job.cpp): the shipped scenarios load
// with their values, and every shape the two operators cannot run exactly is a ScenarioError that
// names the JSON path and what was expected: late records in an input a dedup reads (in any
// deployment's program) and idle splits in a dedup's source too, also through `eosim run` on the
// fixture tests/cli/fixtures/dedup-late-input.json.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "scenarios/scenario.h"
#include "tests/cli/test_support.h"
#include "tests/scenario_documents.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using eosim::testing::TempDir;
using nlohmann::json;

// Two sources, a dedup of the first, a join of the dedup with the second, the sink.
json job() {
    return json::parse(R"({
      "world": {"topics": [{"name": "l"}, {"name": "r"}, {"name": "out"}]},
      "job": {"vertices": [
        {"id": "l", "kind": "kafka_source", "topic": "l"},
        {"id": "r", "kind": "kafka_source", "topic": "r"},
        {"id": "first", "kind": "dedup", "dedup": {"bound": "2s"}, "inputs": [{"from": "l", "edge": "hash"}]},
        {"id": "join", "kind": "join", "inputs": [{"from": "first", "edge": "hash"}, {"from": "r", "edge": "hash"}]},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "out"}, "inputs": [{"from": "join"}]}]},
      "oracles": ["exactly_once_output"]
    })");
}

TEST_CASE("loader: join and dedup vertices load with their values", "[loader][join][dedup]") {
    TempDir dir;
    const Scenario s = load_scenario(dir.write("ok.json", job().dump(2)));
    CHECK(s.job.vertices[2].kind == engine::OperatorKind::dedup);
    CHECK(s.job.vertices[2].dedup.bound == sim::Duration::seconds(2));
    CHECK(s.job.vertices[3].kind == engine::OperatorKind::join);
    CHECK(s.job.vertices[3].inputs.size() == 2);
}

TEST_CASE("loader: join and dedup shapes that cannot run exactly are errors",
          "[loader][join][dedup]") {
    json one_input = job();
    one_input["job"]["vertices"][3]["inputs"].erase(1);
    testing::check_load_error(one_input, "/job/vertices/3/inputs",
                              "expected exactly two inputs for a join");
    json forward = job();
    forward["job"]["vertices"][3]["inputs"][1]["edge"] = "forward";
    testing::check_load_error(forward, "/job/vertices/3/inputs/1/edge",
                              "expected \"hash\" (a join vertex reads keyed input)");
    json no_bound = job();
    no_bound["job"]["vertices"][2].erase("dedup");
    testing::check_load_error(no_bound, "/job/vertices/2/dedup", "missing");
    json zero_bound = job();
    zero_bound["job"]["vertices"][2]["dedup"]["bound"] = "0ms";
    testing::check_load_error(zero_bound, "/job/vertices/2/dedup/bound", "");
    // A rebalance before the dedup loses each key's partition order.
    json reordered = job();
    reordered["job"]["vertices"].insert(
        reordered["job"]["vertices"].begin() + 2,
        json::parse(
            R"({"id": "shuffle", "kind": "map", "inputs": [{"from": "l", "edge": "rebalance"}]})"));
    reordered["job"]["vertices"][3]["inputs"][0]["from"] = "shuffle";
    testing::check_load_error(reordered, "/job/vertices/3/inputs",
                              "found \"shuffle\" (map) in between");
    json two_dedup_inputs = job();
    two_dedup_inputs["job"]["vertices"][2]["inputs"].push_back(
        json::parse(R"({"from": "r", "edge": "hash"})"));
    testing::check_load_error(two_dedup_inputs, "/job/vertices/2/inputs",
                              "expected one input (only a union or a join reads several)");
}

// An input of `topic` with 5% late records.
json late_input(const std::string& topic) {
    return json::parse(
        R"([{"topic": ")" + topic +
        R"(", "records": 100, "event_time": {"late_percent": 5, "late_by": "2s"}}])");
}

TEST_CASE(
    "loader: late records into a dedup are refused, in the job's program and in a later one's",
    "[loader][dedup]") {
    json late = job();
    late["input"] = late_input("l");
    testing::check_load_error(
        late, "/input/0/event_time/late_percent",
        "expected no late records (late_percent 0) in an input that reaches a dedup, found 5: topic \"l\" reaches "
        "dedup \"first\" (/job/vertices/2), whose model is exact only for in-bound input");
    // Late records the dedup does not read (the join's other side) load.
    json elsewhere = job();
    elsewhere["input"] = late_input("r");
    TempDir dir;
    CHECK_NOTHROW(load_scenario(dir.write("ok.json", elsewhere.dump(2))));
    // v1 without the dedup, v2's program with it: refused, naming v2's dedup.
    json upgraded = job();
    upgraded["deployments"] =
        json::array({{{"at", "1s"}, {"job_vertices", upgraded["job"]["vertices"]}}});
    upgraded["job"]["vertices"].erase(2);
    upgraded["job"]["vertices"][2]["inputs"][0]["from"] = "l";
    upgraded["input"] = late_input("l");
    testing::check_load_error(upgraded, "/input/0/event_time/late_percent",
                              "reaches dedup \"first\" (/deployments/0/job_vertices/2)");
}

TEST_CASE("loader: a dedup whose source has idle splits is refused, at the source's idle_timeout",
          "[loader][dedup]") {
    json idle = job();
    idle["job"]["vertices"][0]["watermarks"] =
        json::parse(R"({"out_of_orderness": "100ms", "idle_timeout": "2s"})");
    testing::check_load_error(
        idle, "/job/vertices/0/watermarks/idle_timeout",
        "expected no idle_timeout on a source that reaches a dedup: source \"l\" reaches dedup \"first\" "
        "(/job/vertices/2), whose model is exact only for in-bound input");
    // Watermarks without idleness load; so do idle splits on the join's other source.
    json no_idleness = job();
    no_idleness["job"]["vertices"][0]["watermarks"] =
        json::parse(R"({"out_of_orderness": "100ms"})");
    json other_side = job();
    other_side["job"]["vertices"][1]["watermarks"] =
        json::parse(R"({"out_of_orderness": "100ms", "idle_timeout": "2s"})");
    TempDir dir;
    CHECK_NOTHROW(load_scenario(dir.write("ok1.json", no_idleness.dump(2))));
    CHECK_NOTHROW(load_scenario(dir.write("ok2.json", other_side.dump(2))));
    // In a later deployment's program: the path names that program.
    json upgraded = job();
    upgraded["deployments"] =
        json::array({{{"at", "1s"}, {"job_vertices", idle["job"]["vertices"]}}});
    testing::check_load_error(upgraded, "/deployments/0/job_vertices/0/watermarks/idle_timeout",
                              "reaches dedup \"first\" (/deployments/0/job_vertices/2)");
}

TEST_CASE(
    "cli: `eosim run` refuses late records into a dedup with exit 2, the file, the JSON path and why",
    "[loader][dedup][cli]") {
    const std::string fixture = (testing::kCliFixtures / "dedup-late-input.json").string();
    const testing::Finished f =
        testing::run_to_end({testing::kEosim.string(), "run", fixture, "--seed", "1"});
    INFO(f.err);
    CHECK(f.exit_code == 2);
    CHECK_THAT(f.err,
               Catch::Contains(fixture +
                               ": at /input/0/event_time/late_percent: expected no late records"));
    CHECK_THAT(f.err,
               Catch::Contains("topic \"events\" reaches dedup \"dedup\" (/job/vertices/2)"));
    CHECK_THAT(f.err, Catch::Contains("exact only for in-bound input"));
}

}  // namespace
}  // namespace eosim::scenarios
