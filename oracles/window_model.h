#pragma once
// The reference model of a window vertex (engine/runtime/window_operator.h), fed by the reference
// model (oracles/reference_model.h) with every record reaching the vertex and whether it is
// in-bound (below). It keeps, per (key, window), the aggregate over ALL the window's records and
// over its in-bound ones, which the window oracle (oracles/window_oracle.h) compares the engine's
// firings with, and, for count windows, the exact results.
//
// In-bound (design-14): a record whose timestamp is above its own split's watermark just before
// it (bounded out-of-orderness B: watermark = max timestamp seen in the split - B - 1;
// SplitWatermark below). No downstream task can hold a higher watermark when the record reaches it
// (without idleness), so no window drops it, and a window's first firing comes after every
// in-bound record of it. Whether an out-of-bound record is late depends on the interleaving.
//
// What `emit_results` gives is the engine's output exactly when every record is in-bound: one
// firing per (key, window) with the aggregate over all its records, nothing on the late output;
// count windows: exact always (a key's records reach its window in its partition's order). With
// out-of-bound records the engine may fire a window several times or side-output records; only the
// window oracle's projection is exact then.
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "engine/runtime/window_operator.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"
#include "oracles/record_multiset.h"

namespace eosim::oracles {

// One split's bounded-out-of-orderness watermark, as the source computes it before each record.
class SplitWatermark {
public:
    // `out_of_orderness_ms`: absent when the source emits no watermarks (every record in-bound).
    explicit SplitWatermark(std::optional<int64_t> out_of_orderness_ms)
        : bound_ms_(out_of_orderness_ms) {}
    // Whether a record with `timestamp`, next in the split, is in-bound; then takes it into
    // account.
    bool next(int64_t timestamp);

private:
    std::optional<int64_t> bound_ms_;
    std::optional<int64_t> max_timestamp_;
};

// A (key, window) of a time window vertex: the window by its end (its size is the vertex's).
struct WindowId {
    int64_t key = 0;
    int64_t end = 0;
    auto operator<=>(const WindowId&) const = default;
};

// What the model knows of one (key, window).
struct WindowTotals {
    int64_t aggregate = 0;           // over every record of the window
    int64_t in_bound_aggregate = 0;  // over its in-bound records
    int64_t records = 0;
    int64_t out_of_bound_records = 0;
    bool all_values_positive = true;  // sums: firings strictly increase
};

class WindowModel {
public:
    explicit WindowModel(engine::WindowSpec spec) : spec_(spec) {}

    // A record reaching the window vertex, in the model's evaluation order (for count windows, each
    // key's records in its partition's order).
    void add(const engine::Record& in, bool in_bound);
    // The results, as the engine emits them when every record is in-bound (time windows: one per
    // (key, window) with the aggregate over all its records; count windows: always exact).
    void emit_results(const RecordMultiset::Visit& visit) const;

    const engine::WindowSpec& spec() const { return spec_; }
    const std::map<WindowId, WindowTotals>& windows() const { return windows_; }
    // The out-of-bound records (the only ones that may reach the late output without idleness).
    const std::vector<engine::Record>& out_of_bound_records() const { return out_of_bound_; }
    int64_t records() const { return records_; }

private:
    engine::WindowSpec spec_;
    std::map<WindowId, WindowTotals> windows_;                 // time windows
    std::map<int64_t, engine::CountWindowContents> counting_;  // count windows: per key
    std::vector<engine::Record> count_results_;
    std::vector<engine::Record> out_of_bound_;
    int64_t records_ = 0;
};

}  // namespace eosim::oracles
