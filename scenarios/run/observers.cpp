#include "scenarios/run/observers.h"

#include <string_view>

namespace eosim::scenarios {

void ObserverFanout::set_hand_over(std::function<bool()> hands_over,
                                   std::vector<engine::RunObserver*> history) {
    hands_over_ = std::move(hands_over);
    history_ = std::move(history);
}

void ObserverFanout::checkpoint_triggered(sim::Time t, int64_t id, engine::SnapshotType type) {
    each([&](auto* o) { o->checkpoint_triggered(t, id, type); });
}
void ObserverFanout::checkpoint_completed(sim::Time t, int64_t id,
                                          const engine::SourceOffsets& offsets) {
    each([&](auto* o) { o->checkpoint_completed(t, id, offsets); });
}
void ObserverFanout::checkpoint_aborted(sim::Time t, int64_t id,
                                        engine::CheckpointFailureReason reason,
                                        const std::string& detail) {
    each([&](auto* o) { o->checkpoint_aborted(t, id, reason, detail); });
}
void ObserverFanout::attempt_deployed(sim::Time t, int64_t attempt,
                                      const std::vector<engine::SubtaskPlacement>& placement) {
    each([&](auto* o) { o->attempt_deployed(t, attempt, placement); });
}

void ObserverFanout::restore_started(sim::Time t, int64_t attempt, int64_t id,
                                     const engine::SourceOffsets& offsets) {
    each([&](auto* o) { o->restore_started(t, attempt, id, offsets); });
}
void ObserverFanout::keyed_state_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                                          int32_t subtask,
                                          const std::map<int64_t, int64_t>& state) {
    each([&](auto* o) { o->keyed_state_restored(t, attempt, vertex, subtask, state); });
}
void ObserverFanout::keyed_cells_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                                          int32_t subtask,
                                          const std::map<engine::StateKey, int64_t>& cells) {
    each([&](auto* o) { o->keyed_cells_restored(t, attempt, vertex, subtask, cells); });
}
void ObserverFanout::channel_state_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                                            int32_t subtask,
                                            const std::vector<engine::InFlightRecords>& in_flight) {
    each([&](auto* o) { o->channel_state_restored(t, attempt, vertex, subtask, in_flight); });
}
void ObserverFanout::task_checkpoint_stats(sim::Time t, const engine::TaskCheckpointStats& stats) {
    each([&](auto* o) { o->task_checkpoint_stats(t, stats); });
}
void ObserverFanout::task_checkpoint_acknowledged(sim::Time t, int64_t id,
                                                  const std::string& vertex, int32_t subtask) {
    each([&](auto* o) { o->task_checkpoint_acknowledged(t, id, vertex, subtask); });
}
void ObserverFanout::failover(sim::Time t, int64_t attempt, const std::string& reason) {
    each([&](auto* o) { o->failover(t, attempt, reason); });
}
void ObserverFanout::transaction_event(sim::Time t, const std::string& id, const char* what) {
    each([&](auto* o) { o->transaction_event(t, id, what); });
}
void ObserverFanout::likely_data_loss(sim::Time t, const std::string& id, const std::string& why) {
    each([&](auto* o) { o->likely_data_loss(t, id, why); });
}
void ObserverFanout::connector_event(sim::Time begin, sim::Time end, const std::string& lane,
                                     const std::string& what, const std::string& detail) {
    each([&](auto* o) { o->connector_event(begin, end, lane, what, detail); });
}
void ObserverFanout::watermark_advanced(sim::Time t, int64_t attempt, const std::string& vertex,
                                        int32_t subtask, int64_t watermark) {
    each([&](auto* o) { o->watermark_advanced(t, attempt, vertex, subtask, watermark); });
}
void ObserverFanout::job_suspended(sim::Time t, const std::string& why) {
    each([&](auto* o) { o->job_suspended(t, why); });
}
void ObserverFanout::job_manager_lost(sim::Time t, int64_t attempt, const std::string& why) {
    each([&](auto* o) { o->job_manager_lost(t, attempt, why); });
}
void ObserverFanout::source_read(sim::Time t, int64_t attempt, const std::string& vertex,
                                 int32_t subtask, int64_t records) {
    each([&](auto* o) { o->source_read(t, attempt, vertex, subtask, records); });
}
void ObserverFanout::source_stopped_for_savepoint(sim::Time t, int64_t attempt,
                                                  const std::string& vertex, int32_t subtask,
                                                  int64_t savepoint_id,
                                                  const engine::SourceOffsets& position) {
    each([&](auto* o) {
        o->source_stopped_for_savepoint(t, attempt, vertex, subtask, savepoint_id, position);
    });
}
void ObserverFanout::source_restored(sim::Time t, int64_t attempt, const std::string& vertex,
                                     int32_t subtask, int64_t checkpoint_id,
                                     const engine::SourceOffsets& position) {
    each(
        [&](auto* o) { o->source_restored(t, attempt, vertex, subtask, checkpoint_id, position); });
}
void ObserverFanout::savepoint_completed(sim::Time t, const std::string& path) {
    each([&](auto* o) { o->savepoint_completed(t, path); });
}
void ObserverFanout::closed_sink_timer_fired(sim::Time t, const std::string& vertex,
                                             int32_t subtask, sim::Time closed_at) {
    each([&](auto* o) { o->closed_sink_timer_fired(t, vertex, subtask, closed_at); });
}
void ObserverFanout::job_finished(sim::Time t) {
    if (hands_over_ && hands_over_()) {
        for (engine::RunObserver* o : history_) o->job_finished(t);
        return;
    }
    each([&](auto* o) { o->job_finished(t); });
}
void ObserverFanout::job_failed(sim::Time t, const std::string& reason) {
    each([&](auto* o) { o->job_failed(t, reason); });
}

void ProgressWatch::checkpoint_completed(sim::Time t, int64_t, const engine::SourceOffsets&) {
    last_ = t;
}

void ProgressWatch::transaction_event(sim::Time t, const std::string&, const char* what) {
    if (std::string_view(what) == "committed") last_ = t;
}

RunObservers::RunObservers(engine::RunObserver* extra) {
    fanout.add(&history);
    fanout.add(&timeline);
    fanout.add(&checkpoint_stats);
    fanout.add(&placements);
    if (extra != nullptr) fanout.add(extra);
    fanout.add(&progress);
    fanout.add(&committed);
}

void RunObservers::follow(const DeploymentRun& deployments) {
    fanout.set_hand_over([&deployments] { return deployments.hands_over(); },
                         {&history, &timeline});
}

}  // namespace eosim::scenarios
