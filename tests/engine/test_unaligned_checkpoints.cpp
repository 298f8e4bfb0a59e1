// Unaligned checkpoints through the real engine: a backpressured job whose edges are of every kind
// (forward, hash, rebalance, and two inputs into a union) takes unaligned checkpoints while
// buffers are in flight on every edge, TaskManagers crash, and every restore replays the recovered
// channel state. The state-after-restore oracle checks each restored keyed state plus the restored
// in-flight records against the model (lost in-flight records under-count, replayed records that
// are also in the state over-count), and the exactly-once output oracle checks the sink.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <string>

#include "engine/connectors/kafka_sink.h"
#include "engine/vocabulary/run_observer.h"
#include "tests/engine/scenario_fixtures.h"

namespace eosim::engine::test {
namespace {

// clicks --forward--> union <--rebalance-- views;  union --hash--> count (slow) --forward--> sink
scenarios::Scenario backpressured_union_job(bool unaligned,
                                            sim::Duration aligned_timeout = sim::Duration::zero()) {
    scenarios::Scenario s;
    s.name = "test-unaligned";
    s.world.task_managers = 2;
    s.world.slots_per_task_manager = 1;
    s.world.topics = {{"clicks", 2}, {"views", 2}, {"output", 2}};
    s.job.name = "unaligned";
    auto vertex = [](std::string id, OperatorKind kind, std::vector<InputEdge> inputs,
                     std::string topic = {}) {
        VertexSpec v;
        v.id = std::move(id);
        v.kind = kind;
        v.parallelism = 2;
        v.inputs = std::move(inputs);
        v.topic = std::move(topic);
        return v;
    };
    VertexSpec count = vertex("count", OperatorKind::keyed_count, {{"union", EdgeKind::hash}});
    count.record_cost = sim::Duration::millis(2);  // slower than the input: backpressure
    s.job.vertices = {vertex("clicks", OperatorKind::kafka_source, {}, "clicks"),
                      vertex("views", OperatorKind::kafka_source, {}, "views"),
                      vertex("union", OperatorKind::union_all,
                             {{"clicks", EdgeKind::forward}, {"views", EdgeKind::rebalance}}),
                      count, vertex("sink", OperatorKind::sink, {{"count", EdgeKind::forward}})};
    s.job.vertices.back().sink_kind = "kafka";
    s.job.vertices.back().sink = std::make_shared<KafkaSinkConfig>(
        KafkaSinkOptions{"output", DeliveryGuarantee::exactly_once, "sink"});
    s.job.vertices.back().record_cost =
        sim::Duration::millis(3);  // a slow sink backpressures count too
    s.job.checkpointing.interval = sim::Duration::millis(500);
    s.job.checkpointing.timeout = sim::Duration::seconds(2);
    s.job.checkpointing.unaligned = unaligned;
    s.job.checkpointing.aligned_checkpoint_timeout = aligned_timeout;
    s.job.runtime.buffer_records = 32;
    s.job.runtime.channel_credits = 2;
    s.job.restart.delay = sim::Duration::seconds(1);
    scenarios::InputSpec clicks;
    clicks.topic = "clicks";
    clicks.records = 3000;
    clicks.keys = 48;
    clicks.rate_per_second = 600;
    clicks.hot_key_percent = 50;
    scenarios::InputSpec views = clicks;
    views.topic = "views";
    views.records = 2000;
    views.rate_per_second = 400;
    views.hot_key_percent = 0;
    s.inputs = {clicks, views};
    s.oracles = {"exactly_once_output", "state_after_restore", "visibility", "liveness"};
    s.time_limit = sim::Duration::seconds(300);
    return s;
}

// Counts the restored in-flight records by edge.
class InFlightByEdge final : public RunObserver {
public:
    void channel_state_restored(sim::Time, int64_t, const std::string&, int32_t,
                                const std::vector<InFlightRecords>& in_flight) override {
        for (const InFlightRecords& edge : in_flight)
            records[edge.from_vertex + "->" + edge.to_vertex] +=
                static_cast<int64_t>(edge.records.size());
    }
    std::map<std::string, int64_t> records;
};

void require_all_pass(const scenarios::RunResult& result) {
    for (const auto& verdict : result.verdicts) {
        INFO(verdict.oracle << ": " << verdict.message);
        REQUIRE(verdict.passed);
    }
    REQUIRE(result.job_finished);
}

TEST_CASE(
    "unaligned: restores replay in-flight records of every edge kind, neither lost nor duplicated",
    "[unaligned]") {
    std::map<std::string, int64_t> replayed;  // over all seeds
    int64_t restores_with_channel_state = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        scenarios::Scenario s = backpressured_union_job(true);
        s.faults = {crash_at("tm1", sim::Duration::millis(1500 + 400 * static_cast<int64_t>(seed)),
                             sim::Duration::millis(500))};
        InFlightByEdge observer;
        scenarios::RunOptions options;
        options.seed = seed;
        options.observer = &observer;
        const scenarios::RunResult result = scenarios::run_scenario(s, options);
        INFO("seed " << seed);
        require_all_pass(result);
        REQUIRE(result.figures.restarts >= 1);
        if (!observer.records.empty()) ++restores_with_channel_state;
        for (const auto& [edge, n] : observer.records) replayed[edge] += n;
    }
    for (const auto& [edge, n] : replayed) UNSCOPED_INFO(edge << ": " << n);
    CHECK(restores_with_channel_state >= 3);
    CHECK(replayed["clicks->union"] > 0);  // forward, into a union
    CHECK(replayed["views->union"] > 0);   // rebalance, into a union
    CHECK(replayed["union->count"] > 0);   // hash
    CHECK(replayed["count->sink"] > 0);    // forward
}

TEST_CASE("unaligned: same seed gives the same trace hash, and aligned runs differ",
          "[unaligned]") {
    scenarios::Scenario s = backpressured_union_job(true);
    s.faults = {crash_at("tm1", sim::Duration::millis(2100), sim::Duration::millis(500))};
    scenarios::RunOptions options;
    options.seed = 7;
    const auto a = scenarios::run_scenario(s, options);
    const auto b = scenarios::run_scenario(s, options);
    CHECK(a.trace_hash == b.trace_hash);
    require_all_pass(a);
    // The same job aligned: its checkpoints time out under this backpressure (the scenario
    // backpressure-aligned-timeouts); its run differs.
    const auto aligned = scenarios::run_scenario(backpressured_union_job(false), options);
    CHECK(aligned.trace_hash != a.trace_hash);
    CHECK(aligned.figures.checkpoints_aborted > a.figures.checkpoints_aborted);
    // Checkpoint statistics: the unaligned checkpoints persisted channel state, the aligned ones
    // none.
    CHECK(a.figures.checkpoints_unaligned == a.figures.checkpoints_completed);
    CHECK(a.figures.channel_state_bytes_median > 0);
    CHECK(aligned.figures.checkpoints_unaligned == 0);
    CHECK(aligned.figures.channel_state_bytes_median == 0);
    CHECK(a.figures.checkpoint_duration_median_ms < 200);
    REQUIRE_FALSE(a.checkpoints.empty());
    CHECK(a.checkpoints.front().tasks.size() == 10);  // every subtask reported its part
}

TEST_CASE("unaligned: the aligned-checkpoint timeout keeps exactly-once under crashes",
          "[unaligned]") {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        scenarios::Scenario s = backpressured_union_job(true, sim::Duration::millis(100));
        s.faults = {crash_at("tm0", sim::Duration::millis(1700 + 300 * static_cast<int64_t>(seed)),
                             sim::Duration::millis(500))};
        scenarios::RunOptions options;
        options.seed = seed;
        INFO("seed " << seed);
        require_all_pass(scenarios::run_scenario(s, options));
    }
}

}  // namespace
}  // namespace eosim::engine::test
