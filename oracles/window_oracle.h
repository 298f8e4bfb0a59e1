#pragma once
// Window output: the firings of a window vertex (engine/runtime/window_operator.h) that a committed
// reader of its results' sink sees, and the records a committed reader of its late output's sink
// sees, against the window model (oracles/window_model.h). Per (key, window) -- a result's window
// is the one whose maxTimestamp is the result's timestamp:
// - tumbling windows, exactly: the firings form a chain v1 < v2 < ... (count: steps of exactly 1
//   after v1; sum: strictly increasing, checked when every value of the window is positive), and
//   the last firing plus the aggregate of the window's records in the late output equals the
//   model's aggregate over ALL the window's records;
// - sliding windows: exactly as above (a single firing equal to the total, nothing late) for a
//   window without out-of-bound records; within bounds for one with them (in-bound aggregate <=
//   last firing, last firing + its late records <= total), counted as a figure;
// - count windows: the results equal the model's exactly (a multiset of (key, value, timestamp));
//   nothing in the late output;
// - the late output holds only out-of-bound input records, each at most as often as the input has
//   it (without idleness; with idle_timeout set on a source the oracle says so and skips this).
//
// Why this projection is exact although the engine's firings depend on the interleaving: which
// records arrive late at the window task depends on how the task's input channels interleave (the
// watermark is the minimum over them, and a crash restores it at a cut), so the model cannot say
// how often a window fires or which records go to the late output. What it can say: every record
// of a tumbling window ends in exactly one of two places. Either the window still has its state
// when the record comes (before its cleanup time), and then the record is folded in and a firing
// follows -- at once if the watermark already passed maxTimestamp (an allowed-lateness firing with
// the cumulative aggregate), else when it does -- so the window's last firing counts it; or the
// window was purged, and the record goes to the late output (its only window is late). So the
// last firing + late records == all records, whatever the interleaving, and the firings grow by
// one record each. An in-bound record (timestamp above its own split's watermark before it) is
// never late (no task downstream holds a higher watermark: watermarks are minima over channels, a
// restored one is a minimum at a cut before the record), so it is never in the late output and a
// sliding window made only of in-bound records fires exactly once with its total. Count windows
// see each key's records in its partition's order, so their groups of n are determined.
// A duplicated firing (an at-least-once sink, a window fired again after a restore that lost the
// watermark or the timers), a lost firing, a record counted twice or both counted and side-output
// breaks one of these equalities.
//
// Does not check: when a window fired (the watermark's timing), firings of sums with non-positive
// values beyond the total (their chain has no order to check), the order of the sink's records,
// windows whose results go through other vertices before the sink (the loader refuses that).
// When the run was cut before the job finished, or the job failed as the scenario expects
// ({"job_failure": ...}), windows not yet (fully) fired are noted, not judged; what fired must be
// right.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracles/oracle.h"
#include "oracles/window_model.h"

namespace eosim::oracles {

// Where the window oracle reads: the job's window vertex and the sinks reading its results and its
// late output directly (late: nullptr without a late edge); nullopt when the job has no window
// vertex, or more than one, or its results do not go straight into a sink.
struct WindowOutputSinks {
    const engine::VertexSpec* window = nullptr;
    const engine::VertexSpec* results = nullptr;
    const engine::VertexSpec* late = nullptr;
};
std::optional<WindowOutputSinks> find_window_output_sinks(const engine::JobSpec& job);

class WindowOutputOracle final : public Oracle {
public:
    // What a committed reader of a sink sees, records with their timestamps, in any order.
    using TimedReader = std::function<std::vector<engine::Record>()>;
    // `late`: empty when the window has no late output edge. `idleness`: a source upstream marks
    // idle splits (in-bound records may then be late too).
    WindowOutputOracle(const WindowModel& model, std::string window_vertex, TimedReader results,
                       TimedReader late, bool idleness)
        : model_(model),
          vertex_(std::move(window_vertex)),
          results_(std::move(results)),
          late_(std::move(late)),
          idleness_(idleness) {}
    const char* name() const override { return "window_output"; }
    Verdict verdict() const override;
    // The run was cut before the job finished, for this reason: missing firings are not judged.
    void set_run_cut(std::string reason) { run_cut_ = std::move(reason); }

private:
    Verdict time_window_verdict(const std::vector<engine::Record>& results,
                                const std::vector<engine::Record>& late) const;
    Verdict count_window_verdict(const std::vector<engine::Record>& results,
                                 const std::vector<engine::Record>& late) const;

    const WindowModel& model_;
    std::string vertex_;
    TimedReader results_;
    TimedReader late_;
    bool idleness_;
    std::string run_cut_;
};

}  // namespace eosim::oracles
