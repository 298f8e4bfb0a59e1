// engine/runtime/slot_placement.h and the JobManager's use of it, after Flink's slot sharing and
// cluster.evenly-spread-out-slots: one slot holds a subtask of every vertex of its group; groups
// add up; slots fill TaskManagers in node order, or spread by the lowest share in use; too few
// slots place nothing. Then whole runs: the same placement on every seed, a restart placed as the
// attempt before when the same TaskManagers are back.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "engine/runtime/slot_placement.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine {
namespace {

VertexSpec placed_vertex(const std::string& id, int32_t parallelism,
                         const std::string& group = "") {
    VertexSpec v;
    v.id = id;
    v.parallelism = parallelism;
    v.slot_sharing_group = group;
    return v;
}

JobSpec placement_job(std::vector<VertexSpec> vertices) {
    JobSpec job;
    job.vertices = std::move(vertices);
    return job;
}

// "tm/slot" of each subtask of vertex `v`.
std::vector<std::string> slots_where(const std::vector<std::vector<SlotAssignment>>& placed,
                                     size_t v) {
    std::vector<std::string> out;
    for (const SlotAssignment& a : placed[v])
        out.push_back(std::to_string(a.task_manager) + "/" + std::to_string(a.slot));
    return out;
}

using SlotsWhere = std::vector<std::string>;

TEST_CASE(
    "slot placement: one default group, slot i holds subtask i of every vertex, TaskManagers fill in order",
    "[placement]") {
    const JobSpec job = placement_job(
        {placed_vertex("source", 4), placed_vertex("count", 4), placed_vertex("sink", 2)});
    CHECK(slots_needed(job) == 4);
    REQUIRE(slot_sharing_groups(job).size() == 1);
    CHECK(slot_sharing_groups(job)[0].group == "default");
    const auto placed = place_subtasks(job, {{7, 4}, {8, 4}}, false);
    REQUIRE(placed);
    CHECK(slots_where(*placed, 0) == SlotsWhere{"7/0", "7/1", "7/2", "7/3"});
    CHECK(slots_where(*placed, 1) == slots_where(*placed, 0));
    CHECK(slots_where(*placed, 2) == SlotsWhere{"7/0", "7/1"});
    // Fewer slots on the first: the rest on the next.
    const auto spilled = place_subtasks(job, {{7, 3}, {8, 4}}, false);
    REQUIRE(spilled);
    CHECK(slots_where(*spilled, 1) == SlotsWhere{"7/0", "7/1", "7/2", "8/0"});
}

TEST_CASE(
    "slot placement: evenly spread out takes the TaskManager with the lowest share of slots in use",
    "[placement]") {
    const JobSpec job = placement_job({placed_vertex("source", 4), placed_vertex("count", 4)});
    const auto placed = place_subtasks(job, {{7, 4}, {8, 4}}, true);
    REQUIRE(placed);
    CHECK(slots_where(*placed, 1) == SlotsWhere{"7/0", "8/0", "7/1", "8/1"});
    // A share, not a count: 1 of 2 in use on the small one is more than 1 of 4 on the big one.
    const auto uneven = place_subtasks(job, {{7, 2}, {8, 4}}, true);
    REQUIRE(uneven);
    CHECK(slots_where(*uneven, 0) == SlotsWhere{"7/0", "8/0", "8/1", "7/1"});
}

TEST_CASE("slot placement: sharing groups take their own slots, each its largest parallelism",
          "[placement]") {
    const JobSpec job = placement_job({placed_vertex("source", 2, "io"), placed_vertex("count", 4),
                                       placed_vertex("sink", 3, "io")});
    REQUIRE(slot_sharing_groups(job).size() == 2);
    CHECK(slot_sharing_groups(job)[0].group == "io");  // in the order their first vertex appears
    CHECK(slot_sharing_groups(job)[0].slots == 3);
    CHECK(slot_sharing_groups(job)[1].group == "default");
    CHECK(slots_needed(job) == 7);
    const auto placed = place_subtasks(job, {{7, 4}, {8, 4}}, false);
    REQUIRE(placed);
    CHECK(slots_where(*placed, 0) == SlotsWhere{"7/0", "7/1"});
    CHECK(slots_where(*placed, 2) == SlotsWhere{"7/0", "7/1", "7/2"});
    CHECK(slots_where(*placed, 1) == SlotsWhere{"7/3", "8/0", "8/1", "8/2"});
    CHECK_FALSE(place_subtasks(job, {{7, 4}, {8, 2}}, false));  // 6 slots for 7
    CHECK_FALSE(place_subtasks(job, {}, true));
}

// The placement of every attempt of a run, as "attempt: vertex-subtask@tm/slot ...".
std::vector<std::string> placements_text(const scenarios::RunResult& result) {
    std::vector<std::string> out;
    for (const scenarios::AttemptPlacement& p : result.placements) {
        std::string text;
        for (const SubtaskPlacement& s : p.subtasks) {
            text += s.vertex + "-" + std::to_string(s.subtask) + "@" + s.task_manager + "/" +
                    std::to_string(s.slot) + " ";
        }
        out.push_back(text);
    }
    return out;
}

TEST_CASE("slot placement: whole runs place the same on every seed, filled in order or spread",
          "[placement]") {
    for (const bool evenly : {false, true}) {
        INFO("evenly spread out: " << evenly);
        scenarios::Scenario s = test::count_scenario(400, 4);
        s.world.slots_per_task_manager = 4;
        s.world.evenly_spread_out_slots = evenly;
        std::set<std::string> seen;
        for (uint64_t seed = 1; seed <= 30; ++seed) {
            const scenarios::RunResult result =
                scenarios::run_scenario(s, scenarios::RunOptions{seed});
            REQUIRE(result.placements.size() == 1);
            CHECK(result.placements[0].attempt_name == "v1/1");
            seen.insert(placements_text(result)[0]);
        }
        REQUIRE(seen.size() == 1);
        const std::string expected =
            evenly ? "source-0@tm0/0 source-1@tm1/0 source-2@tm0/1 source-3@tm1/1 "
                     "count-0@tm0/0 count-1@tm1/0 count-2@tm0/1 count-3@tm1/1 "
                     "sink-0@tm0/0 sink-1@tm1/0 sink-2@tm0/1 sink-3@tm1/1 "
                   : "source-0@tm0/0 source-1@tm0/1 source-2@tm0/2 source-3@tm0/3 "
                     "count-0@tm0/0 count-1@tm0/1 count-2@tm0/2 count-3@tm0/3 "
                     "sink-0@tm0/0 sink-1@tm0/1 sink-2@tm0/2 sink-3@tm0/3 ";
        CHECK(*seen.begin() == expected);
    }
}

TEST_CASE(
    "slot placement: a restart with the same TaskManagers back is placed as the attempt before",
    "[placement]") {
    scenarios::Scenario s = test::count_scenario(3000, 4);
    s.world.slots_per_task_manager = 4;
    s.world.evenly_spread_out_slots = true;
    s.faults = {test::crash_at("tm1", sim::Duration::seconds(1), sim::Duration::millis(300))};
    const scenarios::RunResult result = scenarios::run_scenario(s, scenarios::RunOptions{3});
    CHECK(result.expectation_met);
    REQUIRE(result.placements.size() >= 2);
    const std::vector<std::string> all = placements_text(result);
    for (const std::string& p : all) CHECK(p == all.front());
    CHECK(result.placements[1].attempt_name == "v1/2");
}

}  // namespace
}  // namespace eosim::engine
