#pragma once
// Coverage of *situations*, not lines: which (fault kind x protocol phase) combinations a run hit,
// e.g. "crash@sink-precommitted" (a crash while a sink held a pre-committed transaction). A suite
// adds the runs up, prints the table, and fails when a combination a scenario expects "sometimes"
// never happened -- so a suite cannot pass by never reaching the danger (FoundationDB's code
// probes, applied to protocol windows).
//
// Combination names (`check_combination_name` validates them):
// - "<kind>@<phase>": a fault of that kind fired (and did something) while the phase was open.
//   Phases, derived from the protocol points the engine announces (engine/protocol_points.h):
//   - sink-precommitted: on a target node, a sink pre-committed checkpoint N (sink.precommitted N)
//     and has not committed it yet (sink.committed N); closed by a crash of that node or a
//     failover.
//   - notification-in-flight: the JobManager completed checkpoint N (checkpoint.completed N) and a
//     TaskManager of the job has not received the notification yet (checkpoint.notified >= N, or
//     sink.committed >= N); "of the job" = announced task.restoring in this attempt. A target that
//     is such a TaskManager, or the JobManager, or a fault without target nodes, hits it.
//   - restore: between failover.started and the next job.running (any fault).
//   - alignment: on a target node, a task started aligning checkpoint N (barrier.alignment_started
//     N) and the node has not snapshotted N since (task.snapshotted N). Approximate: snapshots are
//     counted per node, not per task, so another task's snapshot on the node may close it early.
//   - checkpointing: between checkpoint.triggered N (or stop_with_savepoint.triggered N) and
//     checkpoint.completed / savepoint.completed / checkpoint.aborted N (savepoints count).
//   - stop-with-savepoint: between stop_with_savepoint.triggered and the job.finished or
//     failover.started that ends it (any fault).
//   - zombie-resumed (pause only): a paused node resumed after a failover.started that happened
//     during its pause (counted at the end of the run, if the resume came before the end).
//   - end-of-job: from the first task.end_of_data of an attempt (a task read all its input) until
//     job.finished: the final checkpoint and the final commits, which nothing repairs later. Closed
//     by a failover (the restored tasks read to the end again).
//   - zombie-writes (partition only): a failover started while the partition was in effect, and
//     the broker fenced a transactional write of a superseded producer in the run: the cut-off
//     TaskManager kept writing while its successor ran (told by `fenced_writes` before `finish`).
//     Approximate: the fenced writes are counted per run, not per partition.
//   - window-fired: on a target node, a window operator fired a window (window.fired) and no
//     checkpoint has completed since (checkpoint.completed): the firing's effects (result emitted,
//     timer deleted, window maybe purged) are in no checkpoint yet, so a restore fires it again
//     from the last one. Closed by a crash of that node or a failover.
//   - any: every fault that fired and did something, whatever the phase.
//   A fault without target nodes (storage, broker, transactions, message loss) hits a per-node
//   phase when it is open on any node.
// - "<kind>@point:<point>": a fault placed at that protocol point fired.
// - "oracle:<oracle>": that oracle fired (added by the runner), so that a negative control can
//   expect its violation "sometimes" across seeds.
//
// Not covered: faults that fired but were skipped (e.g. a crash of a node already down).
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/fault_injector.h"
#include "sim/fault_plan.h"
#include "sim/time.h"

namespace eosim::scenarios {

namespace phases {
inline constexpr std::string_view kSinkPrecommitted = "sink-precommitted";
inline constexpr std::string_view kNotificationInFlight = "notification-in-flight";
inline constexpr std::string_view kRestore = "restore";
inline constexpr std::string_view kAlignment = "alignment";
inline constexpr std::string_view kCheckpointing = "checkpointing";
inline constexpr std::string_view kZombieResumed = "zombie-resumed";
inline constexpr std::string_view kZombieWrites = "zombie-writes";
inline constexpr std::string_view kEndOfJob = "end-of-job";
inline constexpr std::string_view kStopWithSavepoint = "stop-with-savepoint";
inline constexpr std::string_view kWindowFired = "window-fired";
inline constexpr std::string_view kAny = "any";
inline constexpr std::string_view kAll[] = {
    kSinkPrecommitted,  kNotificationInFlight, kRestore,      kAlignment,
    kCheckpointing,     kZombieResumed,        kZombieWrites, kEndOfJob,
    kStopWithSavepoint, kWindowFired,          kAny};
}  // namespace phases

// "" when `name` is a valid combination name; otherwise what was expected (for a loader message).
std::string check_combination_name(const std::string& name);

// Follows one run. Nodes by name, so that a test can feed it a hand-made sequence.
class CoverageTracker {
public:
    // A protocol point, in the order the world announces them.
    void point(sim::Time at, std::string_view point, const std::string& node, int64_t detail);
    // A fault that fired; `spec` is its plan entry (for the trigger point and the pause's
    // duration).
    void fault(const sim::FiredFault& fired, const sim::FaultSpec& spec);
    // How many transactional writes the broker fenced in the run (before `finish`).
    void fenced_writes(uint64_t count) { fenced_writes_ = count; }
    // The run ended at `end`: settles the pauses (zombie-resumed) and partitions (zombie-writes).
    void finish(sim::Time end);
    // A fired oracle: "oracle:<name>".
    void oracle_fired(const std::string& oracle);

    const std::map<std::string, int64_t>& hits() const { return hits_; }

private:
    struct Pause {
        sim::FaultKind kind;
        std::string node;
        sim::Time resume_at;
        bool failover_during = false;
    };

    void hit(sim::FaultKind kind, std::string_view phase);
    bool holds_precommitted(const std::string& node) const;
    bool aligning(const std::string& node) const;
    void forget_node(const std::string& node);

    std::map<std::string, std::map<int64_t, int64_t>>
        precommitted_;  // node -> checkpoint -> transactions
    std::map<std::string, std::map<int64_t, int64_t>>
        aligning_;  // node -> checkpoint -> tasks aligning
    std::set<std::string>
        fired_since_checkpoint_;  // nodes that fired a window since the last completed checkpoint
    std::set<std::string> job_nodes_;  // TaskManagers with tasks in the current attempt
    std::set<std::string>
        awaiting_notification_;  // TaskManagers that have not heard of the last completion
    int64_t last_completed_ = 0;
    std::set<int64_t> checkpoints_in_progress_;
    bool restoring_ = false;
    bool ending_ = false;    // end-of-job is open
    bool stopping_ = false;  // a stop-with-savepoint is under way
    std::set<int64_t>
        stop_savepoints_;  // ids of stop-with-savepoint savepoints (notified on completion)
    std::vector<Pause> pauses_;
    std::vector<Pause> partitions_;  // the same bookkeeping for partitions (zombie-writes)
    uint64_t fenced_writes_ = 0;
    std::map<std::string, int64_t> hits_;
};

// Coverage added up over many runs.
struct CombinationCount {
    int64_t hits = 0;  // faults (or oracle firings) in all runs together
    int64_t runs = 0;  // runs in which it happened at least once
};

class CoverageSummary {
public:
    void add_run(const std::map<std::string, int64_t>& hits);
    int64_t runs() const { return runs_; }
    const std::map<std::string, CombinationCount>& combinations() const { return combinations_; }

private:
    int64_t runs_ = 0;
    std::map<std::string, CombinationCount> combinations_;
};

// The "sometimes" expectations that never happened in any run of the summary, in the given order.
std::vector<std::string> check_sometimes(const CoverageSummary& summary,
                                         const std::vector<std::string>& sometimes);

// The table of hit counts, one combination a line (sorted by name), marking the expected ones and
// listing those never hit, e.g.
//   coverage over 200 runs
//     combination                           hits   runs
//     crash@sink-precommitted                 57     41  (sometimes: ok)
//     crash@restore                            0      0  (sometimes: NEVER HIT)
std::string coverage_table(const CoverageSummary& summary,
                           const std::vector<std::string>& sometimes = {});

}  // namespace eosim::scenarios
