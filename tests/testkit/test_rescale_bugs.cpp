// Rescales after failures: a Kafka two-phase-commit sink that, restored at a
// smaller parallelism, aborts only its own index's lingering transactions and not those of the
// removed subtasks whose state it was given (FLINK-23854, apache/flink#17019: "when Flink
// downscales X subtasks to Y subtasks, subtask i is responsible for cleaning all subtasks j in [0;
// X) where j % Y = i"). Their open transactions then hold the last stable offset of their
// partitions: read_committed readers wait for the broker's transaction timeout. It must be caught
// at the default budget of both levels on seeds 1..3, and its correct twin (the built-in Kafka
// sink) must pass the same runs.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "testkit/sink_contract.h"
#include "testkit/sink_jobs.h"
#include "tests/temp_dir.h"
#include "tests/testkit/forwarding_sink.h"

namespace eosim::testkit {
namespace {

// The task's context, but for a parallelism so large that no other subtask index maps to this one.
class AloneContext final : public engine::SinkContext {
public:
    explicit AloneContext(engine::SinkContext& task) : task_(task) {}
    sim::World& world() override { return task_.world(); }
    sim::NodeId node() const override { return task_.node(); }
    int32_t subtask() const override { return task_.subtask(); }
    int32_t parallelism() const override { return std::numeric_limits<int32_t>::max(); }
    std::string_view vertex_id() const override { return task_.vertex_id(); }
    int64_t attempt() const override { return task_.attempt(); }
    engine::RunObserver& observer() override { return task_.observer(); }
    void after(sim::Duration delay, std::function<void()> fn) override {
        task_.after(delay, std::move(fn));
    }
    void fail(const std::string& reason) override { task_.fail(reason); }

private:
    engine::SinkContext& task_;
};

// The built-in Kafka sink told that every state it is given is its own (subtask index relabelled)
// and that no other index maps to it: it commits what the states pre-committed but aborts the
// lingering transactions of its own index only.
class OwnIndexAbortSink final : public sink_wrapping::ForwardingSink {
public:
    OwnIndexAbortSink(engine::SinkContext& task, std::unique_ptr<AloneContext> alone,
                      std::unique_ptr<engine::Sink> inner)
        : ForwardingSink(std::move(inner)), task_(task), alone_(std::move(alone)) {}
    bool open(int64_t restored_checkpoint_id,
              const std::vector<engine::RestoredSinkState>& restored) override {
        std::vector<engine::RestoredSinkState> own = restored;
        for (engine::RestoredSinkState& state : own) state.subtask = task_.subtask();  // the slip
        return ForwardingSink::open(restored_checkpoint_id, own);
    }

private:
    engine::SinkContext& task_;
    std::unique_ptr<AloneContext>
        alone_;  // the inner sink's context (neither destructor uses the other)
};

EOSIM_REGISTER_SINK(sink_wrapping::wrapped_kind(
    "bugs_kafka_abort_own_index_only", "kafka",
    [](engine::SinkContext& task, const sink_wrapping::MakeInner& make_inner) {
        auto alone = std::make_unique<AloneContext>(task);
        auto inner = make_inner(*alone);
        return std::make_unique<OwnIndexAbortSink>(task, std::move(alone), std::move(inner));
    }));

const nlohmann::json kTopic = {{"topic", "output"}};

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST_CASE(
    "rescale bugs: a sink aborting only its own index's lingering transactions is caught at the contract level's defaults",
    "[testkit]") {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        INFO("seed " << seed);
        ContractOptions o;
        o.sink = "bugs_kafka_abort_own_index_only";
        o.options = kTopic;
        o.seed = seed;
        const auto start = std::chrono::steady_clock::now();
        const auto caught = check_sink_contract(o);
        INFO(caught.report);
        CHECK_FALSE(caught.passed);
        CHECK(caught.report.find("Kafka transaction(s) still open") != std::string::npos);
        CHECK(caught.report.find("RESCALED") != std::string::npos);
        WARN("contract level, seed " << seed << ": caught after " << caught.cases
                                     << " passing case(s) in " << seconds_since(start) << " s");
        o.sink = "kafka";  // the twin: the built-in sink aborts those of every state it was given
        const auto twin = check_sink_contract(o);
        INFO(twin.report);
        CHECK(twin.passed);
    }
}

TEST_CASE(
    "rescale bugs: a sink aborting only its own index's lingering transactions is caught inside jobs at the default budget",
    "[testkit]") {
    testing::TempDir dir;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        INFO("seed " << seed);
        JobOptions o;
        o.sink = "bugs_kafka_abort_own_index_only";
        o.options = kTopic;
        o.seed = seed;
        // The job level's defaults judge lingering transactions only for the built-in Kafka sink
        // (freshness); a sink of one's own asks for no_leaks (open Kafka transactions at the end).
        o.oracles = {"exactly_once_output", "state_after_restore", "liveness", "visibility",
                     "no_leaks"};
        o.shrink = false;
        o.output_dir = (dir / ("buggy-" + std::to_string(seed))).string();
        const auto start = std::chrono::steady_clock::now();
        const auto caught = check_sink_in_jobs(o);
        INFO(caught.report);
        CHECK_FALSE(caught.passed);
        CHECK(caught.report.find("oracle no_leaks") != std::string::npos);
        CHECK(caught.report.find("restarts from its latest checkpoint") != std::string::npos);
        WARN("job level, seed " << seed << ": caught after " << caught.runs << " passing run(s) in "
                                << seconds_since(start) << " s");
        o.sink = "kafka";
        o.output_dir = (dir / ("twin-" + std::to_string(seed))).string();
        const auto twin = check_sink_in_jobs(o);
        INFO(twin.report);
        CHECK(twin.passed);
    }
}

}  // namespace
}  // namespace eosim::testkit
