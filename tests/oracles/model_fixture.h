// The scaffolding the oracle and reference-model tests (tests/oracles/) share: the engine names
// they use, a vertex builder for small hand-computed jobs (a source reading a topic, an operator
// with its inputs, a sink writing a Kafka topic exactly-once), a timestamped record, and the count
// job source -> keyed_count -> sink most of them judge. Test files bring it in with `using
// namespace model_fixture;` inside their own anonymous namespace.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/connectors/kafka_sink.h"
#include "engine/vocabulary/job_spec.h"
#include "oracles/reference_model.h"

namespace eosim::oracles::model_fixture {

using engine::EdgeKind;
using engine::OperatorKind;
using engine::Record;
using engine::SourceOffsets;
using engine::VertexSpec;

inline bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A vertex of parallelism 2 with uid `uid` (empty: its id). A kafka_source reads `topic`; a sink
// writes `topic` through an exactly-once Kafka sink (transactional id: the vertex id).
inline VertexSpec vertex(std::string id, OperatorKind kind, std::vector<engine::InputEdge> inputs,
                         std::string topic = {}, std::string uid = {}) {
    VertexSpec v;
    v.id = std::move(id);
    v.kind = kind;
    v.uid = std::move(uid);
    v.parallelism = 2;
    v.inputs = std::move(inputs);
    if (kind == OperatorKind::sink) {
        v.sink_kind = "kafka";
        v.sink = std::make_shared<engine::KafkaSinkConfig>(
            engine::KafkaSinkOptions{topic, engine::DeliveryGuarantee::exactly_once, v.id});
    } else {
        v.topic = std::move(topic);
    }
    return v;
}

// Every vertex of `job` with `parallelism`.
inline engine::JobSpec with_parallelism(engine::JobSpec job, int32_t parallelism) {
    for (VertexSpec& v : job.vertices) v.parallelism = parallelism;
    return job;
}

inline Record record(int64_t key, int64_t value, int64_t timestamp) {
    Record r{key, value};
    r.timestamp = timestamp;
    return r;
}

// source (topic "in") -> count (keyed_count over a hash edge, uid `count_uid`) -> sink (topic
// "out", uid `sink_uid`), parallelism 2.
inline engine::JobSpec count_job(std::string count_uid = {}, std::string sink_uid = {}) {
    engine::JobSpec job;
    job.vertices = {vertex("source", OperatorKind::kafka_source, {}, "in"),
                    vertex("count", OperatorKind::keyed_count, {{"source", EdgeKind::hash}}, {},
                           std::move(count_uid)),
                    vertex("sink", OperatorKind::sink, {{"count", EdgeKind::forward}}, "out",
                           std::move(sink_uid))};
    return job;
}

}  // namespace eosim::oracles::model_fixture
