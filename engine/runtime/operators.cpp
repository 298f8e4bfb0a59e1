#include "engine/runtime/operators.h"

#include <stdexcept>

#include "engine/runtime/dedup_operator.h"
#include "engine/runtime/join_operator.h"
#include "engine/runtime/operator_replacement.h"
#include "engine/runtime/window_operator.h"
#include "sim/invariant.h"

namespace eosim::engine {

Record apply_map(const MapSpec& spec, const Record& in) {
    int64_t key = in.key * spec.key_multiplier + spec.key_offset;
    if (spec.key_modulus > 0)
        key = ((key % spec.key_modulus) + spec.key_modulus) % spec.key_modulus;
    Record out = in;  // a map keeps the record's version, kind, timestamp and source identity
    out.key = key;
    out.value = in.value * spec.value_multiplier + spec.value_offset;
    return out;
}

bool passes_filter(const FilterSpec& spec, const Record& in) {
    const int64_t remainder = ((in.value % spec.modulus) + spec.modulus) % spec.modulus;
    return remainder != spec.drop_remainder;
}

int64_t retract_keyed(OperatorKind kind, int64_t current, const Record& in) {
    if (kind == OperatorKind::keyed_count) return current - 1;
    if (kind == OperatorKind::keyed_sum) return current - in.value;
    throw std::logic_error(std::string("retract_keyed on a vertex that is not keyed: ") +
                           to_string(kind));
}

int64_t keyed_increment(OperatorKind kind, const Record& in) {
    if (kind == OperatorKind::keyed_count) return 1;
    if (kind == OperatorKind::keyed_sum) return in.value;
    throw std::logic_error(std::string("fold_keyed on a vertex that is not keyed: ") +
                           to_string(kind));
}

int64_t fold_keyed(OperatorKind kind, std::optional<int64_t> current, const Record& in) {
    return current.value_or(0) + keyed_increment(kind, in);
}

uint64_t make_source_id(int32_t partition, int64_t offset) {
    EOSIM_INVARIANT(partition >= 0 && partition < kSourcePartitionLimit,
                    "a source partition fits a source identity");
    EOSIM_INVARIANT(offset >= 0 && offset < kSourceOffsetLimit,
                    "a source offset fits a source identity");
    return (static_cast<uint64_t>(partition) + 1) << 48 | static_cast<uint64_t>(offset);
}

std::string source_id_text(const std::string& topic, uint64_t source_id) {
    EOSIM_INVARIANT(source_id != kSourceIdNone, "a record named by its source identity has one");
    return topic + "-" + std::to_string(source_partition(source_id)) + "-" +
           std::to_string(source_offset(source_id));
}

const char* to_string(RowKind kind) {
    switch (kind) {
        case RowKind::insert: return "insert";
        case RowKind::update_before: return "update_before";
        case RowKind::update_after: return "update_after";
        case RowKind::delete_row: return "delete";
    }
    return "unknown";
}

namespace {

class MapOperator final : public Operator {
public:
    explicit MapOperator(MapSpec spec) : spec_(spec) {}
    void process(int32_t /*input*/, const Record& in, const Emit& out) override {
        out(apply_map(spec_, in));
    }

private:
    MapSpec spec_;
};

class FilterOperator final : public Operator {
public:
    explicit FilterOperator(FilterSpec spec) : spec_(spec) {}
    void process(int32_t /*input*/, const Record& in, const Emit& out) override {
        if (passes_filter(spec_, in)) out(in);
    }

private:
    FilterSpec spec_;
};

class UnionOperator final : public Operator {
public:
    void process(int32_t /*input*/, const Record& in, const Emit& out) override { out(in); }
};

// Keyed running aggregate: updates the key's value and emits (key, new value). Over an append
// stream (the default) every output is an insert, as ever. Over a changelog (`changelog_input`) it
// retracts on update_before and delete and emits an upsert changelog: insert for the first row of a
// key, update_after for a change, and delete when retractions bring the key back to 0 (for a count:
// no rows left; for a sum: the same when every value is positive, which the loader requires of a
// CDC workload); the key then leaves the state. Update_before is not emitted: the planner leaves it
// out when the downstream is keyed on the same key, as Flink's does for an upsert sink. No version
// is emitted: a count of changes would not be stable across a re-read snapshot chunk (the chunk's
// rows fold the changes before its high watermark into one insert), so no per-key version of the
// aggregate is (see engine/connectors/upsert_sink.h).
class KeyedAggregateOperator final : public Operator {
public:
    KeyedAggregateOperator(OperatorKind kind, bool changelog,
                           std::unique_ptr<KeyedStateBackend> state)
        : kind_(kind), changelog_(changelog), state_(std::move(state)) {}
    void process(int32_t /*input*/, const Record& in, const Emit& out) override {
        if (!changelog_) {
            // fold_keyed in one state access (the hot path of a keyed aggregate: a record each).
            const int64_t updated = state_->add(in.key, keyed_increment(kind_, in));
            out(Record{in.key, updated, 0, RowKind::insert, in.timestamp});
            return;
        }
        const std::optional<int64_t> current = state_->get(in.key);
        if (is_retraction(in.kind)) {
            const int64_t updated = retract_keyed(kind_, current.value_or(0), in);
            if (updated == 0) {
                state_->remove(in.key);
                out(Record{in.key, current.value_or(0), 0, RowKind::delete_row, in.timestamp});
            } else {
                state_->put(in.key, updated);
                out(Record{in.key, updated, 0, RowKind::update_after, in.timestamp});
            }
            return;
        }
        const int64_t updated = fold_keyed(kind_, current, in);
        state_->put(in.key, updated);
        out(Record{in.key, updated, 0, current ? RowKind::update_after : RowKind::insert,
                   in.timestamp});
    }
    KeyedStateBackend* keyed_state() override { return state_.get(); }

private:
    OperatorKind kind_;
    bool changelog_;
    std::unique_ptr<KeyedStateBackend> state_;
};

}  // namespace

std::unique_ptr<Operator> make_operator(const VertexSpec& vertex,
                                        std::unique_ptr<KeyedStateBackend> state) {
    if (const OperatorFactory* replacement = operator_replacement(vertex.kind))
        return (*replacement)(vertex, std::move(state));
    switch (vertex.kind) {
        case OperatorKind::map: return std::make_unique<MapOperator>(vertex.map);
        case OperatorKind::filter: return std::make_unique<FilterOperator>(vertex.filter);
        case OperatorKind::union_all: return std::make_unique<UnionOperator>();
        case OperatorKind::keyed_count:
        case OperatorKind::keyed_sum:
            return std::make_unique<KeyedAggregateOperator>(vertex.kind, vertex.changelog_input,
                                                            std::move(state));
        case OperatorKind::window:
            return std::make_unique<WindowOperator>(vertex.window, std::move(state));
        case OperatorKind::join: return std::make_unique<JoinOperator>(std::move(state));
        case OperatorKind::dedup:
            return std::make_unique<DedupOperator>(vertex.dedup.bound.millis_count(),
                                                   std::move(state));
        default:
            throw std::logic_error(std::string("no record operator for vertex kind ") +
                                   to_string(vertex.kind));
    }
}

}  // namespace eosim::engine
