#pragma once
// State after each restore: when an attempt restores from checkpoint N, the keyed state its
// subtasks load, put together, equals the reference model's keyed state over the input prefix
// named by N's source offsets. That is what makes a checkpoint a consistent cut: the state
// reflects exactly the records before the barrier. At-least-once checkpointing breaks it (records
// that overtook a barrier are counted in the state and replayed after the restore).
//
// Checks: every keyed vertex, every restore from a checkpoint whose subtasks all got as far as
// loading their state. Does not check: operator state of sources and sinks (the output oracles
// see its effects), restores from scratch (nothing to load), the order of the replay (keyed count
// and sum fold commutatively; a running sum fed into another keyed vertex may depend on order,
// which the model does not fix either).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "oracles/oracle.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class StateAfterRestoreOracle final : public Oracle {
public:
    StateAfterRestoreOracle(const ReferenceModel& model, const engine::JobSpec& job)
        : model_(model), job_(&job) {}
    // Deployments (scenarios' "deployments"): a restore from a savepoint is a restore like any
    // other, checked against the model at the savepoint's offsets and the new deployment's
    // parallelism; with a new program, an added keyed operator must load nothing and a kept one
    // (same uid) the model's.
    //
    // A later deployment runs this job (its parallelism): restores from now on are checked against
    // it. The model stays one execution over the whole history; a deployment with a program of its
    // own is added to it (ReferenceModel::add_deployment), and its vertex ids are then this job's.
    void set_job(const engine::JobSpec& job) { job_ = &job; }
    const char* name() const override { return "state_after_restore"; }
    Verdict verdict() const override;

    void restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id,
                         const engine::SourceOffsets& offsets) override;
    void keyed_state_restored(sim::Time at, int64_t attempt, const std::string& vertex,
                              int32_t subtask, const std::map<int64_t, int64_t>& state) override;
    void keyed_cells_restored(sim::Time at, int64_t attempt, const std::string& vertex,
                              int32_t subtask,
                              const std::map<engine::StateKey, int64_t>& cells) override;
    void channel_state_restored(sim::Time at, int64_t attempt, const std::string& vertex,
                                int32_t subtask,
                                const std::vector<engine::InFlightRecords>& in_flight) override;

    // In-flight records the checks replayed so far (for tests: a restore with channel state was
    // checked).
    int64_t in_flight_records_checked() const { return in_flight_checked_; }

private:
    struct Restore {
        int64_t checkpoint_id = 0;
        engine::SourceOffsets offsets;
        std::map<std::string, std::map<int64_t, int64_t>> loaded;  // keyed vertex -> merged state
        std::map<std::string, std::set<int32_t>> keyed_subtasks;  // keyed vertex -> subtasks loaded
        std::map<std::string, std::set<int32_t>>
            channel_subtasks;  // vertex -> subtasks that reported channel state
        std::map<std::string, std::vector<engine::Record>>
            in_flight;  // vertex -> records it will replay
        std::map<std::pair<std::string, std::string>, std::vector<engine::Record>>
            in_flight_edges;  // (from, to) -> records
        std::map<std::string, std::map<engine::StateKey, int64_t>>
            loaded_cells;                                        // join vertex -> merged cells
        std::map<std::string, std::set<int32_t>> cell_subtasks;  // join vertex -> subtasks loaded
        std::set<std::string> checked;
    };
    using SubtaskReports =
        std::map<std::string, std::set<int32_t>> Restore::*;  // keyed, channel or cell reports
    // The restore of `attempt` when it restored a checkpoint and this is the first report of `kind`
    // from `subtask` of `vertex` (noted now); nullptr otherwise.
    Restore* first_report(int64_t attempt, SubtaskReports kind, const std::string& vertex,
                          int32_t subtask);
    void check_ready(sim::Time at, Restore& restore);
    bool ready(const Restore& restore, const std::set<std::string>& closure) const;
    // Channel state (unaligned checkpoints): the cut then runs through the channels, and the
    // records before it are either in some operator's state or in flight (recovered channel state,
    // replayed before any new data). Every restored subtask reports its recovered in-flight
    // records, each named by the vertex that will process them. For a keyed vertex V the oracle
    // waits until every subtask of every vertex upstream of V (V included) reported, then replays:
    // in topological order over those vertices, each vertex processes its recovered in-flight
    // records plus what its upstream vertices produced in this replay, with the model's operator
    // definitions and, for keyed vertices, starting from their restored state. V's state after the
    // replay must equal the model's. A record lost from channel state leaves V under-counted; one
    // both in state and in flight over-counts it. For aligned checkpoints nothing is in flight and
    // the check is the plain one above.
    std::set<std::string> upstream_closure(const std::string& vertex) const;
    // `vertex`'s state after the replay; a join's in `joined_cells`.
    std::map<int64_t, int64_t> replay(const Restore& restore, const std::set<std::string>& closure,
                                      const std::string& vertex,
                                      std::map<engine::StateKey, int64_t>& joined_cells);
    // Joins (engine/runtime/join_operator.h): the state is both sides' rows, cells {key, side,
    // timestamp, value} -> multiplicity, never expired; every subtask reports its restored cells
    // (keyed_cells_restored) and the merged cells, after replaying in-flight rows side by side (an
    // in-flight record's side is its edge's), must equal the model's cells at the cut exactly. A
    // side restored at another cut than the other (rows missing, or rows past the cut kept) breaks
    // it.
    void replay_join(const Restore& restore, const engine::VertexSpec& v,
                     std::map<std::string, std::vector<engine::Record>>& produced,
                     std::map<engine::StateKey, int64_t>& cells, std::vector<engine::Record>& out);
    void check_join(sim::Time at, const Restore& restore, const std::string& vertex,
                    const std::map<engine::StateKey, int64_t>& actual);
    void check(sim::Time at, const Restore& restore, const std::string& vertex,
               const std::map<int64_t, int64_t>& actual);
    // Every subtask's keys: each restored subtask holds only keys of the key groups it owns at the
    // restoring job's parallelism (a key also restored by a subtask that does not own it -- a
    // rescaled restore that copied an old subtask's whole files without clipping them -- is a stale
    // copy that the merged comparison cannot see). With the merged comparison this checks every
    // subtask's keys against the model.
    void check_key_groups(sim::Time at, const Restore& restore, const std::string& vertex,
                          int32_t subtask, const std::map<int64_t, int64_t>& state);
    // Deduplication (engine/runtime/dedup_operator.h): the state is each key's period start,
    // cleared by an event-time timer when the watermark reaches the period's end. Which periods the
    // watermark had expired at a cut depends on how the inputs interleaved (the watermark at the
    // barrier is the minimum over channels of watermarks emitted at moments the cut does not fix),
    // so the projection compared is: every restored period equals the model's period of that key at
    // the cut (never expiring), and every model period that ends after the largest watermark the
    // cut allows (ReferenceModel::watermark_upper_bound: the largest timestamp read minus 1) was
    // restored. Periods that may have expired are counted, not checked. A restore that forgets the
    // state breaks the second part whenever a period is still open at the cut; a stale or
    // duplicated period the first.
    std::optional<std::string> dedup_difference(const Restore& restore, const engine::VertexSpec& v,
                                                const std::map<int64_t, int64_t>& actual);
    void report(sim::Time at, const Restore& restore, const std::string& vertex,
                const std::string& detail);

    const ReferenceModel& model_;
    const engine::JobSpec* job_;
    std::map<int64_t, Restore> restores_;  // by attempt
    int64_t restores_checked_ = 0;
    int64_t subtasks_checked_ = 0;  // restored subtasks whose keys were all of their own key groups
    int64_t in_flight_checked_ = 0;
    int64_t joined_rows_checked_ = 0;    // join cells compared with the model's
    int64_t dedup_periods_checked_ = 0;  // restored periods compared with the model's
    int64_t dedup_periods_expired_ =
        0;  // periods the model holds that may have expired before the cut
    std::optional<std::string> violation_;
};

}  // namespace eosim::oracles
