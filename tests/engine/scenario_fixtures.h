#pragma once
// Small scenarios built in C++ for the engine tests that drive a whole job through the real engine
// (scenarios::run_scenario), and helpers to read a RunResult: verdicts by oracle, timeline events
// by kind, checkpoint ids out of timeline details.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/connectors/kafka_sink.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::engine::test {

// Kafka -> keyBy -> running count -> Kafka sink, parallelism `parallelism` on two TaskManagers,
// `records` input records at 1000 per virtual second, a checkpoint every 500 ms.
inline scenarios::Scenario count_scenario(
    int64_t records = 2000, int32_t parallelism = 2,
    DeliveryGuarantee guarantee = DeliveryGuarantee::exactly_once) {
    scenarios::Scenario s;
    s.name = "test-count";
    // The engine's tests of a JobManager crash judge the recovery of the latest checkpoint (Flink's
    // application mode without HA would start the job over:
    // tests/scenarios/test_no_high_availability.cpp).
    s.without_ha = NoHaRecovery::storage_listing;
    s.world.task_managers = 2;
    s.world.slots_per_task_manager = (parallelism + 1) / 2;
    s.world.topics = {{"input", parallelism}, {"output", parallelism}};
    s.job.name = "count";
    VertexSpec source;
    source.id = "source";
    source.kind = OperatorKind::kafka_source;
    source.topic = "input";
    source.parallelism = parallelism;
    VertexSpec count;
    count.id = "count";
    count.kind = OperatorKind::keyed_count;
    count.parallelism = parallelism;
    count.inputs = {{"source", EdgeKind::hash}};
    VertexSpec sink;
    sink.id = "sink";
    sink.kind = OperatorKind::sink;
    sink.sink_kind = "kafka";
    sink.sink = std::make_shared<KafkaSinkConfig>(KafkaSinkOptions{"output", guarantee, "sink"});
    sink.parallelism = parallelism;
    sink.inputs = {{"count", EdgeKind::forward}};
    s.job.vertices = {source, count, sink};
    s.job.checkpointing.interval = sim::Duration::millis(500);
    s.job.restart.delay = sim::Duration::seconds(1);
    scenarios::InputSpec input;
    input.topic = "input";
    input.records = records;
    input.keys = 32;
    input.rate_per_second = 1000;
    s.inputs = {input};
    s.oracles = {"exactly_once_output", "state_after_restore", "visibility", "liveness"};
    s.time_limit = sim::Duration::seconds(300);
    return s;
}

inline sim::FaultSpec crash_at(const std::string& node, sim::Duration at,
                               sim::Duration restart_delay) {
    sim::FaultSpec f;
    f.kind = sim::FaultKind::crash;
    f.nodes = {node};
    f.trigger.at = sim::Time::zero() + at;
    f.restart_delay = restart_delay;
    return f;
}

// A crash of the node that announces the `occurrence`-th `point` (or of `nodes`, when given).
inline sim::FaultSpec crash_at_point(const std::string& point, int32_t occurrence,
                                     sim::Duration restart_delay,
                                     std::vector<std::string> nodes = {}) {
    sim::FaultSpec f;
    f.kind = sim::FaultKind::crash;
    f.trigger.point = point;
    f.trigger.occurrence = occurrence;
    f.nodes = std::move(nodes);
    f.restart_delay = restart_delay;
    return f;
}

inline sim::FaultSpec timed_fault(sim::FaultKind kind, sim::Duration at, sim::Duration duration) {
    sim::FaultSpec f;
    f.kind = kind;
    f.trigger.at = sim::Time::zero() + at;
    f.duration = duration;
    return f;
}

inline const scenarios::OracleVerdict& verdict(const scenarios::RunResult& result,
                                               const std::string& oracle) {
    for (const auto& v : result.verdicts) {
        if (v.oracle == oracle) return v;
    }
    FAIL("no verdict of oracle " << oracle);
    throw std::logic_error("unreachable");
}

inline std::vector<scenarios::TimelineEvent> events(const scenarios::RunResult& result,
                                                    const std::string& what) {
    std::vector<scenarios::TimelineEvent> out;
    for (const auto& e : result.timeline) {
        if (e.what == what) out.push_back(e);
    }
    return out;
}

inline int64_t count_events(const scenarios::RunResult& result, const std::string& what) {
    return static_cast<int64_t>(events(result, what).size());
}

// "checkpoint 12" or "checkpoint 12: reason" -> 12.
inline int64_t checkpoint_id_of(const scenarios::TimelineEvent& event) {
    for (const std::string prefix : {"checkpoint ", "savepoint ", "stop-with-savepoint "}) {
        if (event.detail.rfind(prefix, 0) == 0)
            return std::stoll(event.detail.substr(prefix.size()));
    }
    FAIL("not a checkpoint's or savepoint's event: " << event.detail);
    return -1;
}

// Everything a failing run should print to be understood.
inline std::string describe(const scenarios::RunResult& result) {
    std::string text =
        "seed " + std::to_string(result.seed) + ": " + result.expectation_message + "\n";
    for (const auto& v : result.verdicts) {
        text += std::string("  ") + v.oracle + (v.passed ? " passed: " : " FAILED: ") + v.message +
                "\n";
    }
    text += "  checkpoints completed " + std::to_string(result.figures.checkpoints_completed) +
            ", aborted " + std::to_string(result.figures.checkpoints_aborted) + ", restarts " +
            std::to_string(result.figures.restarts) + ", virtual " +
            std::to_string(result.figures.virtual_seconds) + "s\n";
    for (const auto& f : result.faults)
        text += "  fault at " + std::to_string(f.at.seconds()) + "s: " + f.action + "\n";
    return text;
}

}  // namespace eosim::engine::test
