#pragma once
// Liveness: once faults stop (every fault's effect has ended: nodes restarted, partitions healed),
// the job finishes its bounded input, with its final checkpoint committed, within `bound` of
// virtual time. A job that failed for good, or that was still running when the run was cut,
// violates it -- unless the scenario expects the failure ({"job_failure": ...}): the failure is
// then the job's end, and must come within `bound` of the faults' end as a finish would (a job that
// hangs before it fails still violates it).
//
// Does not check: anything about the content of the output.
#include <functional>
#include <optional>
#include <string>

#include "oracles/oracle.h"

namespace eosim::oracles {

class LivenessOracle final : public Oracle {
public:
    // `quiet_since` tells when the last fault's effect ended (asked at the end of the run).
    LivenessOracle(sim::Duration bound, std::function<sim::Time()> quiet_since)
        : bound_(bound), quiet_since_(std::move(quiet_since)) {}
    const char* name() const override { return "liveness"; }
    Verdict verdict() const override;

    void job_finished(sim::Time at) override { finished_at_ = at; }
    void job_failed(sim::Time at, const std::string& reason) override {
        failure_ = reason;
        failed_at_ = at;
    }
    // The scenario expected the job to fail (OracleRunHooks::on_job_failed): its failure is its
    // end.
    void expect_failure() { failure_expected_ = true; }

private:
    sim::Duration bound_;
    std::function<sim::Time()> quiet_since_;
    std::optional<sim::Time> finished_at_;
    std::optional<std::string> failure_;
    sim::Time failed_at_ = sim::Time::zero();
    bool failure_expected_ = false;
};

}  // namespace eosim::oracles
