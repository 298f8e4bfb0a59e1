#include "scenarios/point_reach.h"

#include <algorithm>
#include <functional>

#include "engine/connectors/sink_registry.h"
#include "engine/vocabulary/protocol_points.h"

namespace eosim::scenarios {

namespace points = engine::points;

namespace {

constexpr std::string_view kJobManager = "JobManager";
constexpr std::string_view kTaskManager = "TaskManager";

// What must be there for a point's announcer to exist.
enum class Needs : uint8_t {
    nothing,            // every job has it
    checkpointing,      // checkpointing enabled, or a savepoint (user's or a deployment's stop)
    high_availability,  // the scenario's high_availability block
    incremental_state,  // a program with rocksdb + incremental
    savepoint,          // "savepoints" or "deployments"
    later_deployment,   // "deployments"
    unaligned,          // a program with unaligned checkpoints
    window,             // a window vertex
    cdc_source,         // a cdc_source vertex
    sink_point,         // a sink whose SinkConfig::announced_points lists it
};

struct Entry {
    PointAnnouncer announcer;
    Needs needs;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> table = [] {
        const std::vector<Entry> all = {
            {{points::kCheckpointTriggered, kJobManager,
              "the checkpoint coordinator (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kCheckpointAcknowledged, kJobManager,
              "the checkpoint coordinator (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kCheckpointCompleted, kJobManager,
              "the checkpoint coordinator (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kCheckpointAborted, kJobManager,
              "the checkpoint coordinator (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kFailoverStarted, kJobManager, "the JobManager (every job)"}, Needs::nothing},
            {{points::kJobRunning, kJobManager, "the JobManager (every job)"}, Needs::nothing},
            {{points::kJobFinished, kJobManager, "the JobManager (every job)"}, Needs::nothing},
            {{points::kCheckpointMetadataWritten, kJobManager,
              "the JobManager with high_availability"},
             Needs::high_availability},
            {{points::kLeadershipGranted, kJobManager, "the JobManager with high_availability"},
             Needs::high_availability},
            {{points::kLeadershipLost, kJobManager, "the JobManager with high_availability"},
             Needs::high_availability},
            {{points::kTaskRestoring, kTaskManager, "every task (every job)"}, Needs::nothing},
            {{points::kAlignmentStarted, kTaskManager,
              "a task with inputs (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kTaskSnapshotted, kTaskManager,
              "every task (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kCheckpointNotified, kTaskManager,
              "the TaskManager (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kSinkPrecommitted, kTaskManager,
              "a sink that pre-commits (the kafka sink with guarantee exactly_once)"},
             Needs::sink_point},
            {{points::kSinkCommitted, kTaskManager,
              "a sink that commits (the kafka sink with guarantee exactly_once)"},
             Needs::sink_point},
            {{points::kSinkRecovered, kTaskManager,
              "a sink that recovers transactions (the kafka sink with guarantee exactly_once)"},
             Needs::sink_point},
            {{points::kChannelStatePersisted, kTaskManager,
              "a task with unaligned checkpoints (checkpointing.unaligned)"},
             Needs::unaligned},
            {{points::kChannelStateReplaying, kTaskManager,
              "a task with unaligned checkpoints (checkpointing.unaligned)"},
             Needs::unaligned},
            {{points::kSinkFlushed, kTaskManager, "a sink that flushes batches (the upsert sink)"},
             Needs::sink_point},
            {{points::kCdcChunkStarted, kTaskManager, "the cdc_source"}, Needs::cdc_source},
            {{points::kCdcChunkFinished, kTaskManager, "the cdc_source"}, Needs::cdc_source},
            {{points::kCdcSnapshotFinished, kTaskManager, "the cdc_source"}, Needs::cdc_source},
            {{points::kCdcBinlogCheckpointed, kTaskManager, "the cdc_source"}, Needs::cdc_source},
            {{points::kTaskEndOfData, kTaskManager,
              "every task at the end of its bounded input (every job)"},
             Needs::nothing},
            {{points::kTaskFinalSnapshot, kTaskManager,
              "every task after its end of input (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kTaskFinished, kTaskManager,
              "every task once its final checkpoint completed and its inputs ended (checkpointing enabled, or a savepoint)"},
             Needs::checkpointing},
            {{points::kSavepointCompleted, kJobManager,
              "the checkpoint coordinator taking a savepoint (\"savepoints\" or \"deployments\")"},
             Needs::savepoint},
            {{points::kStopWithSavepointTriggered, kJobManager,
              "the checkpoint coordinator stopping a deployment (\"deployments\")"},
             Needs::later_deployment},
            {{points::kTaskRestoringRescaled, kTaskManager,
              "a task of a later deployment restoring another parallelism's state (\"deployments\")"},
             Needs::later_deployment},
            {{points::kSourceStoppedForSavepoint, kTaskManager,
              "a source stopping with a savepoint (\"deployments\")"},
             Needs::later_deployment},
            {{points::kSharedStateRegistered, kJobManager,
              "the shared-state registry (state_backend rocksdb with incremental)"},
             Needs::incremental_state},
            {{points::kSharedStateDiscarded, kJobManager,
              "the shared-state registry (state_backend rocksdb with incremental)"},
             Needs::incremental_state},
            {{points::kWindowFired, kTaskManager, "a window vertex"}, Needs::window},
        };
        // In kAll order, every point exactly once (tests/scenarios/test_point_reach.cpp checks it
        // too).
        std::vector<Entry> ordered;
        for (std::string_view point : points::kAll) {
            auto it = std::find_if(all.begin(), all.end(),
                                   [&](const Entry& e) { return e.announcer.point == point; });
            if (it != all.end()) ordered.push_back(*it);
        }
        return ordered;
    }();
    return table;
}

std::vector<engine::JobSpec> programs(const Scenario& s) {
    std::vector<engine::JobSpec> all;
    for (size_t d = 0; d <= s.deployments.size(); ++d) all.push_back(s.deployment_job(d));
    return all;
}

bool any_program(const std::vector<engine::JobSpec>& jobs,
                 const std::function<bool(const engine::JobSpec&)>& test) {
    return std::any_of(jobs.begin(), jobs.end(), test);
}

bool any_vertex(const std::vector<engine::JobSpec>& jobs, engine::OperatorKind kind) {
    return any_program(
        jobs, [kind](const engine::JobSpec& job) { return engine::has_operator(job, kind); });
}

std::string sink_kinds(const std::vector<engine::JobSpec>& jobs) {
    std::string kinds;
    for (const engine::JobSpec& job : jobs) {
        for (const engine::VertexSpec& v : job.vertices) {
            if (v.kind != engine::OperatorKind::sink) continue;
            const std::string one = "\"" + v.id + "\" (" + v.sink_kind + ")";
            if (kinds.find(one) == std::string::npos) kinds += (kinds.empty() ? "" : ", ") + one;
        }
    }
    return kinds;
}

// Whether a task of vertex `v` can announce the point of entry `e` (the point is reachable).
bool vertex_announces(const Entry& e, const engine::VertexSpec& v) {
    switch (e.needs) {
        case Needs::window: return v.kind == engine::OperatorKind::window;
        case Needs::cdc_source: return v.kind == engine::OperatorKind::cdc_source;
        case Needs::sink_point: {
            if (v.kind != engine::OperatorKind::sink || !v.sink) return false;
            const std::vector<std::string_view> announced = v.sink->announced_points();
            return std::find(announced.begin(), announced.end(), e.announcer.point) !=
                   announced.end();
        }
        default: break;
    }
    if (e.announcer.point == points::kAlignmentStarted) return !v.inputs.empty();
    if (e.announcer.point == points::kSourceStoppedForSavepoint)
        return engine::is_source_kind(v.kind);
    return true;
}

}  // namespace

bool announced_by_task(std::string_view point) {
    return point != points::kCheckpointNotified && point_announcer(point) != nullptr &&
           point_announcer(point)->process == kTaskManager;
}

std::optional<std::string> unmatched_task_reason(const Scenario& s, std::string_view point,
                                                 const std::string& vertex, int32_t subtask) {
    auto it = std::find_if(entries().begin(), entries().end(),
                           [&](const Entry& e) { return e.announcer.point == point; });
    if (it == entries().end()) return std::string(point) + ": not a protocol point";
    if (!announced_by_task(point)) {
        return std::string(point) + " is announced by the " + std::string(it->announcer.process) +
               " as a whole, not by a task: \"vertex\" and \"subtask\" do not apply";
    }
    std::string ids;          // the vertices that announce the point, for the message
    int32_t parallelism = 0;  // the most subtasks a matching vertex runs in any program
    bool named = false;
    for (const engine::JobSpec& job : programs(s)) {
        for (const engine::VertexSpec& v : job.vertices) {
            if (!vertex.empty() && v.id != vertex) continue;
            named = true;
            if (!vertex_announces(*it, v)) continue;
            parallelism = std::max(parallelism, v.parallelism);
            const std::string one = "\"" + v.id + "\"";
            if (ids.find(one) == std::string::npos) ids += (ids.empty() ? "" : ", ") + one;
        }
    }
    if (!named) return "no deployment of the job has a vertex \"" + vertex + "\" (/job/vertices)";
    if (parallelism == 0) {
        return "vertex \"" + vertex + "\" never announces " + std::string(point) +
               ": it is announced by " + std::string(it->announcer.component);
    }
    if (subtask >= parallelism) {
        const std::string who = vertex.empty() ? "the vertices that announce it (" + ids + ") run"
                                               : "vertex \"" + vertex + "\" runs";
        return "subtask " + std::to_string(subtask) + " never exists: " + who + " at most " +
               std::to_string(parallelism) + " subtasks (0.." + std::to_string(parallelism - 1) +
               ") in every deployment";
    }
    return std::nullopt;
}

const std::vector<PointAnnouncer>& point_announcers() {
    static const std::vector<PointAnnouncer> all = [] {
        std::vector<PointAnnouncer> out;
        for (const Entry& e : entries()) out.push_back(e.announcer);
        return out;
    }();
    return all;
}

const PointAnnouncer* point_announcer(std::string_view point) {
    for (const PointAnnouncer& a : point_announcers()) {
        if (a.point == point) return &a;
    }
    return nullptr;
}

std::optional<std::string> unreachable_reason(const Scenario& s, std::string_view point) {
    auto it = std::find_if(entries().begin(), entries().end(),
                           [&](const Entry& e) { return e.announcer.point == point; });
    if (it == entries().end()) return std::string(point) + ": not a protocol point";
    const std::vector<engine::JobSpec> jobs = programs(s);
    const bool savepoints = !s.savepoints.empty() || !s.deployments.empty();
    switch (it->needs) {
        case Needs::nothing: return std::nullopt;
        case Needs::checkpointing:
            if (savepoints ||
                any_program(jobs, [](const engine::JobSpec& j) { return j.checkpointing.enabled; }))
                return std::nullopt;
            return std::string(
                "checkpointing is disabled (/job/checkpointing/enabled) and the scenario takes no savepoint");
        case Needs::high_availability:
            if (s.high_availability) return std::nullopt;
            return std::string("the scenario has no high_availability block");
        case Needs::incremental_state:
            if (any_program(jobs, [](const engine::JobSpec& j) {
                    return j.state_backend.kind == engine::StateBackendKind::rocksdb &&
                           j.state_backend.incremental;
                })) {
                return std::nullopt;
            }
            return std::string(
                "no deployment of the job has state_backend rocksdb with incremental checkpoints");
        case Needs::savepoint:
            if (savepoints) return std::nullopt;
            return std::string(
                "the scenario takes no savepoint (no \"savepoints\", no \"deployments\")");
        case Needs::later_deployment:
            if (!s.deployments.empty()) return std::nullopt;
            return std::string("the scenario has no later deployment (\"deployments\")");
        case Needs::unaligned:
            if (any_program(jobs, [](const engine::JobSpec& j) {
                    return j.checkpointing.channel_state_possible();
                }))
                return std::nullopt;
            return std::string(
                "no deployment of the job has unaligned checkpoints (/job/checkpointing/unaligned)");
        case Needs::window:
            if (any_vertex(jobs, engine::OperatorKind::window)) return std::nullopt;
            return std::string("the job has no window vertex (/job/vertices)");
        case Needs::cdc_source:
            if (any_vertex(jobs, engine::OperatorKind::cdc_source)) return std::nullopt;
            return std::string("the job has no cdc_source vertex (/job/vertices)");
        case Needs::sink_point: {
            const Entry& entry = *it;
            const bool announced = any_program(jobs, [&entry](const engine::JobSpec& j) {
                return std::any_of(
                    j.vertices.begin(), j.vertices.end(),
                    [&entry](const engine::VertexSpec& v) { return vertex_announces(entry, v); });
            });
            if (announced) return std::nullopt;
            return "no sink of the job announces it (its sinks: " + sink_kinds(jobs) + ")";
        }
    }
    return std::nullopt;
}

}  // namespace eosim::scenarios
