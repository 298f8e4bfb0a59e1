#pragma once
// The reference model: the job's logic evaluated directly over the input, single-threaded, with
// no engine and no simulator. It uses the same operator definitions as the engine
// (engine/operators.h) but none of its machinery: no channels, no checkpoints, no failures.
//
// What it gives: the records each sink must hold after an exactly-once run, and the keyed state
// each keyed vertex must hold after consuming an input prefix (for the state-after-restore check).
//
// What it does not give: an order. Oracles compare on projections that are invariant under the
// interleavings the engine may legitimately choose: the multiset of sink records (for running
// counts; for running sums when a key's records come from one partition), and final keyed state.
//
// Windows (oracles/window_model.h): a window vertex's output is its results when every record is
// in-bound (one firing per window with its total; count windows always exact) and its late output
// is empty; with out-of-bound records (a late share in the input) only the window oracle's
// projection is exact, not the multiset the output oracles compare.
//
// Changelogs (a CDC source): the model does not replay the binlog. Its input is the source table's
// final content, each row one insert; a keyed-table sink's projection is its final table (the last
// value per key). For a CDC -> [map/filter] -> [keyed aggregate] -> upsert job that is exact
// whatever the interleaving: the engine's aggregate folds every change and retracts every withdrawn
// row, so its final state per key is the aggregate over the rows left in the source table at the
// end (count and sum are commutative groups), and the sink's last write per key is that state (a
// key whose rows are all gone is deleted, and absent from the model too). Prefix states
// (`keyed_state`) cover Kafka inputs only.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/state/state_backend.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/record.h"
#include "engine/vocabulary/run_observer.h"
#include "oracles/record_multiset.h"
#include "oracles/window_model.h"
#include "sim/external/record_columns.h"

namespace eosim::oracles {

// topic -> partition -> records in offset order (compact: a few bytes a record).
using ModelInput = std::map<std::string, std::vector<sim::external::RecordColumns>>;

class ReferenceModel {
public:
    // `tables`: a CDC source table's final rows (key, value), by table name.
    ReferenceModel(const engine::JobSpec& job, ModelInput input,
                   std::map<std::string, std::vector<engine::Record>> tables = {});

    // Every record the sink vertex must hold, over the whole input, as a compact sorted multiset:
    // the order means nothing. Built once, at construction, by streaming the input through the
    // job's vertices (no vertex's output is materialised). With deployments (add_deployment) any
    // program's sink, named by the id of the first program that has its uid; a sink declared with
    // expect_sinks that no program the model ran has (a later deployment's that the run never
    // reached) expects nothing. Any other id is a caller's mistake: std::invalid_argument.
    const RecordMultiset& expected_output(const std::string& sink_vertex) const;
    // Sinks the caller may ask about before (or without) the model running a program that has them:
    // those of every deployment's program a run may reach.
    void expect_sinks(const std::vector<std::string>& sink_vertices);
    // The output of any vertex over the whole input, unpacked and sorted by (key, value): for tests
    // and small jobs (evaluated anew on first request, then kept).
    const std::vector<engine::Record>& sink_output(const std::string& vertex) const;
    // The sink vertex's output as a keyed table: each key's last record, in the order the model
    // produced them (each key's own order, which the engine keeps as long as one subtask owns a key
    // from its keyed operator to the sink), one record per key, sorted by key. Sinks as for
    // expected_output (evaluated anew on first request, then kept).
    const std::vector<engine::Record>& final_table(const std::string& sink_vertex) const;
    // The keyed state of a keyed vertex after the sources consumed exactly `prefix` (records
    // below each partition's offset; a partition not named counts as not consumed).
    std::map<int64_t, int64_t> keyed_state(const std::string& vertex,
                                           const engine::SourceOffsets& prefix) const;
    // The same for a vertex whose state is not one value per key (a join: both sides' rows, as the
    // engine's cells {key, side, timestamp, value} -> multiplicity): every cell, after `prefix`.
    std::map<engine::StateKey, int64_t> keyed_cells(const std::string& vertex,
                                                    const engine::SourceOffsets& prefix) const;
    // An upper bound of the event-time watermark any task of `vertex` can hold at a checkpoint
    // whose sources were at `prefix`: the watermark a source emits before the barrier is at most
    // the largest timestamp it read minus 1 (bounded out-of-orderness B >= 0: max - B - 1), and a
    // task's is the minimum over its inputs. kNoWatermarkLimit once every upstream partition is
    // read to its end (the sources then emit the end-of-input watermark); kNoWatermark before any
    // record.
    static constexpr int64_t kNoWatermark = INT64_MIN;
    static constexpr int64_t kNoWatermarkLimit = INT64_MAX;
    int64_t watermark_upper_bound(const std::string& vertex,
                                  const engine::SourceOffsets& prefix) const;
    int64_t input_records() const;

    // Deployments that run another program (a scenario deployment's own vertex list): from the
    // source offsets `from` on (its savepoint's), `job` processes the input, its keyed operators
    // continuing the state of the earlier program's operators with the same uid (an operator new in
    // `job` starts empty; state of an operator `job` lacks is dropped). The expected output is then
    // the concatenation of each program's output over its own range of the input, and keyed_state
    // of a prefix past `from` is `job`'s (vertex ids of `job`). `job` must outlive the model.
    // Segments come in order (each `from` at or past the previous one's).
    void add_deployment(const engine::JobSpec& job, const engine::SourceOffsets& from);
    // The general form, for a deployment restored from any retained snapshot (a rollback to an
    // older savepoint, a savepoint taken before the previous deployment stopped): the running
    // segment ends at `previous_end` (where the previous deployment stopped: what it committed),
    // and the new one runs `job` from `from`, its keyed state that of segment `origin` (the one
    // running when the snapshot was taken) at `from`. `from` may lie before `previous_end`: the
    // records between are processed again, and the expected output holds both segments' output of
    // them.
    void add_deployment(const engine::JobSpec& job, const engine::SourceOffsets& from,
                        size_t origin, const engine::SourceOffsets& previous_end);
    // Output of the sink with uid `sink_uid` of the program of deployment `segment` (0: the model's
    // job) over its input from the start of that segment up to `to` (nullptr: to the next segment,
    // or the end), its state continuing the history before it: what a verification job of that
    // deployment writes when it stops with a savepoint at `to`.
    RecordMultiset segment_output(size_t segment, const std::string& sink_uid,
                                  const engine::SourceOffsets* to) const;
    // Output of the sink with uid `sink_uid` of program `job` run over the input from `from` to
    // `to` (nullptr: the end), its keyed operators continuing the history's state at `from` by uid:
    // what a job started from a savepoint at `from` (a verification job) writes up to `to`.
    RecordMultiset output_between(const engine::JobSpec& job, const engine::SourceOffsets& from,
                                  const engine::SourceOffsets* to,
                                  const std::string& sink_uid) const;
    // A sink's output over the history up to `prefix` in its last segment (the one running at the
    // end): every earlier segment whole, the last from its start to `prefix` -- what a job that
    // failed had committed when its sources had read up to `prefix` -- with each key's last value
    // as a keyed table. Sinks as for expected_output.
    struct PrefixOutput {
        RecordMultiset records;
        std::vector<engine::Record> table;  // sorted by key
    };
    PrefixOutput output_through(const std::string& sink_vertex,
                                const engine::SourceOffsets& prefix) const;
    size_t segments() const { return segments_.size() + 1; }
    // The model of a window vertex over the whole input (oracles/window_model.h): what the window
    // oracle compares the engine's firings with.
    const WindowModel& window_model(const std::string& vertex) const;
    // Memory the model holds for its expected outputs and input (for the scaling benchmark).
    size_t bytes() const;

private:
    using Visit = RecordMultiset::Visit;
    struct Evaluation {
        std::map<std::string, std::map<int64_t, int64_t>> state;  // keyed vertex -> key -> value
        std::map<std::string, std::map<engine::StateKey, int64_t>>
            cells;  // join vertex -> its rows' cells
    };
    // Hands every output record of `v`, in evaluation order, to `visit`: v's inputs are its input
    // edges in order, each the whole output of its upstream vertex (produced anew, recursively),
    // over the input records from `from` (nullptr: the start) to `to` (nullptr: the end); keyed
    // states continue those of `base` (nullptr: empty) and end up in `out`. Keyed count and sum
    // fold commutatively, so their states after a prefix do not depend on how it was split.
    // `late_output`: hand the late side output of `v` (a window's) instead of its main output.
    void produce(const engine::VertexSpec& v, const engine::SourceOffsets* from,
                 const engine::SourceOffsets* to, const Evaluation* base, Evaluation& out,
                 const Visit& visit, bool late_output = false) const;
    void produce_join(const engine::VertexSpec& v, const engine::SourceOffsets* from,
                      const engine::SourceOffsets* to, const Evaluation* base, Evaluation& out,
                      const Visit& visit) const;
    const engine::VertexSpec& vertex(const std::string& id) const;
    // Keyed states by uid (a deployment's operators continue those with the same uid).
    using UidStates = std::map<std::string, std::map<int64_t, int64_t>>;
    struct Segment {
        const engine::JobSpec* job = nullptr;
        engine::SourceOffsets from;
        size_t origin = 0;  // the segment whose state at `from` this one continues
    };
    const engine::JobSpec& segment_job(size_t segment) const;
    // Runs segment `k`'s program from its start to `to` (nullptr: the next segment's start, or the
    // end) with keyed states continuing `base`; visits the output of its sink `sink_uid` (empty:
    // none) and returns the keyed states at the end, by uid.
    UidStates run_segment(size_t k, const UidStates& base, const engine::SourceOffsets* to,
                          const std::string& sink_uid, const Visit& visit) const;
    UidStates run_program(const engine::JobSpec& job, const engine::SourceOffsets* from,
                          const engine::SourceOffsets* to, const UidStates& base,
                          const std::string& sink_uid, const Visit& visit) const;
    size_t segment_at(const engine::SourceOffsets& prefix) const;
    const UidStates& states_before_segment(size_t k) const;
    std::map<int64_t, int64_t> segmented_keyed_state(const std::string& vertex,
                                                     const engine::SourceOffsets& prefix) const;
    void evaluate_segmented_outputs() const;
    struct LatestPrefix {
        engine::SourceOffsets prefix;
        Evaluation states;
    };

    const engine::JobSpec& job_;
    // The program vertex() looks ids up in: job_, or a later segment's while run_segment evaluates
    // it.
    mutable const engine::JobSpec* evaluating_ = &job_;
    std::vector<Segment> segments_;  // the deployments after the first that change the program
    // Where segment k ends when not where segment k+1 starts (a deployment restored from an older
    // snapshot).
    std::map<size_t, engine::SourceOffsets> segment_ends_;
    mutable std::vector<UidStates> states_before_;  // memo: keyed states at each segment's start
    mutable bool segmented_outputs_ready_ = false;
    mutable std::map<std::string, RecordMultiset> segmented_expected_;
    mutable std::map<std::string, std::vector<engine::Record>> segmented_tables_;
    ModelInput input_;
    std::map<std::string, std::vector<engine::Record>> tables_;
    std::map<std::string, RecordMultiset> expected_;  // sink vertex -> its output
    std::set<std::string> declared_sinks_;            // expect_sinks'
    // Throws std::invalid_argument unless `sink_vertex` is a sink of a program the model ran or
    // declared.
    void check_known_sink(const std::string& sink_vertex) const;
    mutable std::map<std::string, std::vector<engine::Record>>
        final_tables_;  // sink vertex -> its final table (final_table's)
    mutable std::map<std::string, std::vector<engine::Record>> unpacked_outputs_;  // sink_output's
    mutable std::map<std::pair<std::string, engine::SourceOffsets>, std::map<int64_t, int64_t>>
        prefix_states_;  // memo
    // The evaluation of `vertex` after `prefix`, continuing the latest one when `prefix` extends
    // it.
    const Evaluation& prefix_evaluation(const std::string& vertex,
                                        const engine::SourceOffsets& prefix) const;
    mutable std::map<std::string, LatestPrefix>
        latest_prefix_;  // per vertex, where keyed_state last evaluated to
    mutable std::map<std::string, WindowModel>
        window_models_;  // window vertex -> its model over the whole input
    // Whether the source record being streamed through the vertices is in-bound (window_model.h):
    // set by the source before it hands the record on, read by a window downstream.
    mutable bool current_in_bound_ = true;
};

}  // namespace eosim::oracles
