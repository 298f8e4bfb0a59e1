#pragma once
// At-least-once output: at the end of the run, every record of the reference model's output is in
// the sink at least as often as the model has it: nothing lost. Duplicates are allowed, counted,
// and reported in the verdict's message.
//
// Does not check: duplicates (that is the exactly-once oracle's job), order, visibility.
#include "oracles/oracle.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class AtLeastOnceOutputOracle final : public Oracle {
public:
    AtLeastOnceOutputOracle(const ReferenceModel& model, std::string sink_vertex, SinkReader reader)
        : model_(model), sink_vertex_(std::move(sink_vertex)), reader_(std::move(reader)) {}
    const char* name() const override { return "at_least_once_output"; }
    Verdict verdict() const override;

private:
    const ReferenceModel& model_;
    std::string sink_vertex_;
    SinkReader reader_;
};

}  // namespace eosim::oracles
