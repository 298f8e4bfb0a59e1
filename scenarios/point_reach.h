#pragma once
// Which protocol points (engine/vocabulary/protocol_points.h) a scenario's job can announce, and
// who announces each point in general: the loader refuses a fault placed at a point no component of
// the job (or of a later deployment's program) announces, naming who does; `eosim points [FILE]`
// prints the table; the run's fault accounting (scenarios/fault_accounting.h) names the announcer
// of a point that was reachable but never announced.
//
// A point is reachable when the component that announces it is there: the JobManager and the
// TaskManagers always; checkpointing for the checkpoint points (or a savepoint for the
// coordinator's); JobManager high availability; incremental RocksDB state; savepoints and later
// deployments; unaligned checkpoints; a window, a CDC source; and a sink whose kind lists the point
// in `SinkConfig::announced_points` (the Kafka sink with guarantee exactly_once, the upsert sink).
// Reachable does not mean reached: a point of a component that is there may still never come (an
// aborted checkpoint that no fault causes); the accounting reports that after the run.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/scenario.h"

namespace eosim::scenarios {

struct PointAnnouncer {
    std::string_view point;
    std::string_view
        process;  // "JobManager" or "TaskManager": the node a crash "at the announcer" hits
    std::string_view component;  // who announces it, and when it is there: "the Kafka sink with
                                 // guarantee exactly_once"
};

// Every protocol point, in engine::points::kAll order.
const std::vector<PointAnnouncer>& point_announcers();
// The announcer of `point`; nullptr for a name that is not a protocol point.
const PointAnnouncer* point_announcer(std::string_view point);

// Why no component of `scenario` announces `point` ("the job has no window vertex (/job/vertices)
// ..."), or nullopt when one does. Reads the job, every later deployment's program, high
// availability, savepoints and the sinks' announced points; needs a loaded (or being loaded) job.
std::optional<std::string> unreachable_reason(const Scenario& scenario, std::string_view point);

// Whether a task announces `point` (its vertex and subtask go with it, for a fault's `vertex` and
// `subtask` filters), rather than a process (the JobManager, or a TaskManager as a whole).
bool announced_by_task(std::string_view point);

// Why announcements of `point` (reachable) can never come from a task of `vertex` (empty: any)
// with index `subtask` (-1: any) in any program of `scenario`, or nullopt when they can: the point
// is a process's, no program has the vertex, the vertex is not of the kind that announces the
// point, or the subtask is past the vertex's parallelism in every program.
std::optional<std::string> unmatched_task_reason(const Scenario& scenario, std::string_view point,
                                                 const std::string& vertex, int32_t subtask);

}  // namespace eosim::scenarios
