#include "scenarios/upgrade_swarm.h"

#include "scenarios/scenario.h"

namespace eosim::scenarios {

namespace {

std::string backend_text(const engine::StateBackendOptions& b) {
    if (b.kind == engine::StateBackendKind::heap) return "heap";
    return b.incremental ? "rocksdb incremental" : "rocksdb";
}

bool incremental(const engine::StateBackendOptions& b) {
    return b.kind == engine::StateBackendKind::rocksdb && b.incremental;
}

}  // namespace

Scenario draw_upgrades(const Scenario& scenario, uint64_t seed) {
    Scenario drawn = scenario;
    if (!scenario.upgrade_swarm) return drawn;
    const UpgradeSwarm& swarm = *scenario.upgrade_swarm;
    sim::Prng prng = sim::Prng(seed).fork("upgrades");
    drawn.deployments.clear();
    engine::StateBackendOptions previous_backend = scenario.job.state_backend;
    for (size_t d = 0; d < swarm.windows.size(); ++d) {
        DeploymentSpec next;
        next.at = prng.duration_between(swarm.windows[d].min, swarm.windows[d].max);
        next.at = sim::Duration::millis(next.at.ns / 1'000'000);
        // Deployment d (0: the first job) is the one running; a rollback names an older one that
        // was stopped with a savepoint (the deployment after it did not cancel it).
        std::vector<size_t> rollback_targets;
        for (size_t j = 0; j < d; ++j) {
            if (drawn.deployments[j].from.kind != RestoreSource::Kind::latest_checkpoint)
                rollback_targets.push_back(j);
        }
        next.from.deployment = d;
        if (!rollback_targets.empty() && prng.chance(swarm.rollback)) {
            next.from.deployment = rollback_targets[prng.below(rollback_targets.size())];
            next.from.text = "savepoint after v" + std::to_string(next.from.deployment + 1);
        } else if (prng.chance(swarm.latest_checkpoint)) {
            next.from.kind = RestoreSource::Kind::latest_checkpoint;
            next.from.text = "latest checkpoint";
        }
        next.parallelism =
            static_cast<int32_t>(prng.between(swarm.parallelism_min, swarm.parallelism_max));
        for (const engine::VertexSpec& v : scenario.job.vertices) {
            if (v.kind == engine::OperatorKind::sink) next.vertex_parallelism[v.id] = v.parallelism;
        }
        engine::StateBackendOptions backend = swarm.backends[prng.below(swarm.backends.size())];
        if (next.from.kind == RestoreSource::Kind::latest_checkpoint &&
            incremental(previous_backend))
            backend = previous_backend;
        next.state_backend = backend;
        previous_backend = backend;
        drawn.deployments.push_back(std::move(next));
    }
    return drawn;
}

std::vector<std::string> describe_deployments(const Scenario& scenario) {
    std::vector<std::string> lines;
    for (size_t d = 0; d < scenario.deployments.size(); ++d) {
        const DeploymentSpec& spec = scenario.deployments[d];
        // Appended, not "v" + std::to_string(...): that trips GCC 12's false -Wrestrict (bug
        // 105329).
        std::string line = "v";
        line +=
            std::to_string(d + 2) + " at " + sim::seconds_text(spec.at) + " from " +
            (spec.from.text.empty() ? "savepoint after v" + std::to_string(d + 1) : spec.from.text);
        if (spec.parallelism) line += ", parallelism " + std::to_string(*spec.parallelism);
        if (spec.state_backend) line += ", " + backend_text(*spec.state_backend);
        lines.push_back(std::move(line));
    }
    return lines;
}

}  // namespace eosim::scenarios
