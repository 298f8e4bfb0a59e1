#pragma once
// State after each restore: when an attempt restores from checkpoint N, the keyed state its
// subtasks load, put together, equals the reference model's keyed state over the input prefix
// named by N's source offsets. That is what makes a checkpoint a consistent cut: the state
// reflects exactly the records before the barrier. At-least-once checkpointing breaks it (records
// that overtook a barrier are counted in the state and replayed after the restore).
//
// Channel state (unaligned checkpoints): the cut then runs through the channels, and the records
// before it are either in some operator's state or in flight (recovered channel state, replayed
// before any new data). Every restored subtask reports its recovered in-flight records, each named
// by the vertex that will process them. For a keyed vertex V the oracle waits until every subtask
// of every vertex upstream of V (V included) reported, then replays: in topological order over
// those vertices, each vertex processes its recovered in-flight records plus what its upstream
// vertices produced in this replay, with the model's operator definitions and, for keyed vertices,
// starting from their restored state. V's state after the replay must equal the model's. A record
// lost from channel state leaves V under-counted; one both in state and in flight over-counts it.
// For aligned checkpoints nothing is in flight and the check is the plain one above.
//
// Deployments (scenarios' "deployments"): a restore from a savepoint is a restore like any other,
// checked against the model at the savepoint's offsets and the new deployment's parallelism; with
// a new program, an added keyed operator must load nothing and a kept one (same uid) the model's.
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
    StateAfterRestoreOracle(const ReferenceModel& model, const engine::JobSpec& job) : model_(model), job_(&job) {}
    // A later deployment runs this job (its parallelism): restores from now on are checked against it.
    // The model stays one execution over the whole history; a deployment with a program of its own
    // is added to it (ReferenceModel::add_deployment), and its vertex ids are then this job's.
    void set_job(const engine::JobSpec& job) { job_ = &job; }
    const char* name() const override { return "state_after_restore"; }
    Verdict verdict() const override;

    void restore_started(sim::Time at, int64_t attempt, int64_t checkpoint_id, const engine::SourceOffsets& offsets) override;
    void keyed_state_restored(sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
                              const std::map<int64_t, int64_t>& state) override;
    void channel_state_restored(sim::Time at, int64_t attempt, const std::string& vertex, int32_t subtask,
                                const std::vector<engine::InFlightRecords>& in_flight) override;

    // In-flight records the checks replayed so far (for tests: a restore with channel state was checked).
    int64_t in_flight_records_checked() const { return in_flight_checked_; }

private:
    struct Restore {
        int64_t checkpoint_id = 0;
        engine::SourceOffsets offsets;
        std::map<std::string, std::map<int64_t, int64_t>> loaded;         // keyed vertex -> merged state
        std::map<std::string, std::set<int32_t>> keyed_subtasks;          // keyed vertex -> subtasks loaded
        std::map<std::string, std::set<int32_t>> channel_subtasks;        // vertex -> subtasks that reported channel state
        std::map<std::string, std::vector<engine::Record>> in_flight;     // vertex -> records it will replay
        std::set<std::string> checked;
    };
    void check_ready(sim::Time at, Restore& restore);
    bool ready(const Restore& restore, const std::set<std::string>& closure) const;
    std::set<std::string> upstream_closure(const std::string& vertex) const;
    std::map<int64_t, int64_t> replay(const Restore& restore, const std::set<std::string>& closure,
                                      const std::string& vertex);
    void check(sim::Time at, const Restore& restore, const std::string& vertex, const std::map<int64_t, int64_t>& actual);

    const ReferenceModel& model_;
    const engine::JobSpec* job_;
    std::map<int64_t, Restore> restores_;  // by attempt
    int64_t restores_checked_ = 0;
    int64_t in_flight_checked_ = 0;
    std::optional<std::string> violation_;
};

}  // namespace eosim::oracles
