// The loader's join and dedup vertices (scenarios/loader/read_job.cpp): the shipped scenarios load
// with their values, and every shape the two operators cannot run exactly is a ScenarioError that
// names the JSON path and what was expected.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "scenarios/scenario.h"
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

void check_error(const json& document, const std::string& path, const std::string& fragment) {
    TempDir dir;
    try {
        load_scenario(dir.write("bad.json", document.dump(2)));
        FAIL("the scenario loaded, but an error at " << path << " was expected");
    } catch (const ScenarioError& error) {
        INFO(error.what());
        CHECK(error.json_path() == path);
        CHECK_THAT(error.what(), Catch::Contains(fragment));
    }
}

TEST_CASE("loader: join and dedup vertices load with their values", "[loader][join][dedup]") {
    TempDir dir;
    const Scenario s = load_scenario(dir.write("ok.json", job().dump(2)));
    CHECK(s.job.vertices[2].kind == engine::OperatorKind::dedup);
    CHECK(s.job.vertices[2].dedup.bound == sim::Duration::seconds(2));
    CHECK(s.job.vertices[3].kind == engine::OperatorKind::join);
    CHECK(s.job.vertices[3].inputs.size() == 2);
}

TEST_CASE("loader: join and dedup shapes that cannot run exactly are errors", "[loader][join][dedup]") {
    json one_input = job();
    one_input["job"]["vertices"][3]["inputs"].erase(1);
    check_error(one_input, "/job/vertices/3/inputs", "expected exactly two inputs for a join");
    json forward = job();
    forward["job"]["vertices"][3]["inputs"][1]["edge"] = "forward";
    check_error(forward, "/job/vertices/3/inputs/1/edge", "expected \"hash\" (a join vertex reads keyed input)");
    json no_bound = job();
    no_bound["job"]["vertices"][2].erase("dedup");
    check_error(no_bound, "/job/vertices/2/dedup", "missing");
    json zero_bound = job();
    zero_bound["job"]["vertices"][2]["dedup"]["bound"] = "0ms";
    check_error(zero_bound, "/job/vertices/2/dedup/bound", "");
    // A rebalance before the dedup loses each key's partition order.
    json reordered = job();
    reordered["job"]["vertices"].insert(reordered["job"]["vertices"].begin() + 2,
                                        json::parse(R"({"id": "shuffle", "kind": "map", "inputs": [{"from": "l", "edge": "rebalance"}]})"));
    reordered["job"]["vertices"][3]["inputs"][0]["from"] = "shuffle";
    check_error(reordered, "/job/vertices/3/inputs", "found \"shuffle\" (map) in between");
    json two_dedup_inputs = job();
    two_dedup_inputs["job"]["vertices"][2]["inputs"].push_back(json::parse(R"({"from": "r", "edge": "hash"})"));
    check_error(two_dedup_inputs, "/job/vertices/2/inputs", "expected one input (only a union or a join reads several)");
}

}  // namespace
}  // namespace eosim::scenarios
