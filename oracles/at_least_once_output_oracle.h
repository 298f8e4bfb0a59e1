#pragma once
// At-least-once output: at the end of the run, every record of the reference model's output is in
// the sink at least as often as the model has it: nothing lost. Duplicates are allowed, counted,
// and reported in the verdict's message.
//
// When the job failed for good (a scenario expecting `job_failure`): nothing of the model's output
// up to the lower cut of its committed prefix lost (oracles/committed_prefix_comparison.h); input
// it never read is not missing.
//
// Does not check: duplicates (that is the exactly-once oracle's job), order, visibility.
#include <optional>

#include "oracles/oracle.h"
#include "oracles/oracle_registry.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class AtLeastOnceOutputOracle final : public Oracle {
public:
    AtLeastOnceOutputOracle(const ReferenceModel& model, std::string sink_vertex, SinkReader reader)
        : model_(model), sink_vertex_(std::move(sink_vertex)), reader_(std::move(reader)) {}
    const char* name() const override { return "at_least_once_output"; }
    Verdict verdict() const override;
    // The job failed for good: judge its committed prefix (see above).
    void set_job_failed(CommittedPrefix prefix) { failed_ = std::move(prefix); }

private:
    const ReferenceModel& model_;
    std::string sink_vertex_;
    SinkReader reader_;
    std::optional<CommittedPrefix> failed_;
};

}  // namespace eosim::oracles
