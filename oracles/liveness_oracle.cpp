#include "oracles/liveness_oracle.h"

#include <cstdio>

#include "oracles/oracle_registry.h"

namespace eosim::oracles {

using sim::seconds_text;

Verdict LivenessOracle::verdict() const {
    const sim::Time quiet = quiet_since_();
    if (failure_) return Verdict{false, "the job failed for good: " + *failure_};
    if (!finished_at_) return Verdict{false, "the job did not finish (faults quiet since " + seconds_text(quiet) + ")"};
    const sim::Time deadline = quiet + bound_;
    if (*finished_at_ > deadline) {
        return Verdict{false, "the job finished at " + seconds_text(*finished_at_) + ", later than " + seconds_text(deadline) +
                                  " (faults quiet since " + seconds_text(quiet) + " + bound)"};
    }
    return Verdict{true, "the job finished at " + seconds_text(*finished_at_)};
}

OracleRegistration liveness_registration() {
    return {"liveness", "the job finishes within the liveness bound after the last fault's effect is over",
            [](const OracleJobFacts&) { return std::string(); },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                return std::make_unique<LivenessOracle>(run.liveness_bound, run.faults_quiet_since);
            },
            true};
}

}  // namespace eosim::oracles
