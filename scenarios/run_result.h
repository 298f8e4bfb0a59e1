#pragma once
// What one run of a scenario yields (scenarios/scenario_run.h): every oracle's verdict, the
// figures, the timeline, the faults and the coverage, and the options it ran with.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/vocabulary/run_observer.h"
#include "oracles/rollback_detector.h"
#include "scenarios/anomalies.h"
#include "scenarios/checkpoint_stats.h"
#include "scenarios/fault_accounting.h"
#include "scenarios/job_history.h"
#include "scenarios/placement_history.h"
#include "scenarios/random_faults.h"
#include "scenarios/timeline.h"
#include "sim/fault_injector.h"

namespace eosim::scenarios {

struct OracleVerdict {
    std::string oracle;  // its registered name (oracles/oracle_registry.h)
    bool passed = true;
    std::string message;  // the first offending record/key, counts, virtual time
};

struct RunFigures {
    uint64_t events = 0;
    double virtual_seconds = 0;
    double wall_seconds = 0;
    int64_t checkpoints_completed = 0;
    int64_t checkpoints_aborted = 0;
    std::map<std::string, int64_t>
        checkpoints_aborted_by_reason;  // Flink's CheckpointFailureReason name -> count
    // Checkpoint storage: files (and their bytes) the coordinator discarded -- aborted checkpoints,
    // late acknowledgements, completed checkpoints past `retained` -- and those still in storage at
    // the end that no retained checkpoint refers to (and whose deletion is not under way).
    int64_t checkpoint_files_discarded = 0;
    int64_t checkpoint_bytes_discarded = 0;
    int64_t checkpoint_files_unretained = 0;
    int64_t checkpoint_bytes_unretained = 0;
    int64_t checkpoint_files_retained =
        0;  // of checkpoints whose metadata is in storage at the end
    int64_t checkpoint_bytes_retained = 0;
    // Incremental state, over the completed checkpoints: shared-file bytes they uploaded, and the
    // bytes of the shared files they refer to (what a full snapshot would have uploaded, roughly).
    int64_t shared_bytes_uploaded = 0;
    int64_t shared_bytes_referenced = 0;
    int64_t restarts =
        0;  // as Flink counts them: one TaskManager loss is one restart (EngineStats::restarts)
    int64_t failovers = 0;  // every failover, retries of a restart still deploying included
    // JobManager failovers (scenarios/job_history.h): the JobManager that ran the job crashed or
    // lost its leadership and a new one recovered the job; apart from `restarts` (task failovers).
    int64_t jobmanager_failovers = 0;
    int64_t savepoints_completed =
        0;  // over every deployment, the final ones of stop-with-savepoint too
    // Savepoints in storage at the end (their _metadata), their files, and files their metadata
    // names that are gone (must be 0: a savepoint is the user's, nothing may delete it).
    int64_t savepoints_stored = 0;
    int64_t savepoint_files = 0;
    int64_t savepoint_files_missing = 0;
    int64_t transactions_committed = 0;
    int64_t transactions_aborted = 0;
    int64_t fenced_calls = 0;  // Kafka calls rejected because a newer producer fenced the caller
    // Kafka commit faults and their cost: EndTxn calls answered with an injected retriable error,
    // applied but answered with a timeout; transactions a sink gave up committing (likely data
    // loss, the "txn.lost" timeline events: Flink's committer logs these as an error).
    int64_t commit_errors = 0;
    int64_t commit_outcomes_unknown = 0;
    int64_t transactions_lost = 0;
    int64_t fenced_writes =
        0;  // of fenced_calls: writes (a zombie writing while its successor runs)
    int64_t faults_injected = 0;
    // Every planned fault accounted for (scenarios/fault_accounting.h): planned = fired (with an
    // effect) + without effect + not fired.
    int64_t faults_planned = 0;
    int64_t faults_fired = 0;
    int64_t faults_without_effect = 0;
    int64_t faults_not_fired = 0;
    // JobManager high availability (zero without): leaderships granted, checkpoint pointers added
    // to the store, store writes the service refused (a deposed leader's), JobManager messages the
    // TaskManagers refused (an older fencing token), sessions the service expired.
    int64_t leaderships = 0;
    int64_t checkpoints_stored = 0;
    int64_t store_refusals = 0;
    int64_t fenced_messages = 0;
    int64_t deployments_refused =
        0;  // deployments a JobManager did not send: its fenced check failed
    int64_t sessions_expired = 0;
    int64_t records_in = 0;  // input records; for a CDC source, the change events it read
    int64_t records_out = 0;
    int64_t records_read = 0;       // what the sources read, replays after restores included
    int64_t source_table_rows = 0;  // CDC: the source table's rows at the end (the model's input)
    // The outside systems of scenarios/outside_system_registry.h (not Kafka, not the append store),
    // added up:
    int64_t outside_calls = 0;
    int64_t outside_calls_failed = 0;
    int64_t absorbed_duplicates =
        0;  // writes that changed nothing: replays an idempotent write made harmless
    // Checkpoint statistics over the completed checkpoints (scenarios/checkpoint_stats.h).
    int64_t checkpoints_unaligned = 0;  // completed ones some task took unaligned
    double checkpoint_duration_median_ms = 0;
    double checkpoint_duration_p99_ms = 0;
    double checkpoint_duration_max_ms = 0;
    double alignment_median_ms = 0;  // per checkpoint: its slowest task's alignment
    double alignment_max_ms = 0;
    double checkpoint_bytes_median = 0;  // operator + channel state persisted per checkpoint
    double channel_state_bytes_median = 0;
    // Over the failed (expired, declined, subsumed, failed) checkpoints too: how many, their
    // slowest alignment and start delay; the start delay over the completed ones; the most channel
    // state any checkpoint persisted.
    int64_t checkpoints_failed = 0;
    double failed_alignment_max_ms = 0;
    double failed_start_delay_max_ms = 0;
    double start_delay_max_ms = 0;
    int64_t persisted_bytes_max = 0;
};

// Back pressure of a vertex over the run (scenarios/run/back_pressure.h): the share of time its
// running subtasks were busy, backpressured or idle (they add up to 1), over `samples` samples.
struct VertexBackPressure {
    std::string vertex;
    double busy = 0;
    double backpressured = 0;
    double idle = 0;
    int64_t samples = 0;
    // Flink's level: OK (backpressured at most 10% of the time), LOW (at most 50%), HIGH.
    const char* level() const {
        return backpressured <= 0.10 ? "OK" : backpressured <= 0.50 ? "LOW" : "HIGH";
    }
};

struct RunResult {
    std::string scenario;
    uint64_t seed = 0;
    uint64_t trace_hash = 0;
    // What the outside systems hold at the end (RunOutsideSystems::state_hash): Kafka's topics,
    // the stores, the databases. Checked beside the trace hash by --check-determinism and the
    // golden file.
    uint64_t state_hash = 0;
    bool job_finished = false;
    // Why the run stopped before the job finished or failed ("" when it did either): the
    // time_limit, the event limit, or a hung run cut early once the liveness bound had passed with
    // faults quiet and no progress. Said first in expectation_message.
    std::string cut;
    std::vector<OracleVerdict> verdicts;
    RunFigures figures;
    bool expectation_met = false;
    std::string expectation_message;  // why the expectation was or was not met
    std::vector<TimelineEvent> timeline;
    std::vector<sim::FiredFault> faults;  // every fault that fired, in order
    std::vector<FaultAccount>
        fault_accounts;  // every planned fault, in plan order: fired, without effect, not fired
    // What faults.random drew for this seed (every drawn parameter); its faults follow the
    // scenario's own in the plan, so plan_index counts scenario.faults first. Empty without it.
    std::optional<FaultDraw> fault_draw;
    // What upgrade_swarm drew for this seed: one line per later deployment. Empty without it.
    std::vector<std::string> deployments_drawn;
    std::map<std::string, int64_t> coverage;    // coverage combinations hit (scenarios/coverage.h)
    std::vector<CheckpointStats> checkpoints;   // per checkpoint, in trigger order
    CheckpointStatsSummary checkpoint_summary;  // over the completed ones and over the failed ones
    // The job's history (scenarios/job_history.h): status changes, the exceptions of its failovers
    // (with the fault that probably caused each), its deployments.
    std::vector<JobStatusChange> status_history;
    std::vector<JobException> exceptions;
    std::vector<DeploymentSpan> deployments;
    std::vector<VertexBackPressure> back_pressure;  // per vertex, in the order first seen running
    // Restores older than what an exactly-once sink already committed
    // (oracles/rollback_detector.h): a warning in every report; a failure only where the scenario
    // lists `no_rollbacks`.
    std::vector<oracles::Rollback> rollbacks;
    // Lost and duplicated records grouped by sink, transaction and checkpoint, and the Kafka
    // transactions' timeout margins (scenarios/anomalies.h).
    AnomalyTable anomalies;
    // Where every attempt ran (scenarios/placement_history.h), in deployment order.
    std::vector<AttemptPlacement> placements;
};

struct RunOptions {
    uint64_t seed = 1;
    std::ostream* trace_log = nullptr;  // JSON lines of every event, when set
    uint64_t max_events = 0;  // stop after this many events (0: no limit): a guard against a hang
    engine::RunObserver* observer =
        nullptr;  // also told what the engine tells the oracles (tests); never changes the run
    bool strict_faults = false;  // as the scenario's faults.strict (`--strict-faults`)
};

}  // namespace eosim::scenarios
