#pragma once
// How the checkpoint coordinator reaches the running job (Flink: the coordinator talks to the
// executions through a gateway, never to the TaskManagers themselves). The runtime implements it
// (engine/runtime/engine.h, Engine::execution_gateway); nothing in engine/checkpointing includes
// the runtime's engine, JobManager or TaskManager.
//
// The calls to TaskManagers are best-effort datagrams from the JobManager on `from`, for the tasks
// of `attempt` on the TaskManager on `to`; a coordinator's own callbacks find it again through
// `coordinator_on`, since a crashed JobManager process is gone and its callbacks must not run.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/vocabulary/deployment.h"
#include "engine/vocabulary/engine_stats.h"
#include "engine/vocabulary/job_spec.h"
#include "engine/vocabulary/run_observer.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/world.h"

namespace eosim::engine {

class CheckpointCoordinator;

class ExecutionGateway {
public:
    virtual ~ExecutionGateway() = default;
    virtual sim::World& world() = 0;
    virtual const JobSpec& job() const = 0;
    virtual RunObserver& observer() = 0;
    virtual EngineStats& stats() = 0;
    // The coordinator of JobManager process `instance` on `node`; nullptr once that process is
    // gone.
    virtual CheckpointCoordinator* coordinator_on(sim::NodeId node, uint64_t instance) = 0;
    // `started`: the checkpoint's trigger time, which its barriers carry (Flink's barrier
    // timestamp); `tasks`: the (vertex, subtask) pairs on `to` to trigger (checkpoint_plan.h).
    virtual void trigger_checkpoint(sim::NodeId from, sim::NodeId to, int64_t attempt,
                                    int64_t checkpoint_id, SnapshotType snapshot, sim::Time started,
                                    std::vector<std::pair<int32_t, int32_t>> tasks) = 0;
    virtual void notify_checkpoint_complete(sim::NodeId from, sim::NodeId to, int64_t attempt,
                                            int64_t checkpoint_id) = 0;
    virtual void notify_checkpoint_aborted(sim::NodeId from, sim::NodeId to, int64_t attempt,
                                           int64_t checkpoint_id) = 0;
    // The user's savepoint request `index` (-1: none) completed with `savepoint`.
    virtual void savepoint_completed(int32_t index, const CompletedCheckpoint& savepoint) = 0;
    // HA: JobManager process `instance` on `node` gives its leadership up for `reason`; false when
    // it leads through no election (then nothing happened).
    virtual bool resign_leadership(sim::NodeId node, uint64_t instance,
                                   const std::string& reason) = 0;
};

}  // namespace eosim::engine
