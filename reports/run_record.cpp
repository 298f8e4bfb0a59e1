#include "reports/run_record.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "oracles/oracle_registry.h"
#include "reports/anomaly_report.h"
#include "reports/history_json.h"
#include "reports/json_fields.h"
#include "reports/placement_report.h"
#include "reports/rollbacks_report.h"
#include "reports/run_report.h"
#include "reports/xml_text.h"
#include "scenarios/fault_json.h"
#include "scenarios/fault_types.h"
#include "scenarios/random_faults.h"

namespace eosim::reports {

namespace {

using nlohmann::json;

scenarios::RunFigures figures_from_json(const json& j, const std::string& path) {
    scenarios::RunFigures f;
    f.events = optional_field<uint64_t>(j, "events", path, 0);
    f.virtual_seconds = optional_field<double>(j, "virtual_seconds", path, 0);
    f.wall_seconds = optional_field<double>(j, "wall_seconds", path, 0);
    f.checkpoints_completed = optional_field<int64_t>(j, "checkpoints_completed", path, 0);
    f.checkpoints_aborted = optional_field<int64_t>(j, "checkpoints_aborted", path, 0);
    f.checkpoints_aborted_by_reason = optional_field<std::map<std::string, int64_t>>(
        j, "checkpoints_aborted_by_reason", path, {});
    f.checkpoint_files_discarded =
        optional_field<int64_t>(j, "checkpoint_files_discarded", path, 0);
    f.checkpoint_bytes_discarded =
        optional_field<int64_t>(j, "checkpoint_bytes_discarded", path, 0);
    f.checkpoint_files_unretained =
        optional_field<int64_t>(j, "checkpoint_files_unretained", path, 0);
    f.checkpoint_bytes_unretained =
        optional_field<int64_t>(j, "checkpoint_bytes_unretained", path, 0);
    f.checkpoint_files_retained = optional_field<int64_t>(j, "checkpoint_files_retained", path, 0);
    f.checkpoint_bytes_retained = optional_field<int64_t>(j, "checkpoint_bytes_retained", path, 0);
    f.shared_bytes_uploaded = optional_field<int64_t>(j, "shared_bytes_uploaded", path, 0);
    f.shared_bytes_referenced = optional_field<int64_t>(j, "shared_bytes_referenced", path, 0);
    f.restarts = optional_field<int64_t>(j, "restarts", path, 0);
    f.failovers = optional_field<int64_t>(j, "failovers", path, f.restarts);
    f.jobmanager_failovers = optional_field<int64_t>(j, "jobmanager_failovers", path, 0);
    f.savepoints_completed = optional_field<int64_t>(j, "savepoints_completed", path, 0);
    f.savepoints_stored = optional_field<int64_t>(j, "savepoints_stored", path, 0);
    f.savepoint_files = optional_field<int64_t>(j, "savepoint_files", path, 0);
    f.savepoint_files_missing = optional_field<int64_t>(j, "savepoint_files_missing", path, 0);
    f.transactions_committed = optional_field<int64_t>(j, "transactions_committed", path, 0);
    f.transactions_aborted = optional_field<int64_t>(j, "transactions_aborted", path, 0);
    f.fenced_calls = optional_field<int64_t>(j, "fenced_calls", path, 0);
    f.commit_errors = optional_field<int64_t>(j, "commit_errors", path, 0);
    f.commit_outcomes_unknown = optional_field<int64_t>(j, "commit_outcomes_unknown", path, 0);
    f.transactions_lost = optional_field<int64_t>(j, "transactions_lost", path, 0);
    f.fenced_writes = optional_field<int64_t>(j, "fenced_writes", path, 0);
    f.faults_injected = optional_field<int64_t>(j, "faults_injected", path, 0);
    f.faults_planned = optional_field<int64_t>(j, "faults_planned", path, 0);
    f.faults_fired = optional_field<int64_t>(j, "faults_fired", path, 0);
    f.faults_without_effect = optional_field<int64_t>(j, "faults_without_effect", path, 0);
    f.faults_not_fired = optional_field<int64_t>(j, "faults_not_fired", path, 0);
    f.leaderships = optional_field<int64_t>(j, "leaderships", path, 0);
    f.checkpoints_stored = optional_field<int64_t>(j, "checkpoints_stored", path, 0);
    f.store_refusals = optional_field<int64_t>(j, "store_refusals", path, 0);
    f.fenced_messages = optional_field<int64_t>(j, "fenced_messages", path, 0);
    f.deployments_refused = optional_field<int64_t>(j, "deployments_refused", path, 0);
    f.sessions_expired = optional_field<int64_t>(j, "sessions_expired", path, 0);
    f.records_in = optional_field<int64_t>(j, "records_in", path, 0);
    f.records_out = optional_field<int64_t>(j, "records_out", path, 0);
    f.records_read = optional_field<int64_t>(j, "records_read", path, 0);
    f.source_table_rows = optional_field<int64_t>(j, "source_table_rows", path, 0);
    f.outside_calls = optional_field<int64_t>(j, "outside_calls", path, 0);
    f.outside_calls_failed = optional_field<int64_t>(j, "outside_calls_failed", path, 0);
    f.absorbed_duplicates = optional_field<int64_t>(j, "absorbed_duplicates", path, 0);
    f.checkpoints_unaligned = optional_field<int64_t>(j, "checkpoints_unaligned", path, 0);
    f.checkpoint_duration_median_ms =
        optional_field<double>(j, "checkpoint_duration_median_ms", path, 0);
    f.checkpoint_duration_p99_ms = optional_field<double>(j, "checkpoint_duration_p99_ms", path, 0);
    f.checkpoint_duration_max_ms = optional_field<double>(j, "checkpoint_duration_max_ms", path, 0);
    f.alignment_median_ms = optional_field<double>(j, "alignment_median_ms", path, 0);
    f.alignment_max_ms = optional_field<double>(j, "alignment_max_ms", path, 0);
    f.checkpoint_bytes_median = optional_field<double>(j, "checkpoint_bytes_median", path, 0);
    f.channel_state_bytes_median = optional_field<double>(j, "channel_state_bytes_median", path, 0);
    f.checkpoints_failed = optional_field<int64_t>(j, "checkpoints_failed", path, 0);
    f.failed_alignment_max_ms = optional_field<double>(j, "failed_alignment_max_ms", path, 0);
    f.failed_start_delay_max_ms = optional_field<double>(j, "failed_start_delay_max_ms", path, 0);
    f.start_delay_max_ms = optional_field<double>(j, "start_delay_max_ms", path, 0);
    f.persisted_bytes_max = optional_field<int64_t>(j, "persisted_bytes_max", path, 0);
    return f;
}

}  // namespace

bool expected_violation_found(const RunRecord& r) {
    if (r.expect.pass) return false;  // with job_failure too: a negative control of a failed job
    return std::any_of(r.verdicts.begin(), r.verdicts.end(),
                       [&](const scenarios::OracleVerdict& v) {
                           return v.oracle == r.expect.violation && !v.passed;
                       });
}

std::string run_outcome(const RunRecord& r) {
    if (r.status != RunStatus::passed) return r.status == RunStatus::failed ? "FAILED" : "ERROR";
    if (!r.expect.job_failure.empty()) {
        return r.expect.pass || !expected_violation_found(r)
                   ? "JOB FAILED, AS EXPECTED"
                   : "JOB FAILED AND VIOLATION FOUND, AS EXPECTED";
    }
    if (r.expect.pass) return "PASSED";
    return expected_violation_found(r) ? "VIOLATION FOUND, AS EXPECTED"
                                       : "NO VIOLATION ON THIS SEED (ALLOWED)";
}

const char* to_string(RunStatus status) {
    switch (status) {
        case RunStatus::passed: return "passed";
        case RunStatus::failed: return "failed";
        case RunStatus::error: return "error";
    }
    return "error";
}

std::optional<RunStatus> run_status_from_string(const std::string& text) {
    for (RunStatus s : {RunStatus::passed, RunStatus::failed, RunStatus::error}) {
        if (text == to_string(s)) return s;
    }
    return std::nullopt;
}

int64_t fault_end_ns(const sim::FaultSpec& spec, const sim::FiredFault& fired) {
    const int64_t at = fired.at.ns;
    if (fired.skipped) return at;
    const std::optional<sim::Duration> lasts = scenarios::fault_type(spec.kind).effect_length(spec);
    return lasts ? at + lasts->ns : -1;  // -1: it never ends (a crash without restart)
}

json expectation_file_form(const scenarios::Expectation& expect) {
    if (!expect.job_failure.empty() && expect.pass)
        return json{{"job_failure", expect.job_failure}};
    if (!expect.job_failure.empty())
        return json{{"job_failure", expect.job_failure}, {"violation", expect.violation}};
    if (expect.pass) return "pass";
    json j = {{"violation", expect.violation}};
    if (!expect.every_seed) j["every_seed"] = false;
    return j;
}

std::optional<scenarios::Expectation> expectation_from_json(const json& j) {
    scenarios::Expectation expect;
    if (j.is_string()) {
        if (j.get<std::string>() != "pass") return std::nullopt;
        return expect;
    }
    if (!j.is_object()) return std::nullopt;
    if (j.contains("job_failure")) {
        if (!j["job_failure"].is_string()) return std::nullopt;
        expect.job_failure = j["job_failure"].get<std::string>();
        if (!j.contains("violation")) return expect;
    }
    if (j.contains("pass") && j["pass"].is_boolean() && j["pass"].get<bool>()) return expect;
    if (!j.contains("violation") || !j["violation"].is_string()) return std::nullopt;
    const std::string oracle = j["violation"].get<std::string>();
    if (oracles::OracleRegistry::global().find(oracle) == nullptr) return std::nullopt;
    expect.pass = false;
    expect.violation = oracle;
    if (j.contains("every_seed")) {
        if (!j["every_seed"].is_boolean()) return std::nullopt;
        expect.every_seed = j["every_seed"].get<bool>();
    }
    return expect;
}

RunRecord make_run_record(const scenarios::Scenario& scenario, const scenarios::RunResult& result,
                          const std::string& reproduce) {
    RunRecord r;
    r.scenario = result.scenario;
    r.file = scenario.source.string();
    r.seed = result.seed;
    r.expect = scenario.expect;
    r.expectation_met = result.expectation_met;
    r.expectation_message = result.expectation_message;
    r.status = r.expectation_met ? RunStatus::passed : RunStatus::failed;
    if (!r.expectation_met) {
        // The first oracle that fired against the expectation, with its message; else why not met.
        r.reason = r.expectation_message;
        for (const scenarios::OracleVerdict& v : result.verdicts) {
            if (v.passed || (!scenario.expect.pass && v.oracle == scenario.expect.violation))
                continue;
            r.reason = std::string(v.oracle) + " violated: " + v.message;
            break;
        }
    }
    r.trace_hash = hex64(result.trace_hash);
    r.state_hash = hex64(result.state_hash);
    r.job_finished = result.job_finished;
    r.verdicts = result.verdicts;
    r.figures = result.figures;
    // The run's plan: the scenario's schedule, then what faults.random drew for this seed.
    std::vector<sim::FaultSpec> plan = scenario.faults;
    if (result.fault_draw) {
        plan.insert(plan.end(), result.fault_draw->faults.begin(), result.fault_draw->faults.end());
        r.fault_draw = scenarios::describe_draw(*result.fault_draw);
    }
    for (const sim::FiredFault& fired : result.faults) {
        FaultRecord f;
        f.at_ns = fired.at.ns;
        f.end_ns = fired.at.ns;
        if (fired.plan_index < plan.size()) f.end_ns = fault_end_ns(plan[fired.plan_index], fired);
        f.kind = sim::to_string(fired.kind);
        f.plan_index = fired.plan_index;
        f.nodes = fired.nodes;
        f.action = fired.action;
        f.skipped = fired.skipped;
        r.faults.push_back(std::move(f));
    }
    for (const sim::FaultSpec& planned : plan)
        r.fault_schedule.push_back(json(scenarios::fault_to_json(planned)));
    r.fault_accounts = result.fault_accounts;
    r.coverage = result.coverage;
    r.has_timeline = true;
    r.timeline = result.timeline;
    r.checkpoints = result.checkpoints;
    r.checkpoint_summary = result.checkpoint_summary;
    r.status_history = result.status_history;
    r.exceptions = result.exceptions;
    r.deployments = result.deployments;
    r.back_pressure = result.back_pressure;
    r.rollbacks = result.rollbacks;
    r.anomalies = result.anomalies;
    r.placements = result.placements;
    r.reproduce = reproduce;
    r.wall_seconds = result.figures.wall_seconds;
    return r;
}

RunRecord make_error_record(std::string scenario, std::string file, uint64_t seed,
                            scenarios::Expectation expect, std::string reproduce,
                            std::string reason, std::string stderr_tail) {
    RunRecord r;
    r.scenario = std::move(scenario);
    r.file = std::move(file);
    r.seed = seed;
    r.status = RunStatus::error;
    r.expect = expect;
    r.reason = std::move(reason);
    r.expectation_message = "the run did not complete: " + r.reason;
    r.reproduce = std::move(reproduce);
    r.stderr_tail = valid_utf8(stderr_tail);
    return r;
}

json to_json(const RunRecord& r) {
    json verdicts = json::array();
    for (const scenarios::OracleVerdict& v : r.verdicts) {
        verdicts.push_back({{"oracle", v.oracle}, {"passed", v.passed}, {"message", v.message}});
    }
    json faults = json::array();
    for (const FaultRecord& f : r.faults) {
        faults.push_back({{"at_ns", f.at_ns},
                          {"end_ns", f.end_ns},
                          {"kind", f.kind},
                          {"plan_index", f.plan_index},
                          {"nodes", f.nodes},
                          {"action", f.action},
                          {"skipped", f.skipped}});
    }
    json j = {
        {"scenario", r.scenario},
        {"file", r.file},
        {"seed", r.seed},
        {"status", to_string(r.status)},
        {"reason", r.reason},
        {"expect", to_json(r.expect)},
        {"expectation_met", r.expectation_met},
        {"expectation_message", r.expectation_message},
        {"trace_hash", r.trace_hash},
        {"state_hash", r.state_hash},
        {"job_finished", r.job_finished},
        {"verdicts", std::move(verdicts)},
        {"figures", to_json(r.figures)},
        {"faults", std::move(faults)},
        {"fault_schedule", r.fault_schedule},
        {"fault_accounts", fault_accounts_to_json(r.fault_accounts)},
        {"coverage", r.coverage},
        {"checkpoint_summary", to_json(r.checkpoint_summary)},
        {"deployments", deployments_to_json(r.deployments)},
        {"back_pressure", back_pressure_to_json(r.back_pressure)},
        {"rollbacks", rollbacks_to_json(r.rollbacks)},
        {"anomalies", to_json(r.anomalies)},
        {"reproduce", r.reproduce},
        {"wall_seconds", r.wall_seconds},
    };
    if (r.has_timeline) {
        json timeline = json::array();
        for (const scenarios::TimelineEvent& e : r.timeline) {
            json event = {
                {"at_ns", e.at_ns}, {"lane", e.lane}, {"what", e.what}, {"detail", e.detail}};
            if (e.end_ns >= 0) event["end_ns"] = e.end_ns;
            timeline.push_back(std::move(event));
        }
        j["timeline"] = std::move(timeline);
        j["checkpoints"] = checkpoints_to_json(r.checkpoints);
        j["status_history"] = status_history_to_json(r.status_history);
        j["exceptions"] = exceptions_to_json(r.exceptions);
        j["placements"] = placements_to_json(r.placements);
    }
    if (r.timeline_events_cut != 0) j["timeline_events_cut"] = r.timeline_events_cut;
    if (r.timeline_essential_cut != 0) j["timeline_essential_cut"] = r.timeline_essential_cut;
    if (r.faults_cut != 0) j["faults_cut"] = r.faults_cut;
    if (!r.fault_draw.empty()) j["fault_draw"] = r.fault_draw;
    if (!r.stderr_tail.empty()) j["stderr"] = r.stderr_tail;
    return j;
}

namespace {
void cut_text(std::string& text) {
    if (text.size() <= kRecordTextMax) return;
    const std::string note =
        " ... (" + std::to_string(text.size() - kRecordTextMax) + " more bytes cut)";
    text =
        text.substr(0, kRecordTextMax) + note;  // a new string: resize would keep the old capacity
}
}  // namespace

bool essential_timeline_event(const scenarios::TimelineEvent& e) {
    if (e.lane == "faults" || e.lane == "job")
        return true;  // faults, failovers, restores, the job's end
    if (e.what.rfind("checkpoint.", 0) == 0) return true;
    return e.what == "txn.begun" || e.what == "txn.committed" || e.what == "txn.aborted" ||
           e.what == "txn.lost";
}

namespace {

// Keeps the events whose index `keep(i)` accepts, asked once each, front to back, in order.
template <typename Keep>
void keep_where(std::vector<scenarios::TimelineEvent>& timeline, Keep keep) {
    size_t out = 0;
    for (size_t i = 0; i < timeline.size(); ++i) {
        if (!keep(i)) continue;
        if (out != i)
            timeline[out] =
                std::move(timeline[i]);  // never a self-move: it would empty the strings
        ++out;
    }
    timeline.resize(out);
}

// Merges each watermark lane's spans in runs of `stride` into one span (from the first's start to
// the last's end, the first's value), so the line stays whole with fewer events. Returns how many
// events it removed.
int64_t merge_watermark_spans(std::vector<scenarios::TimelineEvent>& timeline, size_t stride) {
    std::map<std::string, std::vector<size_t>> by_lane;
    for (size_t i = 0; i < timeline.size(); ++i) {
        if (timeline[i].what == "watermark") by_lane[timeline[i].lane].push_back(i);
    }
    std::vector<bool> drop(timeline.size(), false);
    int64_t dropped = 0;
    for (auto& [lane, spans] : by_lane) {
        for (size_t first = 0; first < spans.size(); first += stride) {
            const size_t last = std::min(first + stride, spans.size()) - 1;
            if (last == first) continue;
            scenarios::TimelineEvent& kept = timeline[spans[first]];
            kept.end_ns = timeline[spans[last]].end_ns;
            kept.detail += " (and " + std::to_string(last - first) +
                           " later values, merged: the timeline was thinned)";
            for (size_t k = first + 1; k <= last; ++k) drop[spans[k]] = true;
            dropped += static_cast<int64_t>(last - first);
        }
    }
    keep_where(timeline, [&](size_t i) { return !drop[i]; });
    return dropped;
}

}  // namespace

ThinnedTimeline thin_timeline(std::vector<scenarios::TimelineEvent>& timeline, size_t max_events,
                              size_t essential_max) {
    if (timeline.size() <= max_events) return {};
    const size_t before = timeline.size();
    size_t essential = 0;
    size_t watermarks = 0;
    for (const scenarios::TimelineEvent& e : timeline) {
        if (essential_timeline_event(e)) ++essential;
        if (e.what == "watermark") ++watermarks;
    }
    // 1. Watermark spans: merged until what is left fits (at most one span per lane is kept).
    const size_t others = timeline.size() - watermarks;
    const size_t watermark_room = max_events > others ? max_events - others : 0;
    if (watermarks > watermark_room) {
        const size_t stride =
            watermark_room == 0 ? watermarks : (watermarks + watermark_room - 1) / watermark_room;
        merge_watermark_spans(timeline, std::max<size_t>(stride, 2));
    }
    // 2. The rest that is not essential (pre-commit marks, connector events), from the end; then
    // essential events only beyond `essential_max` (from the end: the record says so).
    if (timeline.size() > max_events) {
        const size_t merged = static_cast<size_t>(
            std::count_if(timeline.begin(), timeline.end(),
                          [](const scenarios::TimelineEvent& e) { return e.what == "watermark"; }));
        const size_t keep_optional =
            max_events > essential + merged ? max_events - essential - merged : 0;
        size_t optional_kept = 0;
        size_t essential_kept = 0;
        keep_where(timeline, [&](size_t i) {  // front to back: the earliest are kept
            const scenarios::TimelineEvent& e = timeline[i];
            if (essential_timeline_event(e)) return essential_kept++ < essential_max;
            return e.what == "watermark" || optional_kept++ < keep_optional;
        });
    }
    timeline.shrink_to_fit();
    return ThinnedTimeline{
        static_cast<int64_t>(before - timeline.size()),
        essential > essential_max ? static_cast<int64_t>(essential - essential_max) : 0};
}

void bound_record(RunRecord& r) {
    cut_text(r.reason);
    cut_text(r.expectation_message);
    cut_text(r.fault_draw);
    cut_text(r.stderr_tail);
    for (scenarios::OracleVerdict& v : r.verdicts) cut_text(v.message);
    for (FaultRecord& f : r.faults) cut_text(f.action);
    for (scenarios::FaultAccount& a : r.fault_accounts) cut_text(a.detail);
    if (r.fault_accounts.size() > kRecordFaultsMax) {  // the counts stay whole in the figures
        r.fault_accounts.resize(kRecordFaultsMax);
        r.fault_accounts.shrink_to_fit();
    }
    if (r.faults.size() > kRecordFaultsMax) {
        r.faults_cut += static_cast<int64_t>(r.faults.size() - kRecordFaultsMax);
        r.faults.resize(kRecordFaultsMax);
        r.faults.shrink_to_fit();
    }
    if (!r.has_timeline) {  // the history goes with the timeline; the summaries stay
        std::vector<scenarios::AnomalyGroup>().swap(r.anomalies.groups);
        std::vector<scenarios::TransactionMargin>().swap(r.anomalies.margins);
        std::vector<scenarios::CheckpointStats>().swap(r.checkpoints);
        std::vector<scenarios::JobStatusChange>().swap(r.status_history);
        std::vector<scenarios::JobException>().swap(r.exceptions);
    }
    for (scenarios::JobException& e : r.exceptions) cut_text(e.reason);
    for (scenarios::JobStatusChange& c : r.status_history) cut_text(c.detail);
    const ThinnedTimeline thinned =
        thin_timeline(r.timeline, kTimelineEventsMax, kTimelineEssentialMax);
    r.timeline_events_cut += thinned.left_out;
    r.timeline_essential_cut += thinned.essential_left_out;
    for (scenarios::TimelineEvent& e : r.timeline) cut_text(e.detail);
}

RunRecord run_record_from_json(const json& j) {
    if (!j.is_object()) throw RecordError("/: expected an object (a run record)");
    RunRecord r;
    r.scenario = field<std::string>(j, "scenario", "");
    r.file = optional_field<std::string>(j, "file", "", "");
    r.seed = field<uint64_t>(j, "seed", "");
    const std::string status = optional_field<std::string>(j, "status", "", "");
    if (status.empty()) {
        r.status = optional_field<bool>(j, "expectation_met", "", false) ? RunStatus::passed
                                                                         : RunStatus::failed;
    } else if (auto s = run_status_from_string(status)) {
        r.status = *s;
    } else {
        throw RecordError("/status: expected passed, failed or error, found \"" + status + "\"");
    }
    r.reason = optional_field<std::string>(j, "reason", "", "");
    if (j.contains("expect")) {
        const auto expect = expectation_from_json(j["expect"]);
        if (!expect) throw RecordError("/expect: expected \"pass\" or {\"violation\": oracle}");
        r.expect = *expect;
    }
    r.expectation_met =
        optional_field<bool>(j, "expectation_met", "", r.status == RunStatus::passed);
    r.expectation_message = optional_field<std::string>(j, "expectation_message", "", "");
    r.trace_hash = optional_field<std::string>(j, "trace_hash", "", "");
    r.state_hash = optional_field<std::string>(j, "state_hash", "", "");
    r.job_finished = optional_field<bool>(j, "job_finished", "", false);
    if (j.contains("verdicts")) {
        const json& verdicts = j["verdicts"];
        if (!verdicts.is_array()) throw RecordError("/verdicts: expected an array");
        for (size_t i = 0; i < verdicts.size(); ++i) {
            const std::string path = "/verdicts/" + std::to_string(i);
            std::string oracle = field<std::string>(verdicts[i], "oracle", path);
            if (oracles::OracleRegistry::global().find(oracle) == nullptr)
                throw RecordError(path + "/oracle: unknown oracle");
            r.verdicts.push_back({std::move(oracle), field<bool>(verdicts[i], "passed", path),
                                  optional_field<std::string>(verdicts[i], "message", path, "")});
        }
    }
    if (j.contains("figures")) r.figures = figures_from_json(j["figures"], "/figures");
    if (j.contains("faults")) {
        const json& faults = j["faults"];
        if (!faults.is_array()) throw RecordError("/faults: expected an array");
        for (size_t i = 0; i < faults.size(); ++i) {
            const std::string path = "/faults/" + std::to_string(i);
            FaultRecord f;
            f.at_ns = field<int64_t>(faults[i], "at_ns", path);
            f.end_ns = optional_field<int64_t>(faults[i], "end_ns", path, f.at_ns);
            f.kind = field<std::string>(faults[i], "kind", path);
            f.plan_index = optional_field<size_t>(faults[i], "plan_index", path, 0);
            f.nodes = optional_field<std::vector<std::string>>(faults[i], "nodes", path, {});
            f.action = optional_field<std::string>(faults[i], "action", path, "");
            f.skipped = optional_field<bool>(faults[i], "skipped", path, false);
            r.faults.push_back(std::move(f));
        }
    }
    if (j.contains("fault_schedule")) r.fault_schedule = j["fault_schedule"];
    if (j.contains("fault_accounts")) {
        try {
            r.fault_accounts = fault_accounts_from_json(j["fault_accounts"]);
        } catch (const std::invalid_argument& error) {
            throw RecordError(error.what());
        }
    }
    r.fault_draw = optional_field<std::string>(j, "fault_draw", "", "");
    r.coverage = optional_field<std::map<std::string, int64_t>>(j, "coverage", "", {});
    if (j.contains("checkpoints"))
        r.checkpoints = checkpoints_from_json(j["checkpoints"], "/checkpoints");
    if (j.contains("checkpoint_summary"))
        r.checkpoint_summary =
            checkpoint_summary_from_json(j["checkpoint_summary"], "/checkpoint_summary");
    if (j.contains("status_history"))
        r.status_history = status_history_from_json(j["status_history"], "/status_history");
    if (j.contains("exceptions"))
        r.exceptions = exceptions_from_json(j["exceptions"], "/exceptions");
    if (j.contains("deployments"))
        r.deployments = deployments_from_json(j["deployments"], "/deployments");
    if (j.contains("back_pressure"))
        r.back_pressure = back_pressure_from_json(j["back_pressure"], "/back_pressure");
    if (j.contains("rollbacks")) r.rollbacks = rollbacks_from_json(j["rollbacks"], "/rollbacks");
    if (j.contains("anomalies")) r.anomalies = anomalies_from_json(j["anomalies"], "/anomalies");
    if (j.contains("placements"))
        r.placements = placements_from_json(j["placements"], "/placements");
    if (j.contains("timeline")) {
        const json& timeline = j["timeline"];
        if (!timeline.is_array()) throw RecordError("/timeline: expected an array");
        r.has_timeline = true;
        for (size_t i = 0; i < timeline.size(); ++i) {
            const std::string path = "/timeline/" + std::to_string(i);
            scenarios::TimelineEvent e;
            e.at_ns = field<int64_t>(timeline[i], "at_ns", path);
            e.end_ns = optional_field<int64_t>(timeline[i], "end_ns", path, -1);
            e.lane = field<std::string>(timeline[i], "lane", path);
            e.what = field<std::string>(timeline[i], "what", path);
            e.detail = optional_field<std::string>(timeline[i], "detail", path, "");
            r.timeline.push_back(std::move(e));
        }
    }
    r.reproduce = optional_field<std::string>(j, "reproduce", "", "");
    r.wall_seconds = optional_field<double>(j, "wall_seconds", "", r.figures.wall_seconds);
    r.stderr_tail = optional_field<std::string>(j, "stderr", "", "");
    r.timeline_events_cut = optional_field<int64_t>(j, "timeline_events_cut", "", 0);
    r.timeline_essential_cut = optional_field<int64_t>(j, "timeline_essential_cut", "", 0);
    r.faults_cut = optional_field<int64_t>(j, "faults_cut", "", 0);
    return r;
}

}  // namespace eosim::reports
