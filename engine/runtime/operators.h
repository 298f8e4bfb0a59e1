#pragma once
// The record-at-a-time operators between sources and sinks: map, filter, union (identity), and
// the keyed running count and keyed sum, which keep one value per key in a KeyedStateBackend (and,
// over a changelog, retract on update_before and delete).
// The reference model (oracles/) evaluates the same `apply_*` functions, so there is exactly one
// definition of what each operator computes.
#include <concepts>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>

#include "engine/state/state_backend.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"

namespace eosim::engine {

// Where an operator emits: its main output, and the late-data side output of an event-time window
// (Flink's sideOutputLateData). An input edge with "output": "late" reads the side output.
struct Emit {
    std::function<void(const Record&)> main;
    std::function<void(const Record&)> late;  // may be empty for vertices without a late edge
    template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, Emit> && std::invocable<F&, const Record&>)
        Emit(F f)
        : main(std::move(f)) {}  // NOLINT(google-explicit-constructor): a lambda is the main output
    Emit(std::function<void(const Record&)> m, std::function<void(const Record&)> l)
        : main(std::move(m)), late(std::move(l)) {}
    void operator()(const Record& r) const { main(r); }
    void to_late(const Record& r) const {
        if (late) late(r);
    }
};

Record apply_map(const MapSpec& spec, const Record& in);
bool passes_filter(const FilterSpec& spec, const Record& in);
// The keyed operators: the new state value for `in` given the current one (absent: first record),
// which is the current one (0 when absent) plus keyed_increment(kind, in).
int64_t fold_keyed(OperatorKind kind, std::optional<int64_t> current, const Record& in);
int64_t keyed_increment(OperatorKind kind, const Record& in);
// The new state value when `in` (an update_before or delete) withdraws an earlier row.
int64_t retract_keyed(OperatorKind kind, int64_t current, const Record& in);

class Operator {
public:
    virtual ~Operator() = default;
    // `input`: the index of the vertex's input edge the record came through (0 for one input).
    virtual void process(int32_t input, const Record& in, const Emit& out) = 0;
    // The task's input watermark advanced to `watermark` (also once after a restore, to the
    // restored one, before any record): fire event-time timers up to it, emitting to `out`.
    // The task forwards the watermark downstream after this returns.
    virtual void advance_watermark(int64_t /*watermark*/, const Emit& /*out*/) {}
    // Processing-time timers: the task calls this when virtual time reaches
    // next_processing_timer().
    virtual void advance_processing_time(int64_t /*now_ms*/, const Emit& /*out*/) {}
    virtual std::optional<int64_t> next_processing_timer() const { return std::nullopt; }
    // The keyed state, for keyed operators; nullptr otherwise.
    virtual KeyedStateBackend* keyed_state() { return nullptr; }
};

// Builds the operator of a map, filter, union or keyed vertex; `state` only for keyed ones.
std::unique_ptr<Operator> make_operator(const VertexSpec& vertex,
                                        std::unique_ptr<KeyedStateBackend> state);

}  // namespace eosim::engine
