// The checkpoint plan with finished tasks (engine/checkpointing/checkpoint_plan.h) replayed against
// Flink's DefaultCheckpointPlanCalculatorTest (checkpoints-after-tasks-finish on). Each TEST_CASE
// names the Flink test method whose graph, finished subtasks and expected triggers it mirrors
// (vertices numbered as there; Flink's POINTWISE edge between equal parallelisms is eosim's
// forward edge, ALL_TO_ALL its hash edge).
#include <catch2/catch.hpp>

#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "engine/checkpointing/checkpoint_plan.h"

namespace eosim::engine {
namespace {

struct PlanEdge {
    int32_t from;
    int32_t to;
    EdgeKind kind;
};

JobSpec plan_test_job(const std::vector<int32_t>& parallelism, const std::vector<PlanEdge>& edges) {
    JobSpec job;
    for (size_t v = 0; v < parallelism.size(); ++v) {
        VertexSpec vertex;
        vertex.id = "v" + std::to_string(v);
        vertex.kind = OperatorKind::map;
        vertex.parallelism = parallelism[v];
        job.vertices.push_back(vertex);
    }
    for (const PlanEdge& e : edges)
        job.vertices[static_cast<size_t>(e.to)].inputs.push_back(
            InputEdge{"v" + std::to_string(e.from), e.kind});
    return job;
}

std::set<SubtaskId> plan_subtasks(int32_t vertex, std::vector<int32_t> indices) {
    std::set<SubtaskId> out;
    for (int32_t i : indices) out.insert({vertex, i});
    return out;
}

std::set<SubtaskId> plan_range(int32_t vertex, int32_t from, int32_t to) {
    std::set<SubtaskId> out;
    for (int32_t i = from; i < to; ++i) out.insert({vertex, i});
    return out;
}

std::set<SubtaskId> plan_join(std::initializer_list<std::set<SubtaskId>> sets) {
    std::set<SubtaskId> out;
    for (const auto& s : sets) out.insert(s.begin(), s.end());
    return out;
}

std::set<SubtaskId> plan_triggered(const CheckpointPlan& plan) {
    return {plan.to_trigger.begin(), plan.to_trigger.end()};
}

// The running subtasks are waited for; the finished ones recorded as finished.
void plan_check_running_and_finished(const JobSpec& job, const std::set<SubtaskId>& finished,
                                     const CheckpointPlan& plan) {
    CHECK(plan.finished == finished);
    for (int32_t v = 0; v < static_cast<int32_t>(job.vertices.size()); ++v) {
        for (int32_t s = 0; s < job.vertices[static_cast<size_t>(v)].parallelism; ++s) {
            CHECK(plan.to_wait_for.contains({v, s}) == !finished.contains({v, s}));
        }
    }
}

TEST_CASE("DefaultCheckpointPlanCalculatorTest.testComputeAllRunningGraph", "[plan][flink]") {
    const JobSpec job = plan_test_job(
        {3, 4, 5, 6}, {{0, 2, EdgeKind::hash}, {1, 2, EdgeKind::hash}, {2, 3, EdgeKind::hash}});
    const CheckpointPlan plan = plan_checkpoint(job, {});
    CHECK(plan_triggered(plan) == plan_join({plan_range(0, 0, 3), plan_range(1, 0, 4)}));
    plan_check_running_and_finished(job, {}, plan);
}

TEST_CASE("DefaultCheckpointPlanCalculatorTest.testAllToAllEdgeWithSomeSourcesFinished",
          "[plan][flink]") {
    const JobSpec job = plan_test_job({3, 4}, {{0, 1, EdgeKind::hash}});
    const std::set<SubtaskId> finished = plan_range(0, 0, 2);
    const CheckpointPlan plan = plan_checkpoint(job, finished);
    CHECK(plan_triggered(plan) ==
          plan_range(0, 2, 3));  // one source still runs: the consumers get its barriers
    plan_check_running_and_finished(job, finished, plan);
}

TEST_CASE("DefaultCheckpointPlanCalculatorTest.testOneToOneEdgeWithSomeSourcesFinished",
          "[plan][flink]") {
    const JobSpec job = plan_test_job({4, 4}, {{0, 1, EdgeKind::forward}});
    const std::set<SubtaskId> finished = plan_range(0, 0, 2);
    const CheckpointPlan plan = plan_checkpoint(job, finished);
    // Consumers 0 and 1 read only finished producers: triggered directly.
    CHECK(plan_triggered(plan) == plan_join({plan_range(0, 2, 4), plan_range(1, 0, 2)}));
    plan_check_running_and_finished(job, finished, plan);
}

TEST_CASE("DefaultCheckpointPlanCalculatorTest.testOneToOnEdgeWithSomeSourcesAndTargetsFinished",
          "[plan][flink]") {
    const JobSpec job = plan_test_job({4, 4}, {{0, 1, EdgeKind::forward}});
    const std::set<SubtaskId> finished = plan_join({plan_range(0, 0, 2), plan_subtasks(1, {0})});
    const CheckpointPlan plan = plan_checkpoint(job, finished);
    CHECK(plan_triggered(plan) == plan_join({plan_range(0, 2, 4), plan_range(1, 1, 2)}));
    plan_check_running_and_finished(job, finished, plan);
}

TEST_CASE("DefaultCheckpointPlanCalculatorTest.testComputeWithMultipleInputs", "[plan][flink]") {
    const JobSpec job = plan_test_job(
        {3, 5, 5, 5},
        {{0, 3, EdgeKind::hash}, {1, 3, EdgeKind::forward}, {2, 3, EdgeKind::forward}});
    const std::set<SubtaskId> finished =
        plan_join({plan_range(0, 0, 3), plan_subtasks(1, {0, 2, 3}), plan_subtasks(2, {2, 4}),
                   plan_subtasks(3, {2})});
    const CheckpointPlan plan = plan_checkpoint(job, finished);
    CHECK(plan_triggered(plan) ==
          plan_join({plan_subtasks(1, {1, 4}), plan_subtasks(2, {0, 1, 3})}));
    plan_check_running_and_finished(job, finished, plan);
}

TEST_CASE("DefaultCheckpointPlanCalculatorTest.testComputeWithMultipleLevels", "[plan][flink]") {
    const JobSpec job = plan_test_job({16, 16, 16, 16, 16}, {{0, 2, EdgeKind::forward},
                                                             {0, 3, EdgeKind::forward},
                                                             {1, 2, EdgeKind::hash},
                                                             {1, 3, EdgeKind::forward},
                                                             {2, 4, EdgeKind::forward},
                                                             {3, 4, EdgeKind::hash}});
    const std::set<SubtaskId> finished =
        plan_join({plan_range(0, 0, 4), plan_range(1, 0, 16), plan_range(2, 0, 2)});
    const CheckpointPlan plan = plan_checkpoint(job, finished);
    CHECK(plan_triggered(plan) ==
          plan_join({plan_range(0, 4, 16), plan_range(2, 2, 4), plan_range(3, 0, 4)}));
    plan_check_running_and_finished(job, finished, plan);
}

// Flink's calculator fails a checkpoint when every task has finished; eosim's plan is empty, and
// the coordinator refuses it (NOT_ALL_REQUIRED_TASKS_RUNNING, not counted).
TEST_CASE("checkpoint plan: every subtask finished leaves nothing to trigger", "[plan]") {
    const JobSpec job = plan_test_job({2, 2}, {{0, 1, EdgeKind::hash}});
    const std::set<SubtaskId> finished = plan_join({plan_range(0, 0, 2), plan_range(1, 0, 2)});
    const CheckpointPlan plan = plan_checkpoint(job, finished);
    CHECK(plan.to_trigger.empty());
    CHECK(plan.to_wait_for.empty());
    CHECK(plan.finished == finished);
}

}  // namespace
}  // namespace eosim::engine

namespace eosim::engine {
namespace {

JobSpec source_into_count_job() {
    JobSpec job = plan_test_job({3, 2}, {{0, 1, EdgeKind::hash}});
    job.vertices[0].kind = OperatorKind::kafka_source;
    return job;
}

// eosim's own rule (its savepoints have no finished marker): finished sources take part.
TEST_CASE(
    "savepoint plan: finished sources are triggered and waited for, nothing recorded finished",
    "[plan]") {
    const JobSpec job = source_into_count_job();
    const std::optional<CheckpointPlan> plan = plan_savepoint(job, plan_range(0, 0, 2));
    REQUIRE(plan);
    CHECK(plan_triggered(*plan) == plan_range(0, 0, 3));
    CHECK(plan->to_wait_for == plan_join({plan_range(0, 0, 3), plan_range(1, 0, 2)}));
    CHECK(plan->finished.empty());
}

TEST_CASE("savepoint plan: refused once a subtask other than a source has finished", "[plan]") {
    const JobSpec job = source_into_count_job();
    CHECK_FALSE(plan_savepoint(job, plan_join({plan_range(0, 0, 3), plan_subtasks(1, {0})})));
}

}  // namespace
}  // namespace eosim::engine
