#pragma once
// Exactly-once output: at the end of the run, what a read_committed reader sees in the sink
// equals the reference model's output: nothing lost, nothing duplicated. Reports the first
// missing and the first duplicated record with their counts.
//
// Checks: the multiset of (key, value) records. Does not check: order, when records became
// visible (the visibility oracle does), or intermediate states.
#include "oracles/oracle.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class ExactlyOnceOutputOracle final : public Oracle {
public:
    ExactlyOnceOutputOracle(const ReferenceModel& model, std::string sink_vertex, SinkReader reader)
        : model_(model), sink_vertex_(std::move(sink_vertex)), reader_(std::move(reader)) {}
    const char* name() const override { return "exactly_once_output"; }
    Verdict verdict() const override;

private:
    const ReferenceModel& model_;
    std::string sink_vertex_;
    SinkReader reader_;
};

}  // namespace eosim::oracles
