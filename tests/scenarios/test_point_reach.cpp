// Protocol points: the table in engine/README.md is the code's (every point once, announced by the
// process protocol_points.h says); the loader refuses a fault at a point the job cannot announce,
// naming who does, and takes one the job announces.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/vocabulary/protocol_points.h"
#include "scenarios/point_reach.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_files.h"
#include "tests/catalogue.h"
#include "tests/cli/test_support.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool announced_by_job_manager(std::string_view point) {
    const auto& jm = engine::points::kJobManagerPoints;
    return std::find(std::begin(jm), std::end(jm), point) != std::end(jm);
}

// The rows "| `point` | announced by | when |" of the README's "Protocol points" section.
std::map<std::string, std::string> readme_points() {
    std::istringstream in(read_text(testing::kProjectDir / "engine/README.md"));
    std::map<std::string, std::string> rows;
    std::string line;
    bool in_section = false;
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0) in_section = line == "## Protocol points";
        if (!in_section || line.rfind("| `", 0) != 0) continue;
        const size_t end = line.find('`', 3);
        const std::string point = line.substr(3, end - 3);
        const size_t cell = line.find('|', end) + 1;
        const std::string by = line.substr(cell, line.find('|', cell) - cell);
        INFO(point);
        CHECK(rows.count(point) == 0);
        rows[point] = by;
    }
    return rows;
}

TEST_CASE(
    "points: engine/README.md lists every protocol point once, with the process that announces it",
    "[points]") {
    const std::map<std::string, std::string> rows = readme_points();
    CHECK(rows.size() == std::size(engine::points::kAll));
    for (std::string_view point : engine::points::kAll) {
        INFO(point);
        auto it = rows.find(std::string(point));
        REQUIRE(it != rows.end());
        const std::string process = announced_by_job_manager(point) ? "JobManager" : "TaskManager";
        CHECK(it->second.find(process) != std::string::npos);
    }
    for (const auto& [point, by] : rows) {
        INFO(point);
        CHECK(std::find(std::begin(engine::points::kAll), std::end(engine::points::kAll), point) !=
              std::end(engine::points::kAll));
    }
}

TEST_CASE("points: every point has one announcer, whose process is the code's", "[points]") {
    REQUIRE(point_announcers().size() == std::size(engine::points::kAll));
    for (size_t i = 0; i < point_announcers().size(); ++i) {
        const PointAnnouncer& a = point_announcers()[i];
        INFO(a.point);
        CHECK(a.point == engine::points::kAll[i]);
        CHECK(a.process == (announced_by_job_manager(a.point) ? "JobManager" : "TaskManager"));
        CHECK(!a.component.empty());
    }
    CHECK(point_announcer("sink.precommited") == nullptr);
}

json count_eos() { return json::parse(read_text(testing::catalogue_scenario("kafka-count-eos"))); }

json with_point_fault(json s, const std::string& point) {
    s["faults"] = {
        {"schedule", {{{"kind", "crash"}, {"at_point", {{"point", point}, {"occurrence", 2}}}}}}};
    return s;
}

std::string refusal(const json& s) {
    try {
        (void)load_scenario_text(s.dump(), "story.json");
    } catch (const ScenarioError& error) {
        CHECK(error.json_path() == "/faults/schedule/0/at_point/point");
        return error.what();
    }
    FAIL("the loader took it");
    return "";
}

TEST_CASE(
    "points: the loader refuses a fault at a point no component of the job announces, naming who does",
    "[points][loader]") {
    SECTION(
        "sink.precommitted with a documents sink (only the exactly-once Kafka sink announces it)") {
        json s = count_eos();
        s["job"]["vertices"][2]["sink"] = "documents";
        s["job"]["vertices"][2]["options"] = json::object();
        s["oracles"] = {"exactly_once_output"};
        const std::string error = refusal(with_point_fault(s, "sink.precommitted"));
        CHECK(error.find("the kafka sink with guarantee exactly_once") != std::string::npos);
        CHECK(error.find("\"sink\" (documents)") != std::string::npos);
    }
    SECTION("sink.precommitted with an at-least-once Kafka sink") {
        json s = count_eos();
        s["job"]["vertices"][2]["options"]["guarantee"] = "at_least_once";
        s["oracles"] = {"at_least_once_output"};
        CHECK(refusal(with_point_fault(s, "sink.precommitted")).find("(kafka)") !=
              std::string::npos);
    }
    SECTION(
        "window.fired without a window, leadership.granted without high availability, cdc, unaligned, savepoints") {
        CHECK(refusal(with_point_fault(count_eos(), "window.fired")).find("no window vertex") !=
              std::string::npos);
        CHECK(refusal(with_point_fault(count_eos(), "leadership.granted"))
                  .find("high_availability") != std::string::npos);
        CHECK(refusal(with_point_fault(count_eos(), "cdc.chunk_started")).find("cdc_source") !=
              std::string::npos);
        CHECK(refusal(with_point_fault(count_eos(), "task.channel_state_persisted"))
                  .find("unaligned") != std::string::npos);
        CHECK(refusal(with_point_fault(count_eos(), "savepoint.completed")).find("no savepoint") !=
              std::string::npos);
        CHECK(
            refusal(with_point_fault(count_eos(), "shared_state.registered")).find("incremental") !=
            std::string::npos);
    }
    SECTION("the positive twins load") {
        CHECK_NOTHROW(load_scenario_text(with_point_fault(count_eos(), "sink.precommitted").dump(),
                                         "story.json"));
        json unaligned = count_eos();
        unaligned["job"]["checkpointing"]["unaligned"] = true;
        CHECK_NOTHROW(load_scenario_text(
            with_point_fault(unaligned, "task.channel_state_persisted").dump(), "story.json"));
        json savepoint = count_eos();
        savepoint["savepoints"] = {{{"at", "3s"}}};
        CHECK_NOTHROW(load_scenario_text(with_point_fault(savepoint, "savepoint.completed").dump(),
                                         "story.json"));
    }
    SECTION(
        "the deployments count: an upgrade stops with a savepoint, a job without one does not") {
        const Scenario upgrade =
            load_scenario(testing::catalogue_scenario("savepoint-upgrade-rescale"));
        CHECK_FALSE(unreachable_reason(upgrade, "stop_with_savepoint.triggered").has_value());
        CHECK_FALSE(unreachable_reason(upgrade, "task.restoring_rescaled").has_value());
        const Scenario plain = load_scenario_text(count_eos().dump(), "story.json");
        CHECK(unreachable_reason(plain, "stop_with_savepoint.triggered").has_value());
    }
}

// The loader's error for kafka-count-eos with one crash at `at_point`, or "" when it loads.
std::string aim_error(const json& at_point, std::string* path = nullptr) {
    json s = count_eos();
    s["faults"] = {{"schedule", {{{"kind", "crash"}, {"at_point", at_point}}}}};
    try {
        (void)load_scenario_text(s.dump(), "story.json");
    } catch (const ScenarioError& error) {
        if (path != nullptr) *path = error.json_path();
        return error.what();
    }
    return "";
}

TEST_CASE("aim: vertex and subtask filters are refused where no task of the job can match them",
          "[points][loader][aim]") {
    std::string path;
    CHECK(aim_error({{"point", "checkpoint.completed"}, {"vertex", "count"}}, &path)
              .find("announced by the JobManager as a whole") != std::string::npos);
    CHECK(path == "/faults/schedule/0/at_point/vertex");
    CHECK(aim_error({{"point", "checkpoint.notified"}, {"subtask", 0}}, &path)
              .find("TaskManager as a whole") != std::string::npos);
    CHECK(path == "/faults/schedule/0/at_point/subtask");
    CHECK(aim_error({{"point", "task.snapshotted"}, {"vertex", "cuont"}})
              .find("no deployment of the job has a vertex \"cuont\"") != std::string::npos);
    CHECK(aim_error({{"point", "sink.precommitted"}, {"vertex", "count"}})
              .find("vertex \"count\" never announces sink.precommitted") != std::string::npos);
    CHECK(aim_error({{"point", "barrier.alignment_started"}, {"vertex", "source"}})
              .find("never announces") != std::string::npos);
    CHECK(aim_error({{"point", "task.snapshotted"}, {"vertex", "sink"}, {"subtask", 4}}, &path)
              .find("subtask 4 never exists: vertex \"sink\" runs at most 4 subtasks (0..3)") !=
          std::string::npos);
    CHECK(path == "/faults/schedule/0/at_point/subtask");
    // The positive twins load.
    CHECK(aim_error({{"point", "sink.precommitted"}, {"vertex", "sink"}, {"subtask", 3}}).empty());
    CHECK(aim_error({{"point", "task.snapshotted"}, {"subtask", 2}}).empty());
    CHECK(aim_error({{"point", "barrier.alignment_started"}, {"vertex", "count"}}).empty());
}

TEST_CASE("points: drawn point faults draw by default only points the job announces",
          "[points][loader]") {
    json s = count_eos();
    s["faults"] = {{"random",
                    {{"quiet_after", "20s"},
                     {"kinds", {{"crash", json::object()}}},
                     {"point_triggers", {{"ratio", "1/2"}}}}}};
    const Scenario drawn = load_scenario_text(s.dump(), "story.json");
    const std::vector<std::string>& points = drawn.random_faults->point_triggers.points;
    CHECK(std::find(points.begin(), points.end(), "sink.precommitted") != points.end());
    CHECK(std::find(points.begin(), points.end(), "window.fired") == points.end());
    CHECK(std::find(points.begin(), points.end(), "leadership.granted") == points.end());
}

TEST_CASE(
    "points: every scenario of the catalogue loads (none places a fault where it cannot fire)",
    "[points][loader]") {
    const std::vector<std::filesystem::path> files = scenario_files_in(testing::kCatalogue);
    REQUIRE_FALSE(files.empty());
    for (const std::filesystem::path& file : files) {
        INFO(file.string());
        CHECK_NOTHROW(load_scenario(file));
    }
}

}  // namespace
}  // namespace eosim::scenarios
