#include "scenarios/run/judge.h"

#include <vector>

namespace eosim::scenarios {

void judge(const Scenario& scenario, const engine::Engine& engine, RunResult& result) {
    std::vector<std::string> fired;
    for (const OracleVerdict& v : result.verdicts) {
        if (!v.passed) fired.push_back(v.oracle);
    }
    std::string fired_list;
    for (const std::string& name : fired) fired_list += (fired_list.empty() ? "" : ", ") + name;
    const Expectation& expect = scenario.expect;
    if (!expect.job_failure.empty()) {
        const bool failed_so =
            engine.failed() && engine.failure().find(expect.job_failure) != std::string::npos;
        const bool fired_so =
            expect.pass ? fired.empty() : fired == std::vector<std::string>{expect.violation};
        result.expectation_met = failed_so && fired_so;
        result.expectation_message =
            !engine.failed()
                ? "expected the job to fail with \"" + expect.job_failure + "\"; it did not fail"
            : !failed_so ? "expected the job to fail with \"" + expect.job_failure +
                               "\"; it failed with: " + engine.failure()
            : fired_so && expect.pass
                ? "expected the job to fail with \"" + expect.job_failure + "\": it did (" +
                      engine.failure() + "), and every oracle passed on what it committed"
            : fired_so
                ? "expected the job to fail with \"" + expect.job_failure +
                      "\" and a violation of " + expect.violation + ": found both, and only it"
            : expect.pass
                ? "the job failed as expected, but oracles were violated: " + fired_list
                : "the job failed as expected; expected a violation of " + expect.violation +
                      " only; violated: " + (fired.empty() ? std::string("none") : fired_list);
    } else if (expect.pass) {
        result.expectation_met = fired.empty();
        result.expectation_message = fired.empty()
                                         ? "expected every oracle to pass: they did"
                                         : "expected every oracle to pass; violated: " + fired_list;
    } else {
        const std::string& wanted = expect.violation;
        result.expectation_met = fired.size() == 1 && fired.front() == wanted;
        result.expectation_message =
            result.expectation_met
                ? "expected a violation of " + wanted + ": found it, and only it"
                : "expected a violation of " + wanted +
                      " only; violated: " + (fired.empty() ? std::string("none") : fired_list);
        if (!expect.every_seed && fired.empty()) {
            // A negative control under random faults: this seed did not reach the bug, which is
            // allowed; a suite still requires "oracle:<violation>" on some seed.
            result.expectation_met = true;
            result.expectation_message =
                "expected a violation of " + wanted +
                " on some seeds (not every seed): none on this one, which is allowed";
        }
    }
    if (!result.cut.empty())
        result.expectation_message =
            "the run was " + result.cut + "; " + result.expectation_message;
}

std::string run_end_text(const engine::Engine& engine, const std::string& cut) {
    if (engine.finished()) return "the job finished";
    if (engine.failed()) return "the job failed";
    return "the run was " + cut;
}

void account_faults(const Scenario& scenario, const RunOptions& options,
                    std::vector<FaultAccount> accounts, RunResult& result) {
    const FaultTally t = tally(accounts);
    result.figures.faults_planned = t.planned;
    result.figures.faults_fired = t.fired;
    result.figures.faults_without_effect = t.without_effect;
    result.figures.faults_not_fired = t.not_fired;
    result.fault_accounts = std::move(accounts);
    if (!scenario.strict_faults && !options.strict_faults) return;
    const std::string failure = strict_fault_failure(result.fault_accounts, false);
    if (failure.empty()) return;
    result.expectation_met = false;
    result.expectation_message = failure + "; " + result.expectation_message;
}

}  // namespace eosim::scenarios
