#pragma once
// Step 4 of a run: the oracles the scenario lists, each made by its registration
// (oracles/oracle_registry.h) from the run's context, in the scenario's order, and fanned the
// engine's notifications. The output oracles judge every sink of every deployment's program, each
// through one committed reader that is read once, after the run, and shared.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "oracles/oracle_registry.h"
#include "oracles/rollback_detector.h"
#include "scenarios/deployment_run.h"
#include "scenarios/run/observers.h"
#include "scenarios/run/planned_faults.h"
#include "scenarios/run/run_world.h"

namespace eosim::scenarios {

class RunOracles {
public:
    // `rollbacks` (for the no_rollbacks oracle) must outlive this.
    RunOracles(const Scenario& scenario, RunWorld& run, const DeploymentRun& deployments,
               const PlannedFaults& faults, ObserverFanout& fanout,
               const oracles::RollbackDetector& rollbacks);
    RunOracles(const RunOracles&) = delete;
    RunOracles& operator=(const RunOracles&) = delete;

    const oracles::OracleRunHooks& hooks() const { return hooks_; }
    // Whether a listed oracle wants a run without progress cut early
    // (OracleRegistration::ends_hung_runs).
    bool ends_hung_runs() const { return ends_hung_runs_; }
    // What a committed reader sees of the job's first sink.
    oracles::RecordMultiset first_sink_content() const { return judged_.front().reader(); }
    // Every sink the output oracles judge, with its committed reader (read once, shared).
    const std::vector<oracles::JudgedSink>& judged_sinks() const { return judged_; }
    // Every oracle's verdict, in the scenario's order.
    std::vector<OracleVerdict> verdicts() const;

private:
    std::vector<oracles::JudgedSink> judged_;
    oracles::OracleRunHooks hooks_;
    std::unique_ptr<oracles::OracleRunContext> context_;  // refers to judged_ and hooks_
    std::vector<std::pair<std::string, std::unique_ptr<oracles::Oracle>>> checks_;
    bool ends_hung_runs_ = false;
};

}  // namespace eosim::scenarios
