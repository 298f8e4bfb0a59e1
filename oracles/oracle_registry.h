#pragma once
// The oracle registry: every oracle kind registers here under the name a scenario lists in
// "oracles" (and names in {"violation": ...}), after the sink registry's pattern
// (engine/connectors/sink_registry.h). A registration says in one line what the oracle checks,
// which jobs it applies to (the loader refuses it elsewhere, at its JSON path, with `needs`), and
// how to make it from a run's context. Built-in kinds register in builtin_oracles.cpp, one line
// each; an oracle's registration function lives in its own file. Adding an oracle is its files and
// that one line (with the function's declaration beside it): no enum, no switch, no loader change;
// scenarios/schema.json lists its name for editors (tests/cli/test_scenario_schema.cpp holds the
// schema's oracle list against this registry).
//
// The run (scenarios/run/) makes every listed oracle through `make`, in the scenario's order, tells
// it what the engine tells the harness (an Oracle is a RunObserver), calls the hooks it subscribed
// to (OracleRunHooks) and asks for its verdict at the end.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/connectors/outside_systems.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/run_observer.h"
#include "oracles/oracle.h"
#include "sim/time.h"
#include "sim/world.h"

namespace eosim::oracles {

class ReferenceModel;
class RollbackDetector;

// What the loader knows of a scenario when it checks that an oracle applies to it.
struct OracleJobFacts {
    const engine::JobSpec& job;
    bool has_verification_deployment = false;  // a later deployment with "verification": true
    bool has_deployments = false;              // any later deployment
    bool expects_job_failure =
        false;  // the scenario expects the job to fail ({"job_failure": ...})
};

// A sink the output oracles judge (every sink of every deployment's program, the job's own first),
// with what a committed reader of its outside system sees.
struct JudgedSink {
    const engine::VertexSpec* vertex;
    SinkReader reader;
};

// A verification job that finished (a deployment with "verification"): its program, the savepoint
// offsets it started from, and its own final savepoint's (none: it read to the end).
struct VerificationRun {
    const engine::JobSpec* job;
    engine::SourceOffsets from;
    std::optional<engine::SourceOffsets> to;
};

// A job that failed for good (a scenario expecting `job_failure`): the two cuts its committed
// output is judged between, as source offsets of the segment running at the end (ReferenceModel::
// output_through). `upper`: the newest snapshot the failed deployment completed (or started from);
// `lower`: the one before it -- an exactly-once sink may not yet have committed the newest one's
// transactions when the job failed, but everything up to `lower` it must have. Equal when the
// deployment completed nothing after its start (its start is committed: a savepoint the previous
// deployment stopped with, or nothing read).
struct CommittedPrefix {
    engine::SourceOffsets lower;
    engine::SourceOffsets upper;
    std::string lower_name;  // "checkpoint 7", "savepoint 3", "the start"
    std::string upper_name;
    std::string failure;  // the job's failure

    // "the committed prefix (checkpoint 7 .. checkpoint 8) of the failed job"
    std::string describe() const;
};

// The moments of a run an oracle may subscribe to besides the engine's notifications. The run calls
// each list in subscription order (so in the scenario's oracle order).
class OracleRunHooks {
public:
    // The inputs have started, the job not yet: an oracle that reads periodically starts here.
    void on_start(std::function<void()> f) { start_.push_back(std::move(f)); }
    // A later deployment's (or verification job's) program starts.
    void on_program(std::function<void(const engine::JobSpec&)> f) {
        program_.push_back(std::move(f));
    }
    // The same moment, first: whether what starts restores the savepoint that stopped the
    // deployment before it (false: a rollback, a named savepoint, a cancelled one's checkpoint).
    void on_hand_over(std::function<void(bool from_previous_stop)> f) {
        hand_over_.push_back(std::move(f));
    }
    void on_verification(std::function<void(const VerificationRun&)> f) {
        verification_.push_back(std::move(f));
    }
    // The run was cut before the job finished or failed (time limit, event limit, a hang): why.
    void on_cut(std::function<void(const std::string&)> f) { cut_.push_back(std::move(f)); }
    // The job failed for good: what it committed, to judge the output on (before any verdict).
    void on_job_failed(std::function<void(const CommittedPrefix&)> f) {
        job_failed_.push_back(std::move(f));
    }

    void started() const;
    void program_started(const engine::JobSpec& program, bool from_previous_stop) const;
    void verification_ran(const VerificationRun& run) const;
    void cut(const std::string& why) const;
    void job_failed(const CommittedPrefix& prefix) const;

private:
    std::vector<std::function<void()>> start_;
    std::vector<std::function<void(const engine::JobSpec&)>> program_;
    std::vector<std::function<void(bool)>> hand_over_;
    std::vector<std::function<void(const VerificationRun&)>> verification_;
    std::vector<std::function<void(const std::string&)>> cut_;
    std::vector<std::function<void(const CommittedPrefix&)>> job_failed_;
};

// Everything an oracle may be made from. Lives as long as the run.
struct OracleRunContext {
    sim::World& world;
    const engine::JobSpec& job;  // the first deployment's
    const engine::OutsideSystems& systems;
    ReferenceModel& model;
    const std::vector<JudgedSink>& judged_sinks;  // the job's own first sink first
    std::string input_topic;                      // the first input's topic ("" without one)
    sim::Duration freshness_bound;
    sim::Duration liveness_bound;
    // Whether the effect of a fault that fired overlaps [from, to]; and since when every planned
    // fault has fired and its effect is over (Time::zero() without faults).
    std::function<bool(sim::Time from, sim::Time to)> fault_effect_during;
    std::function<sim::Time()> faults_quiet_since;
    // What a committed reader sees of a sink of a program that ran (a verification job's throw-away
    // topics).
    std::function<RecordMultiset(const engine::VertexSpec& sink)> committed_content;
    OracleRunHooks& hooks;
    // The run's rollbacks (restores older than what an exactly-once sink committed), read at the
    // end.
    const RollbackDetector* rollbacks = nullptr;

    const engine::VertexSpec& sink() const { return *judged_sinks.front().vertex; }
};

struct OracleRegistration {
    std::string name;     // what a scenario lists in "oracles"
    std::string summary;  // one line: what it checks
    // "" when the oracle applies to the job; otherwise what it needs, for the loader's error
    // ("oracle \"mirror\" needs <needs>").
    std::function<std::string(const OracleJobFacts&)> needs;
    std::function<std::unique_ptr<Oracle>(OracleRunContext&)> make;
    // A run without progress (no checkpoint completed, no transaction committed) for the liveness
    // bound after every fault's effect is over ends early, as this oracle's failure, instead of
    // simulating on to the time_limit.
    bool ends_hung_runs = false;
};

class OracleRegistry {
public:
    // The process-wide registry, with the built-in kinds registered on first use.
    static OracleRegistry& global();

    // Throws std::logic_error when the name is taken or the registration is incomplete.
    void add(OracleRegistration registration);
    const OracleRegistration* find(const std::string& name) const;
    // In registration order (the built-ins' order in builtin_oracles.cpp).
    std::vector<std::string> names() const;

private:
    std::vector<OracleRegistration> kinds_;
};

// Registers the built-in oracle kinds (builtin_oracles.cpp); OracleRegistry::global() calls it
// once.
void register_builtin_oracles(OracleRegistry& registry);

}  // namespace eosim::oracles
