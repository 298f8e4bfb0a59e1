#pragma once
// Exactly-once output: at the end of the run, what a reader of the sink's outside system sees
// (committed data only) equals the reference model's output, in the sink kind's projection
// (engine/connectors/sink_registry.h, SinkOutputShape):
// - appended (Kafka read_committed, an append log): the multiset of (key, value) records: nothing
//   lost, nothing duplicated; reports the first missing and the first duplicated record;
// - keyed_table (an upsert table, a keyspace, a document index by key): one row per key equal to
//   the model's last value for that key: no key missing, no key extra, no stale or over-counted
//   value; reports the first such key.
//
// Does not check: order, when records became visible (the visibility oracle does), intermediate
// states of a table (a key that went backwards and forward again passes here).
#include "engine/connectors/sink_registry.h"
#include "oracles/oracle.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class ExactlyOnceOutputOracle final : public Oracle {
public:
    ExactlyOnceOutputOracle(const ReferenceModel& model, std::string sink_vertex, engine::SinkOutputShape shape,
                            SinkReader reader)
        : model_(model), sink_vertex_(std::move(sink_vertex)), shape_(shape), reader_(std::move(reader)) {}
    const char* name() const override { return "exactly_once_output"; }
    Verdict verdict() const override;

private:
    Verdict appended_verdict() const;
    Verdict keyed_table_verdict() const;

    const ReferenceModel& model_;
    std::string sink_vertex_;
    engine::SinkOutputShape shape_;
    SinkReader reader_;
};

}  // namespace eosim::oracles
