#pragma once
// A scenario: the world, the job, the input, the faults, the oracles and the expectation. This is
// what a scenario file (JSON) turns into; `load_scenario` is the only way in from a file.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/vocabulary/job_spec.h"
#include "scenarios/random_faults.h"
#include "scenarios/upgrade_swarm.h"
#include "sim/external/database.h"
#include "sim/external/database_workload.h"
#include "sim/external/input_producer.h"
#include "sim/external/kafka.h"
#include "sim/fault_plan.h"
#include "sim/network.h"
#include "sim/storage.h"

namespace eosim::scenarios {

struct TopicSpec {
    std::string name;
    int32_t partitions = 1;
};

struct WorldSpec {
    int32_t task_managers = 2;
    int32_t slots_per_task_manager = 4;
    int32_t spare_task_managers = 0;
    // Flink's cluster.evenly-spread-out-slots (engine/runtime/slot_placement.h).
    bool evenly_spread_out_slots = false;
    sim::NetworkOptions network;
    sim::StorageOptions storage;
    sim::external::KafkaOptions kafka;
    std::vector<TopicSpec> topics;
};

// Records produced into a topic by an outside producer: `records` in all, keys uniform in
// [0, keys), values uniform in [value_min, value_max], arriving at `rate_per_second`. A key always
// goes to the same partition (key mod partitions), so per-key order is the partition's order.
struct InputSpec {
    std::string topic;
    int64_t records = 1000;
    int64_t keys = 16;
    int64_t rate_per_second = 1000;
    int64_t value_min = 1;
    int64_t value_max = 100;
    int32_t hot_key_percent =
        0;  // key skew: this share of the records carries key 0 (one partition, one keyed subtask)
    std::vector<int64_t> partition_weights =
        {};  // uneven splits: a weight per partition (sim/external/input_producer.h)
    // The records' event time (sim/external/input_producer.h); none: the append time, in order.
    std::optional<sim::external::EventTimeSpec> event_time = std::nullopt;
};

// The source database of a CDC job (node "mysql-source"): its binlog options, its tables and the
// application workload that writes them. An upsert sink writes a second database, "mysql-target".
struct DatabaseSpec {
    sim::external::DatabaseOptions options;
    std::vector<sim::external::DatabaseTableSpec> tables;
    sim::external::DatabaseWorkloadSpec workload;
};

struct Expectation {
    // When set: the job must end FAILED with a reason containing this text (a configuration users
    // get wrong, refused with Flink's error), and every oracle must pass on what it committed (the
    // output oracles judge its committed prefix) -- or, when !pass, `violation` alone must fire
    // there (a negative control of a failed job).
    std::string job_failure;
    bool pass = true;
    std::string violation =
        "exactly_once_output";  // when !pass: the oracle that must fire (its registered name)
    // When !pass: false for a negative control under random faults, where the violation shows on
    // some seeds only. A run then meets the expectation when no oracle fires or only `violation`
    // does; the loader adds "oracle:<violation>" to `sometimes`, so a suite still requires it.
    bool every_seed = true;
};

// JobManager high availability (engine/runtime/leader_election.h): `job_managers` JobManagers
// ("jobmanager", "jobmanager-1", ...) elect a leader through a ZooKeeper-like coordination service
// on node "coordination" (sim/external/coordination_service.h); completed checkpoints and the id
// counter live there. Absent: one JobManager; what its successor does is `without_ha`.
struct HighAvailabilitySpec {
    int32_t job_managers = 2;
    sim::Duration session_timeout = sim::Duration::seconds(2);
    sim::Duration request_timeout = sim::Duration::millis(500);
    bool tolerate_suspended_connections = false;  // engine::HighAvailability
    bool tell_leader_loss = true;  // engine::HighAvailability (a negative-control switch)
};

// A savepoint the user takes while the job runs ("savepoints"): at a virtual time, or when a
// protocol point is announced for the `occurrence`-th time (by any node).
struct SavepointSpec {
    std::optional<sim::Duration> at;
    std::string at_point;
    int32_t occurrence = 1;
    std::string name;  // "name": what a later deployment's "from": "savepoint <name>" names (at a
                       // time only)
};

// What a later deployment starts from ("from"), as a user names it to `flink run -s`:
// - "savepoint after v<k>": the savepoint that stopped deployment k (1: the first job); the
//   default is the previous deployment's, an older one is a rollback;
// - "savepoint <name>": a named savepoint of "savepoints" (taken in whichever deployment ran then);
// - "latest checkpoint": the previous deployment is cancelled at "at" (Flink's cancel, its
//   retained checkpoints kept) and this one starts from its newest retained checkpoint, in the
//   checkpoint's own format (RocksDB incremental files restored by key-group range, at any
//   parallelism).
// - "checkpoint <N>": as "latest checkpoint", but the retained checkpoint with id N (`flink run -s
//   .../chk-N`); one the cancelled deployment does not retain then fails the deployment with
//   Flink's error (retention depends on the seed's faults and timing, so the loader cannot know
//   it);
// - "nothing": the previous deployment is cancelled and this one starts without state (a fresh
//   start: sources from the beginning of their input, as Flink CDC's `initial` startup mode after
//   the binlog the state pointed into was purged).
// With the first two the previous deployment is stopped with a savepoint at "at" (kept, and
// nameable). Any of them may restore a snapshot older than what an exactly-once sink already
// committed: a rollback, reported in the run's `rollbacks` (oracles/rollback_detector.h).
struct RestoreSource {
    enum class Kind : uint8_t {
        stop_savepoint,
        named_savepoint,
        latest_checkpoint,
        retained_checkpoint,
        nothing
    };
    Kind kind = Kind::stop_savepoint;
    size_t deployment = 0;      // stop_savepoint named in `text`: the deployment (0: the first job)
                                // whose final savepoint
    std::string name;           // named_savepoint: the savepoint's name
    int64_t checkpoint_id = 0;  // retained_checkpoint: N
    std::string text;           // as the file wrote it ("" for the default)
    // The previous deployment is cancelled (its retained checkpoints kept), not stopped with a
    // savepoint.
    bool cancels_previous() const {
        return kind == Kind::latest_checkpoint || kind == Kind::retained_checkpoint ||
               kind == Kind::nothing;
    }
    // What starts restores a retained checkpoint in its backend's own format.
    bool from_checkpoint() const {
        return kind == Kind::latest_checkpoint || kind == Kind::retained_checkpoint;
    }
};

// A later deployment of the job ("deployments"): at `at` the running deployment is stopped with a
// savepoint (`drain`: Flink's `stop --drain`), and this one starts from that savepoint on a cluster
// of its own (nodes "jobmanager.vN", "tm0.vN", ...), with the changes below applied to the previous
// deployment's job. Without `job_vertices` the job's logic stays the same, so the reference model
// is the first job's; with them the deployment runs another program (operators matched to the
// savepoint's state by uid) and the model follows each program over the input it consumed.
struct DeploymentSpec {
    sim::Duration at;
    bool drain = false;
    RestoreSource from;  // default: the savepoint that stopped the previous deployment
    std::optional<int32_t> parallelism;  // every vertex
    std::map<std::string, int32_t>
        vertex_parallelism;  // vertex id -> parallelism (after `parallelism`)
    std::optional<int32_t> max_parallelism;
    std::optional<engine::StateBackendOptions> state_backend;  // with "incremental"
    std::map<std::string, std::string> uids;  // vertex id -> its uid in this deployment
    bool allow_non_restored_state = false;
    // The whole vertex list of this deployment's program ("job_vertices"), replacing the previous
    // one's.
    std::optional<std::vector<engine::VertexSpec>> job_vertices;
    // A verification job first ("verification"): this deployment's program, started from the same
    // savepoint on a cluster of its own (nodes "jobmanager.v<k>-verify", ...), its Kafka sinks
    // writing to throw-away topics (Scenario::verification_topic) under their own transactional
    // ids, stopped with a savepoint of its own after `verification_for`; then the live deployment
    // starts.
    bool verification = false;
    sim::Duration verification_for = sim::Duration::seconds(2);
};

struct Scenario {
    std::string name;  // the file name without extension, unless given
    std::string description;
    std::filesystem::path source;
    WorldSpec world;
    engine::JobSpec job;
    std::vector<InputSpec> inputs;
    std::optional<DatabaseSpec> database;
    std::optional<HighAvailabilitySpec> high_availability;
    // "without_ha": what a JobManager restarted without high_availability does
    // (engine::NoHaRecovery).
    engine::NoHaRecovery without_ha = engine::NoHaRecovery::application;
    std::vector<sim::FaultSpec> faults;         // faults.schedule
    std::optional<RandomFaults> random_faults;  // faults.random: drawn per seed, run after `faults`
    // faults.strict: a scheduled fault that does not fire with an effect fails the run
    // (scenarios/fault_accounting.h); drawn faults are accounted for but not held to it.
    bool strict_faults = false;
    // The outside systems the run builds (scenarios/outside_system_registry.h), each named by a
    // fault's "system" or nodes, or used by the sink; in the order the file first names them.
    std::vector<std::string> outside_systems;
    std::vector<std::string>
        oracles;  // registered oracle names (oracles/oracle_registry.h), in the file's order
    std::vector<SavepointSpec> savepoints;
    std::vector<DeploymentSpec> deployments;  // after the first (the job above)
    // "upgrade_swarm": the deployments are drawn per seed (draw_upgrades); `deployments` then holds
    // the loader's placeholders, one per window.
    std::optional<UpgradeSwarm> upgrade_swarm;
    sim::Duration liveness_bound = sim::Duration::seconds(120);  // after the last fault
    // The freshness oracle's bound (oracles/freshness_oracle.h); unset:
    // freshness_bound_or_default().
    std::optional<sim::Duration> freshness_bound;
    sim::Duration time_limit = sim::Duration::seconds(3600);  // virtual time before a run is cut
    Expectation expect;
    // Coverage combinations (scenarios/coverage.h) that must happen in at least one run of a suite.
    std::vector<std::string> sometimes;
    // Known-bad twins (scenarios/sensitivity.h) this scenario does not target, and why
    // ("sensitivity").
    std::vector<std::string> sensitivity_skip;
    std::string sensitivity_why;

    // Twice the checkpoint interval plus five commit retries: a transaction holds records for about
    // one interval before its checkpoint is triggered, and a commit refused while the broker is
    // briefly unreachable is retried every commit_retry_delay.
    sim::Duration freshness_bound_or_default() const {
        if (freshness_bound) return *freshness_bound;
        return sim::Duration{2 * job.checkpointing.interval.ns +
                             5 * job.runtime.commit_retry_delay.ns};
    }
    bool has_upsert_sink() const { return engine::has_sink_kind(job, "upsert"); }
    // The job of deployment `index` (0: `job`; later ones apply their changes in turn, and are
    // named "<job>-v<index+1>", so each keeps its checkpoints and savepoints apart).
    engine::JobSpec deployment_job(size_t index) const;
    // The node name suffix of deployment `index` ("" for the first, ".v2" for the second, ...).
    static std::string deployment_suffix(size_t index) {
        return index == 0 ? "" : ".v" + std::to_string(index + 1);
    }
    // Deployment `index`'s verification job: its nodes' suffix and its sinks' throw-away topics.
    static std::string verification_suffix(size_t index) {
        return deployment_suffix(index) + "-verify";
    }
    static std::string verification_topic(const std::string& topic, size_t index) {
        return topic + ".verification-v" + std::to_string(index + 1);
    }
    // The job deployment `index`'s verification job runs: its program, named
    // "<job>-v<k>-verification", its Kafka sinks writing to their verification_topic with
    // transactional ids "<prefix>-verification".
    engine::JobSpec verification_job(size_t index) const;

    bool has_cdc_source() const {
        return engine::has_operator(job, engine::OperatorKind::cdc_source);
    }
};

// A user error in a scenario file: names the file, the JSON path and what was expected.
class ScenarioError : public std::runtime_error {
public:
    ScenarioError(const std::string& file, const std::string& json_path,
                  const std::string& expected)
        : std::runtime_error(file + ": at " + json_path + ": " + expected),
          file_(file),
          json_path_(json_path) {}
    const std::string& file() const { return file_; }
    const std::string& json_path() const { return json_path_; }

private:
    std::string file_;
    std::string json_path_;
};

// Reads and validates a scenario file. Throws ScenarioError on any problem.
Scenario load_scenario(const std::filesystem::path& file);
// The same from the file's text already read; `file` names it in errors and gives the default name.
Scenario load_scenario_text(const std::string& text, const std::filesystem::path& file);

}  // namespace eosim::scenarios
