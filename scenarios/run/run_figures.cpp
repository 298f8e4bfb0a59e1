#include "scenarios/run/run_figures.h"

#include <algorithm>

#include "engine/checkpointing/checkpoint_storage.h"
#include "engine/checkpointing/savepoint_storage.h"

namespace eosim::scenarios {

namespace {

void engine_figures(DeploymentRun& deployments, RunFigures& f) {
    const engine::EngineStats stats = deployments.total_stats();
    f.checkpoints_completed = stats.checkpoints_completed;
    f.checkpoints_aborted = stats.checkpoints_aborted;
    for (const auto& [reason, count] : stats.checkpoints_aborted_by_reason) f.checkpoints_aborted_by_reason[engine::to_string(reason)] = count;
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
void storage_figures(const DeploymentRun& deployments, const sim::DurableStorage& storage, RunFigures& f) {
    for (const engine::JobSpec* deployed : deployments.all_jobs()) {
        const engine::CheckpointStorageUse use = engine::checkpoint_storage_use(
            *deployed, storage.contents(), [&storage](const std::string& key) { return storage.removal_in_flight(key); });
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

void checkpoint_figures(const std::vector<CheckpointStats>& checkpoints, RunFigures& f) {
    const CheckpointStatsSummary summary = summarize(checkpoints);
    f.checkpoints_unaligned = summary.unaligned;
    f.checkpoint_duration_median_ms = summary.duration_median_ms;
    f.checkpoint_duration_p99_ms = summary.duration_p99_ms;
    f.checkpoint_duration_max_ms = summary.duration_max_ms;
    f.alignment_median_ms = summary.alignment_median_ms;
    f.alignment_max_ms = summary.alignment_max_ms;
    f.checkpoint_bytes_median = summary.bytes_median;
    f.channel_state_bytes_median = summary.channel_bytes_median;
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
    f.records_in = from.run.model.input_records();
    f.records_out = static_cast<int64_t>(from.oracles.first_sink_content().size());
    result.checkpoints = from.observers.checkpoint_stats.checkpoints();
    checkpoint_figures(result.checkpoints, f);

    TimelineRecorder& timeline = from.observers.timeline;
    result.faults = from.faults.injector().fired();
    for (const sim::FiredFault& fault : result.faults) {
        timeline.add(TimelineEvent{fault.at.ns, -1, "faults", std::string("fault.") + sim::to_string(fault.kind), fault.action});
    }
    result.timeline = timeline.take();
    f.transactions_lost = std::count_if(result.timeline.begin(), result.timeline.end(),
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
