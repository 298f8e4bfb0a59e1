// reports/placement_report.h: every attempt's placement in the run's text (a line per TaskManager
// with its slots; an attempt placed as the one before says so), JSON that reads back exactly
// (also through a run record), and the HTML table; then a real run shows its placement.
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/placement_report.h"
#include "reports/run_record.h"
#include "reports/run_report.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::reports {
namespace {

scenarios::AttemptPlacement placed_attempt(const std::string& name, double at_s,
                                           const std::string& tm_of_subtask_1) {
    scenarios::AttemptPlacement p;
    p.at_s = at_s;
    p.attempt = name == "v1/1" ? 1001 : 1002;
    p.attempt_name = name;
    for (const char* vertex : {"source", "count"}) {
        p.subtasks.push_back({vertex, 0, "tm0", 0});
        p.subtasks.push_back({vertex, 1, tm_of_subtask_1, tm_of_subtask_1 == "tm0" ? 1 : 0});
    }
    return p;
}

const std::vector<scenarios::AttemptPlacement> kPlacements = {placed_attempt("v1/1", 0.012, "tm1"),
                                                              placed_attempt("v1/2", 5.5, "tm1"),
                                                              placed_attempt("v1/3", 9.25, "tm0")};

TEST_CASE("placement report: text per attempt, a line per TaskManager, repeats said in one line",
          "[reports][placement]") {
    std::ostringstream out;
    write_placements(out, kPlacements);
    CHECK(out.str() ==
          "placement         TaskManager and slot of every subtask, per attempt deployed\n"
          "  v1/1 at 0.012s\n"
          "    tm0  slot 0: source-0 count-0\n"
          "    tm1  slot 0: source-1 count-1\n"
          "  v1/2 at 5.500s: as v1/1\n"
          "  v1/3 at 9.250s\n"
          "    tm0  slot 0: source-0 count-0  slot 1: source-1 count-1\n");
    std::ostringstream none;
    write_placements(none, {});
    CHECK(none.str().empty());
}

TEST_CASE("placement report: JSON reads back exactly, also through a run record",
          "[reports][placement]") {
    const nlohmann::json j = placements_to_json(kPlacements);
    CHECK(j[0]["attempt_name"] == "v1/1");
    CHECK(
        j[0]["subtasks"][1] ==
        nlohmann::json{{"vertex", "source"}, {"subtask", 1}, {"task_manager", "tm1"}, {"slot", 0}});
    const std::vector<scenarios::AttemptPlacement> back = placements_from_json(j, "/placements");
    CHECK(placements_to_json(back) == j);
    CHECK_THROWS_WITH(placements_from_json(nlohmann::json::array({{{"at_s", 1}}}), "/placements"),
                      Catch::Contains("/placements/0/subtasks: expected an array"));
    RunRecord record;
    record.has_timeline = true;
    record.placements = kPlacements;
    CHECK(placements_to_json(run_record_from_json(to_json(record)).placements) == j);
}

TEST_CASE("placement report: the HTML table, a row per attempt", "[reports][placement]") {
    std::ostringstream out;
    write_placements_html(out, kPlacements);
    const std::string html = out.str();
    CHECK_THAT(html, Catch::Contains("<h5>Placement"));
    CHECK_THAT(
        html,
        Catch::Contains(
            "<tr><td>v1/1</td><td class=\"n\">0.012s</td><td><b>tm0</b> &nbsp;slot 0: source-0 count-0<br>"
            "<b>tm1</b> &nbsp;slot 0: source-1 count-1<br></td></tr>"));
    CHECK_THAT(html, Catch::Contains("<td>as v1/1</td>"));
}

TEST_CASE("placement report: a run's text and JSON show where every subtask ran",
          "[reports][placement]") {
    scenarios::Scenario s = engine::test::count_scenario(300, 2);
    s.world.evenly_spread_out_slots = true;
    const scenarios::RunResult result = scenarios::run_scenario(s, scenarios::RunOptions{1});
    std::ostringstream out;
    write_run_report(out, s, result, "eosim run x.json --seed 1");
    CHECK_THAT(out.str(), Catch::Contains("  v1/1 at ") &&
                              Catch::Contains("    tm0  slot 0: source-0 count-0 sink-0\n"
                                              "    tm1  slot 0: source-1 count-1 sink-1\n"));
    CHECK(to_json(result)["placements"][0]["subtasks"].size() == 6);
}

}  // namespace
}  // namespace eosim::reports
