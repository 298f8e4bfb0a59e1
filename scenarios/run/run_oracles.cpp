#include "scenarios/run/run_oracles.h"

#include <optional>
#include <set>
#include <stdexcept>

namespace eosim::scenarios {

namespace {

// The sinks the output oracles judge: every sink of every deployment's program, in program order
// (the job's own first). A sink counts once, by uid, as the first program that has it names it; a
// later sink whose id an earlier sink with another uid holds is left out (the reference model keys
// expected outputs by that id: oracles/reference_model.h).
std::vector<const engine::VertexSpec*> output_sinks(const std::vector<engine::JobSpec>& programs) {
    std::vector<const engine::VertexSpec*> sinks;
    std::set<std::string> ids;
    std::set<std::string> uids;
    for (const engine::JobSpec& program : programs) {
        for (const engine::VertexSpec& v : program.vertices) {
            if (v.kind != engine::OperatorKind::sink || ids.contains(v.id)) continue;
            if (!uids.insert(v.uid_or_id()).second) continue;
            ids.insert(v.id);
            sinks.push_back(&v);
        }
    }
    return sinks;
}

// What a committed reader of `sink`'s outside system sees, read once after the run (oracles ask
// only then) into a compact sorted multiset that every oracle of the sink shares.
oracles::SinkReader committed_reader(const engine::VertexSpec& sink,
                                     const RunOutsideSystems& outside) {
    auto content = std::make_shared<std::optional<oracles::RecordMultiset>>();
    return [&sink, &outside, content]() -> oracles::RecordMultiset {
        if (!*content) *content = outside.committed_content(*sink.sink);
        return **content;
    };
}

}  // namespace

RunOracles::RunOracles(const Scenario& scenario, RunWorld& run, const DeploymentRun& deployments,
                       const PlannedFaults& faults, ObserverFanout& fanout,
                       const oracles::RollbackDetector& rollbacks) {
    std::vector<std::string> judged_ids;
    for (const engine::VertexSpec* judged : output_sinks(deployments.jobs())) {
        judged_.push_back(oracles::JudgedSink{judged, committed_reader(*judged, run.outside)});
        judged_ids.push_back(judged->id);
    }
    run.model.expect_sinks(
        judged_ids);  // a later program's sink: nothing expected until the run deploys it
    const sim::FaultInjector& injector = faults.injector();
    const RunOutsideSystems& outside = run.outside;
    context_ = std::make_unique<oracles::OracleRunContext>(oracles::OracleRunContext{
        run.world, scenario.job, run.services.systems, run.model, judged_,
        scenario.inputs.empty() ? std::string() : scenario.inputs.front().topic,
        scenario.freshness_bound_or_default(), scenario.liveness_bound,
        [&faults](sim::Time from, sim::Time to) { return faults.effect_during(from, to); },
        [&injector] { return injector.quiet_since(); },
        [&outside](const engine::VertexSpec& sink) {
            return outside.committed_content(*sink.sink);
        },
        hooks_, &rollbacks});
    for (const std::string& name : scenario.oracles) {
        const oracles::OracleRegistration* kind = oracles::OracleRegistry::global().find(name);
        if (kind == nullptr)
            throw std::invalid_argument("oracle \"" + name + "\" is not registered");
        std::unique_ptr<oracles::Oracle> oracle = kind->make(*context_);
        ends_hung_runs_ = ends_hung_runs_ || kind->ends_hung_runs;
        fanout.add(oracle.get());
        checks_.emplace_back(name, std::move(oracle));
    }
}

std::vector<OracleVerdict> RunOracles::verdicts() const {
    std::vector<OracleVerdict> out;
    for (const auto& [name, oracle] : checks_) {
        const oracles::Verdict v = oracle->verdict();
        out.push_back(OracleVerdict{name, v.passed, v.message});
    }
    return out;
}

}  // namespace eosim::scenarios
