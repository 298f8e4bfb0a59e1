#pragma once
// One run of a suite as it is recorded, reported and merged: what `eosim run --json` prints, what a
// suite appends (one JSON line per run) to its results file, and what the JUnit, HTML and Chrome
// trace reports are drawn from. A record can be made from a finished run (`make_run_record`) or
// read back from JSON (`run_record_from_json`); `to_json` and `run_record_from_json` round-trip.
//
// A record also describes a run that never produced a result (the worker process crashed, hung,
// ran out of memory or printed garbage): status `error`, with the reason and the tail of its
// standard error, and no verdicts.
//
// Not here: running anything, deciding a verdict (scenarios/ does that), or files (cli/ does).
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/timeline.h"

namespace eosim::reports {

enum class RunStatus : uint8_t {
    passed,  // the run completed and met its expectation
    failed,  // the run completed and did not meet its expectation (or was cut by a limit)
    error,   // the run did not complete: crashed, aborted, timed out, out of memory, bad output
};
const char* to_string(RunStatus status);
std::optional<RunStatus> run_status_from_string(const std::string& text);

// A fault that fired, with the end of its effect (restart, heal, end of its period) so that reports
// can draw it as a band. `end_ns` == `at_ns` for an instant fault or one that was skipped; -1 when
// it lasts to the end of the run (a crash without restart).
struct FaultRecord {
    int64_t at_ns = 0;
    int64_t end_ns = 0;
    std::string kind;                // "crash", "partition", ...
    size_t plan_index = 0;           // position in the scenario's fault schedule
    std::vector<std::string> nodes;  // targets (both sides of a partition)
    std::string action;              // what it did, for people
    bool skipped = false;
};

struct RunRecord {
    std::string scenario;  // the scenario's name
    std::string file;      // the scenario file as the run was given it
    uint64_t seed = 0;
    RunStatus status = RunStatus::error;
    std::string reason;  // one line: why it failed or errored ("" when it passed)
    scenarios::Expectation expect;
    bool expectation_met = false;
    std::string expectation_message;
    std::string trace_hash;  // 16 hex digits; "" when the run did not complete
    std::string state_hash;  // the same for what the outside systems hold at the end
    bool job_finished = false;
    std::vector<scenarios::OracleVerdict> verdicts;
    scenarios::RunFigures figures;
    std::vector<FaultRecord> faults;
    // Every planned fault accounted for (scenarios/fault_accounting.h); the counts are in `figures`
    // (faults_planned, ...), which stay whole when bound_record cuts this list.
    std::vector<scenarios::FaultAccount> fault_accounts;
    nlohmann::json fault_schedule =
        nlohmann::json::array();  // the run's fault plan, in scenario-file form
    std::string
        fault_draw;  // faults.random: what was drawn for this seed ("" without random faults)
    std::map<std::string, int64_t> coverage;  // coverage combinations hit (scenarios/coverage.h)
    bool has_timeline = false;                // suites keep timelines of some runs only
    std::vector<scenarios::TimelineEvent> timeline;
    std::vector<scenarios::CheckpointStats>
        checkpoints;  // with the timeline, per subtask figures included
    scenarios::CheckpointStatsSummary
        checkpoint_summary;  // over the completed and over the failed ones
    std::vector<scenarios::JobStatusChange> status_history;  // with the timeline
    std::vector<scenarios::JobException> exceptions;         // with the timeline
    std::vector<scenarios::DeploymentSpan> deployments;
    std::vector<scenarios::VertexBackPressure> back_pressure;  // per vertex
    std::vector<oracles::Rollback>
        rollbacks;  // restores older than what an exactly-once sink committed (a warning)
    scenarios::AnomalyTable
        anomalies;  // its groups and margins with the timeline; the counts always
    std::vector<scenarios::AttemptPlacement>
        placements;  // with the timeline: per attempt deployed (reports/placement_report.h)
    int64_t timeline_events_cut =
        0;  // events bound_record left out of the timeline (thin_timeline)
    int64_t timeline_essential_cut =
        0;                    // of them, essential ones: what they would close is unknown
    int64_t faults_cut = 0;   // fired faults bound_record dropped from the end of `faults`
    std::string reproduce;    // the command that reproduces the run
    double wall_seconds = 0;  // the worker process from start to exit (suites), else the run's own
    std::string stderr_tail;  // errors only: the end of the worker's standard error
};

// Whether the oracle a negative control expects fired in this run.
bool expected_violation_found(const RunRecord& r);
// The run's outcome in a few words, for a report's header: "PASSED", "FAILED", "ERROR"; for a
// scenario that expects a violation or a failure and met it, what it found instead of PASSED:
// "VIOLATION FOUND, AS EXPECTED", "JOB FAILED, AS EXPECTED", or "NO VIOLATION ON THIS SEED
// (ALLOWED)".
std::string run_outcome(const RunRecord& r);

// What a suite keeps of a run, whatever the run did (a hung run may print megabytes): text fields
// (verdict and expectation messages, the fault draw, the reason) cut at kRecordTextMax bytes, the
// fired faults and fault accounts at kRecordFaultsMax, a kept timeline thinned to about
// kTimelineEventsMax events (thin_timeline; the whole of it comes back by replaying the seed:
// `reproduce`). A record without a timeline then stays under kRecordBytesMax of JSON for any
// scenario within the loader's limits (scenarios/run_limits.h).
inline constexpr size_t kRecordTextMax = 1024;
inline constexpr size_t kRecordFaultsMax = 48;
inline constexpr size_t kTimelineEventsMax = 1000;
inline constexpr size_t kTimelineEssentialMax = 20'000;
inline constexpr size_t kRecordBytesMax = 16 * 1024;
void bound_record(RunRecord& record);

// A timeline event a thinned timeline never leaves out: faults, the job's events (failover,
// restore, finished, failed), checkpoints' trigger and end, transactions' begin and end.
bool essential_timeline_event(const scenarios::TimelineEvent& event);
// Thins `timeline` to about `max_events`: watermark spans first (merged, so each vertex's line
// stays whole), then other non-essential events (pre-commit marks, connector events) from the end;
// essential events are kept, up to `essential_max` (past that, the latest are left out: a run that
// long is replayed for its whole timeline). Returns how many events it left out.
struct ThinnedTimeline {
    int64_t left_out = 0;            // events left out
    int64_t essential_left_out = 0;  // of them, essential ones (past `essential_max`)
};
ThinnedTimeline thin_timeline(std::vector<scenarios::TimelineEvent>& timeline, size_t max_events,
                              size_t essential_max);

// The record of a run that completed (passed or failed, as `result.expectation_met` says).
RunRecord make_run_record(const scenarios::Scenario& scenario, const scenarios::RunResult& result,
                          const std::string& reproduce);

// The record of a run that did not complete.
RunRecord make_error_record(std::string scenario, std::string file, uint64_t seed,
                            scenarios::Expectation expect, std::string reproduce,
                            std::string reason, std::string stderr_tail);

// When the effect of a fired fault ends (see FaultRecord::end_ns).
int64_t fault_end_ns(const sim::FaultSpec& spec, const sim::FiredFault& fired);

nlohmann::json to_json(const RunRecord& record);

// A malformed record (wrong types, missing keys): what is wrong, with the JSON path.
class RecordError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
RunRecord run_record_from_json(const nlohmann::json& j);

// The expectation in the scenario-file form: "pass" or {"violation": "<oracle>"}.
nlohmann::json expectation_file_form(const scenarios::Expectation& expect);
// Reads that form (or the {"pass": bool, "violation": name} form of to_json); nullopt if neither.
std::optional<scenarios::Expectation> expectation_from_json(const nlohmann::json& j);

}  // namespace eosim::reports
