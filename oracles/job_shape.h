#pragma once
// What an oracle asks of a job's shape when it says whether it applies (oracle_registry.h).
#include <algorithm>
#include <string_view>

#include "engine/runtime/job_spec.h"

namespace eosim::oracles {

inline bool has_operator(const engine::JobSpec& job, engine::OperatorKind kind) {
    return std::any_of(job.vertices.begin(), job.vertices.end(), [kind](const engine::VertexSpec& v) { return v.kind == kind; });
}

inline bool has_sink_kind(const engine::JobSpec& job, std::string_view sink_kind) {
    return std::any_of(job.vertices.begin(), job.vertices.end(), [sink_kind](const engine::VertexSpec& v) {
        return v.kind == engine::OperatorKind::sink && v.sink_kind == sink_kind;
    });
}

}  // namespace eosim::oracles
