#pragma once
// Verification jobs (a scenario deployment with "verification": true): before the live deployment
// starts from the previous one's final savepoint, the same program is started from that savepoint
// next to the stopped job, writing to a throw-away Kafka topic of its own, and after a while is
// stopped with a savepoint of its own (the blue/green check of an upgrade). This oracle checks,
// per verification job and per sink of it (each Kafka sink writes a throw-away topic of its own),
// that the throw-away topic's committed content (read_committed) equals the
// reference model's output of that program over the input it consumed: from the savepoint's
// source offsets to those of its own final savepoint, its keyed state continuing the history at
// the savepoint (ReferenceModel::output_between): nothing lost, nothing duplicated, and state that
// was restored wrongly shows in its output. Its restore is checked by state_after_restore like any
// other restore.
//
// Does not check: order; a verification job that did not stop with its own savepoint (it failed:
// the run fails with its error; or it finished the input first: then up to the input's end); the
// real sink (exactly_once_output does: a verification job never writes to it).
#include <optional>
#include <string>
#include <vector>

#include "oracles/oracle.h"
#include "oracles/reference_model.h"

namespace eosim::oracles {

class VerificationOutputOracle final : public Oracle {
public:
    explicit VerificationOutputOracle(const ReferenceModel& model) : model_(model) {}
    const char* name() const override { return "verification_output"; }
    Verdict verdict() const override;

    // A verification job of program `job` ran from `from`; `to`: its final savepoint's offsets
    // (nullopt: it read to the input's end). `reader`: its throw-away sink's committed content;
    // `sink_uid`: the uid of the sink it stands in for. `job` must outlive the oracle.
    void verification_ran(const engine::JobSpec& job, engine::SourceOffsets from,
                          std::optional<engine::SourceOffsets> to, std::string sink_uid,
                          SinkReader reader);

private:
    struct Ran {
        const engine::JobSpec* job;
        engine::SourceOffsets from;
        std::optional<engine::SourceOffsets> to;
        std::string sink_uid;
        SinkReader reader;
    };
    const ReferenceModel& model_;
    std::vector<Ran> ran_;
};

}  // namespace eosim::oracles
