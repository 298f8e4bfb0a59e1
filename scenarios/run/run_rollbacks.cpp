#include "scenarios/run/run_rollbacks.h"

#include <string>
#include <vector>

namespace eosim::scenarios {

namespace {

// What an attempt restores, as a user names it: a later deployment's first attempt restores what
// its "from" names (a savepoint, or a retained checkpoint); any other attempt what the history
// says.
std::string restored_name(const Scenario& scenario, const JobHistory& history, int64_t attempt,
                          int64_t id) {
    const int64_t deployment = deployment_of_attempt(attempt);
    const std::vector<DeploymentSpan>& spans = history.deployments();
    const bool first_attempt = !spans.empty() &&
                               spans.back().name == deployment_name_of_attempt(attempt) &&
                               spans.back().attempts == 1;
    if (first_attempt && deployment > 0 &&
        static_cast<size_t>(deployment) <= scenario.deployments.size()) {
        const bool checkpoint =
            scenario.deployments[static_cast<size_t>(deployment) - 1].from.from_checkpoint();
        return (checkpoint ? "checkpoint " : "savepoint ") + std::to_string(id);
    }
    const std::string text = history.restore_text(attempt, id);
    const std::string restores = "restores ";
    return text.starts_with(restores) ? text.substr(restores.size()) : text;
}

}  // namespace

std::unique_ptr<oracles::RollbackDetector> watch_rollbacks(const Scenario& scenario,
                                                           const DeploymentRun& deployments,
                                                           const RunWorld& run,
                                                           RunObservers& observers) {
    std::vector<const engine::VertexSpec*> sinks;
    for (const engine::JobSpec& program : deployments.jobs()) {
        for (const engine::VertexSpec& v : program.vertices) {
            if (v.kind == engine::OperatorKind::sink) sinks.push_back(&v);
        }
    }
    const JobHistory& history = observers.history;
    auto detector = std::make_unique<oracles::RollbackDetector>(
        run.services.systems.kafka, sinks, [&scenario, &history](int64_t attempt, int64_t id) {
            return oracles::RollbackDetector::AttemptNames{
                deployment_name_of_attempt(attempt), history.attempt_name(attempt),
                restored_name(scenario, history, attempt, id), verification_attempt(attempt)};
        });
    observers.fanout.add(detector.get());
    return detector;
}

}  // namespace eosim::scenarios
