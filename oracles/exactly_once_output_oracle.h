#pragma once
// Exactly-once output: at the end of the run, what a reader of the sink's outside system sees
// (committed data only) equals the reference model's output, in the sink kind's projection
// (engine/connectors/sink_registry.h, SinkOutputShape):
// - appended (Kafka read_committed, an append log): the multiset of (key, value) records: nothing
//   lost, nothing duplicated; reports the first missing and the first duplicated record;
// - keyed_table (an upsert table, a keyspace, a document index by key): one row per key equal to
//   the model's last value for that key: no key missing, no key extra, no stale or over-counted
//   value; reports the first such key;
// - key_counts (a counter per key): one row per key equal to the number of records the model's
//   output has for that key, judged as a keyed table (an over-count: a replay counted twice; an
//   under-count: an event lost).
//
// When the run was cut before the job finished (time_limit, event limit, a hung run cut early), the
// output is incomplete by construction: missing records, missing keys and keys whose value has not
// caught up are then noted, not judged (the liveness oracle and the cut reason judge that); what
// was committed must still not be duplicated or extra.
//
// When the job failed for good (a scenario expecting `job_failure`), the output is judged on the
// job's committed prefix instead (oracles/committed_prefix_comparison.h): input it never read is
// not missing; what it committed must hold the lower cut's output and nothing beyond the upper
// cut's.
//
// Does not check: order, when records became visible (the visibility oracle does), intermediate
// states of a table (a key that went backwards and forward again passes here).
#include <optional>

#include "engine/connectors/sink_registry.h"
#include "oracles/oracle.h"
#include "oracles/oracle_registry.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class ExactlyOnceOutputOracle final : public Oracle {
public:
    // `units`: what the reader counts (engine::SinkConfig::output_units), for the message.
    ExactlyOnceOutputOracle(const ReferenceModel& model, std::string sink_vertex,
                            engine::SinkOutputShape shape, SinkReader reader,
                            std::string units = "committed records")
        : model_(model),
          sink_vertex_(std::move(sink_vertex)),
          shape_(shape),
          reader_(std::move(reader)),
          units_(std::move(units)) {}
    const char* name() const override { return "exactly_once_output"; }
    Verdict verdict() const override;
    // The run was cut before the job finished, for this reason (see above).
    void set_run_cut(std::string reason) { run_cut_ = std::move(reason); }
    // The job failed for good: judge its committed prefix (see above).
    void set_job_failed(CommittedPrefix prefix) { failed_ = std::move(prefix); }

private:
    Verdict appended_verdict() const;
    // A table of one (key, value) row per key against `expected`; `shape` names it in the message.
    Verdict table_verdict(const std::vector<engine::Record>& expected, const char* shape) const;

    const ReferenceModel& model_;
    std::string sink_vertex_;
    engine::SinkOutputShape shape_;
    SinkReader reader_;
    std::string units_;
    std::string run_cut_;
    std::optional<CommittedPrefix> failed_;
};

}  // namespace eosim::oracles
