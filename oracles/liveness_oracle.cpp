#include "oracles/liveness_oracle.h"

#include <cstdio>

#include "oracles/oracle_registry.h"

namespace eosim::oracles {

using sim::seconds_text;

Verdict LivenessOracle::verdict() const {
    const sim::Time quiet = quiet_since_();
    if (failure_ && !failure_expected_)
        return Verdict{false, "the job failed for good: " + *failure_};
    if (!failure_ && !finished_at_)
        return Verdict{false,
                       "the job did not finish (faults quiet since " + seconds_text(quiet) + ")"};
    const sim::Time end = failure_ ? failed_at_ : *finished_at_;
    const std::string ended = failure_ ? "the job failed as expected at " : "the job finished at ";
    const sim::Time deadline = quiet + bound_;
    if (end > deadline) {
        return Verdict{false, ended + seconds_text(end) + ", later than " + seconds_text(deadline) +
                                  " (faults quiet since " + seconds_text(quiet) + " + bound)"};
    }
    return Verdict{true, ended + seconds_text(end)};
}

OracleRegistration liveness_registration() {
    return {"liveness",
            "the job finishes within the liveness bound after the last fault's effect is over",
            [](const OracleJobFacts&) { return std::string(); },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                auto oracle =
                    std::make_unique<LivenessOracle>(run.liveness_bound, run.faults_quiet_since);
                LivenessOracle* liveness = oracle.get();
                run.hooks.on_job_failed(
                    [liveness](const CommittedPrefix&) { liveness->expect_failure(); });
                return oracle;
            },
            true};
}

}  // namespace eosim::oracles
