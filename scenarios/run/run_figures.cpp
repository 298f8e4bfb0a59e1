#include "scenarios/run/run_figures.h"

#include <algorithm>
#include <cmath>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"

namespace eosim::scenarios {

namespace {

void engine_figures(DeploymentRun& deployments, RunFigures& f) {
    const engine::EngineStats stats = deployments.total_stats();
    f.checkpoints_completed = stats.checkpoints_completed;
    f.checkpoints_aborted = stats.checkpoints_aborted;
    for (const auto& [reason, count] : stats.checkpoints_aborted_by_reason)
        f.checkpoints_aborted_by_reason[engine::to_string(reason)] = count;
    f.checkpoint_files_discarded = stats.checkpoint_files_discarded;
    f.checkpoint_bytes_discarded = stats.checkpoint_bytes_discarded;
    f.savepoints_completed = stats.savepoints_completed;
    f.shared_bytes_uploaded = stats.shared_bytes_uploaded;
    f.shared_bytes_referenced = stats.shared_bytes_referenced;
    f.restarts = stats.restarts;
    f.failovers = stats.failovers;
    // The engine running at the end (a later deployment's, if any).
    const engine::EngineStats& current = deployments.current().stats();
    f.leaderships = current.leaderships;
    f.checkpoints_stored = current.checkpoints_stored;
    f.store_refusals = current.checkpoint_store_refusals;
    f.fenced_messages = current.fenced_messages;
    f.deployments_refused = current.deployments_refused;
}

// What every deployment left in checkpoint storage at the end: retained checkpoints, files no
// retained checkpoint refers to, savepoints and their files.
void storage_figures(const DeploymentRun& deployments, const sim::DurableStorage& storage,
                     RunFigures& f) {
    for (const engine::JobSpec* deployed : deployments.all_jobs()) {
        const engine::CheckpointStorageUse use = engine::checkpoint_storage_use(
            *deployed, storage.contents(),
            [&storage](const std::string& key) { return storage.removal_in_flight(key); });
        f.checkpoint_files_retained += use.retained.files;
        f.checkpoint_bytes_retained += use.retained.bytes;
        f.checkpoint_files_unretained += use.unretained.files;
        f.checkpoint_bytes_unretained += use.unretained.bytes;
    }
    for (const engine::JobSpec* deployed : deployments.all_jobs()) {
        const engine::SavepointFiles kept = engine::savepoint_files(*deployed, storage.contents());
        f.savepoints_stored += kept.savepoints;
        f.savepoint_files += kept.files;
        f.savepoint_files_missing += kept.missing;
    }
}

void checkpoint_figures(const std::vector<CheckpointStats>& checkpoints,
                        CheckpointStatsSummary& summary, RunFigures& f) {
    summary = summarize(checkpoints);
    f.checkpoints_unaligned = summary.unaligned;
    f.checkpoint_duration_median_ms = summary.duration_median_ms;
    f.checkpoint_duration_p99_ms = summary.duration_p99_ms;
    f.checkpoint_duration_max_ms = summary.duration_max_ms;
    f.alignment_median_ms = summary.alignment_median_ms;
    f.alignment_max_ms = summary.alignment_max_ms;
    f.checkpoint_bytes_median = summary.bytes_median;
    f.channel_state_bytes_median = summary.channel_bytes_median;
    f.checkpoints_failed = summary.failed_summary.count;
    f.failed_alignment_max_ms = summary.failed_summary.alignment_ms.max;
    f.failed_start_delay_max_ms = summary.failed_summary.start_delay_ms.max;
    f.start_delay_max_ms = summary.completed_summary.start_delay_ms.max;
    f.persisted_bytes_max = static_cast<int64_t>(std::max(
        summary.completed_summary.persisted_bytes.max, summary.failed_summary.persisted_bytes.max));
}

// The fault that probably caused a failure at `at_s`: the latest that fired (and did something)
// before it, one that hit a node the failure names if any did.
std::string probable_cause(const std::vector<sim::FiredFault>& faults, double at_s,
                           const std::string& reason) {
    const sim::FiredFault* latest = nullptr;
    const sim::FiredFault* named = nullptr;
    for (const sim::FiredFault& fault : faults) {
        if (fault.skipped || fault.at.seconds() > at_s) continue;
        latest = &fault;
        for (const std::string& node : fault.nodes) {
            if (reason.find(node) != std::string::npos) named = &fault;
        }
    }
    const sim::FiredFault* cause = named != nullptr ? named : latest;
    if (cause == nullptr) return "";
    return "fault #" + std::to_string(cause->plan_index) + " " + sim::to_string(cause->kind) +
           " at " + sim::seconds_text(cause->at) + ": " + cause->action;
}

void job_history(const JobHistory& history, RunResult& result) {
    result.status_history = history.status_history();
    result.exceptions = history.exceptions();
    result.figures.jobmanager_failovers = history.job_manager_failovers();
    for (JobException& e : result.exceptions)
        e.root_cause = probable_cause(result.faults, e.at_s, e.reason);
    result.deployments = history.deployments();
    if (result.deployments.size() < 2)
        return;  // one deployment: nothing to tell apart on the timeline
    for (const DeploymentSpan& d : result.deployments) {
        const auto ns = [](double s) { return static_cast<int64_t>(std::llround(s * 1e9)); };
        result.timeline.push_back(TimelineEvent{
            ns(d.begin_s), d.end_s < 0 ? -1 : ns(d.end_s), "job", "deployment",
            d.name + ": " +
                (d.restored_from == 0
                     ? "from scratch"
                     : "restored " + d.restored_kind + " " + std::to_string(d.restored_from)) +
                "; " + (d.ended.empty() ? "running at the end" : d.ended)});
    }
}

}  // namespace

void gather_figures(const FigureSources& from, RunResult& result) {
    sim::World& world = from.run.world;
    RunFigures& f = result.figures;
    f.events = world.trace().events();
    f.virtual_seconds = world.now().seconds();
    f.wall_seconds = from.wall_seconds;
    engine_figures(from.deployments, f);
    storage_figures(from.deployments, world.storage(), f);
    from.run.outside.add_figures(f);
    f.faults_injected = static_cast<int64_t>(from.faults.injector().injected_count());
    // Change events a CDC source read (its snapshot rows and binlog events, replays included);
    // input records otherwise. The final rows of a CDC source table are figures of their own.
    const bool cdc =
        std::any_of(from.deployments.jobs().begin(), from.deployments.jobs().end(),
                    [](const engine::JobSpec& job) {
                        return engine::has_operator(job, engine::OperatorKind::cdc_source);
                    });
    f.records_read = from.deployments.total_stats().records_read;
    f.records_in = cdc ? f.records_read : from.run.model.input_records();
    if (cdc) f.source_table_rows = from.run.model.input_records();
    f.records_out = static_cast<int64_t>(from.oracles.first_sink_content().size());
    result.checkpoints = from.observers.checkpoint_stats.checkpoints();
    checkpoint_figures(result.checkpoints, result.checkpoint_summary, f);

    TimelineRecorder& timeline = from.observers.timeline;
    result.faults = from.faults.injector().fired();
    for (const sim::FiredFault& fault : result.faults) {
        timeline.add(TimelineEvent{fault.at.ns, -1, "faults",
                                   std::string("fault.") + sim::to_string(fault.kind),
                                   fault.action});
    }
    result.timeline = timeline.take();
    job_history(from.observers.history, result);
    result.placements = from.observers.placements.placements();
    result.back_pressure = from.observers.back_pressure.shares();
    f.transactions_lost =
        std::count_if(result.timeline.begin(), result.timeline.end(),
                      [](const TimelineEvent& e) { return e.what == "txn.lost"; });
    CoverageTracker& coverage = from.observers.coverage;
    for (const OracleVerdict& v : result.verdicts) {
        if (!v.passed) coverage.oracle_fired(v.oracle);
    }
    coverage.fenced_writes(static_cast<uint64_t>(f.fenced_writes));
    coverage.finish(world.now());
    result.coverage = coverage.hits();
    result.fault_draw = std::move(from.faults.draw());
}

}  // namespace eosim::scenarios
