#include "engine/vocabulary/job_spec.h"

#include <algorithm>

namespace eosim::engine {

const VertexSpec* JobSpec::find(const std::string& id) const {
    const int32_t index = vertex_index(id);
    return index < 0 ? nullptr : &vertices[static_cast<size_t>(index)];
}

int32_t JobSpec::vertex_index(const std::string& id) const {
    for (size_t i = 0; i < vertices.size(); ++i) {
        if (vertices[i].id == id) return static_cast<int32_t>(i);
    }
    return -1;
}

const std::string& VertexSpec::sharing_group() const {
    static const std::string kDefault = kDefaultSlotSharingGroup;
    return slot_sharing_group.empty() ? kDefault : slot_sharing_group;
}

bool JobSpec::uses_event_time() const {
    for (const VertexSpec& v : vertices) {
        if (v.watermarks) return true;
    }
    return false;
}

bool JobSpec::reads_timestamps() const {
    if (uses_event_time()) return true;
    for (const VertexSpec& v : vertices) {
        if (v.kind == OperatorKind::window || v.kind == OperatorKind::join ||
            v.kind == OperatorKind::dedup)
            return true;
    }
    return false;
}

// The names below are the ones scenario files use (scenarios/README.md).
bool is_source_kind(OperatorKind kind) {
    return kind == OperatorKind::kafka_source || kind == OperatorKind::cdc_source;
}

bool has_operator(const JobSpec& job, OperatorKind kind) {
    return std::any_of(job.vertices.begin(), job.vertices.end(),
                       [kind](const VertexSpec& v) { return v.kind == kind; });
}

bool has_sink_kind(const JobSpec& job, const std::string& sink_kind) {
    return std::any_of(job.vertices.begin(), job.vertices.end(), [&sink_kind](const VertexSpec& v) {
        return v.kind == OperatorKind::sink && v.sink_kind == sink_kind;
    });
}

bool is_keyed(OperatorKind kind) {
    return kind == OperatorKind::keyed_count || kind == OperatorKind::keyed_sum ||
           kind == OperatorKind::window || kind == OperatorKind::join ||
           kind == OperatorKind::dedup;
}

bool has_late_output(OperatorKind kind) { return kind == OperatorKind::window; }

const char* to_string(OperatorKind kind) {
    switch (kind) {
        case OperatorKind::kafka_source: return "kafka_source";
        case OperatorKind::map: return "map";
        case OperatorKind::filter: return "filter";
        case OperatorKind::union_all: return "union";
        case OperatorKind::keyed_count: return "keyed_count";
        case OperatorKind::keyed_sum: return "keyed_sum";
        case OperatorKind::sink: return "sink";
        case OperatorKind::cdc_source: return "cdc_source";
        case OperatorKind::window: return "window";
        case OperatorKind::join: return "join";
        case OperatorKind::dedup: return "dedup";
    }
    return "unknown";
}

const char* to_string(NoHaRecovery recovery) {
    switch (recovery) {
        case NoHaRecovery::application: return "application";
        case NoHaRecovery::session: return "session";
        case NoHaRecovery::storage_listing: return "storage_listing";
    }
    return "?";
}

const char* to_string(WindowSpec::Kind kind) {
    switch (kind) {
        case WindowSpec::Kind::tumbling: return "tumbling";
        case WindowSpec::Kind::sliding: return "sliding";
        case WindowSpec::Kind::count: return "count";
    }
    return "unknown";
}

const char* to_string(WindowSpec::Aggregate aggregate) {
    switch (aggregate) {
        case WindowSpec::Aggregate::count: return "count";
        case WindowSpec::Aggregate::sum: return "sum";
    }
    return "unknown";
}

const char* to_string(EdgeKind kind) {
    switch (kind) {
        case EdgeKind::forward: return "forward";
        case EdgeKind::hash: return "hash";
        case EdgeKind::rebalance: return "rebalance";
    }
    return "unknown";
}

const char* to_string(DeliveryGuarantee guarantee) {
    switch (guarantee) {
        case DeliveryGuarantee::none: return "none";
        case DeliveryGuarantee::at_least_once: return "at_least_once";
        case DeliveryGuarantee::exactly_once: return "exactly_once";
    }
    return "unknown";
}

const char* to_string(CheckpointingMode mode) {
    switch (mode) {
        case CheckpointingMode::exactly_once: return "exactly_once";
        case CheckpointingMode::at_least_once: return "at_least_once";
    }
    return "unknown";
}

}  // namespace eosim::engine
