#pragma once
// The figures of a run (engine/runtime/engine.h), kept outside the processes so that crashes do
// not erase them. Pure data: the checkpoint coordinator counts into it through its gateway.
#include <cstdint>
#include <map>

#include "engine/vocabulary/checkpoint_failure_reason.h"

namespace eosim::engine {

// Figures of a run, kept outside the processes so that crashes do not erase them.
struct EngineStats {
    int64_t checkpoints_triggered = 0;
    int64_t checkpoints_completed = 0;
    int64_t checkpoints_aborted = 0;
    std::map<CheckpointFailureReason, int64_t> checkpoints_aborted_by_reason;
    int64_t checkpoint_trigger_failures =
        0;  // the id could not be made durable (also counted as aborted)
    // Checkpoint files the coordinator deleted (or is deleting): aborted checkpoints' state, late
    // acknowledgements' state, completed checkpoints past `retained`.
    int64_t checkpoint_files_discarded = 0;
    int64_t checkpoint_bytes_discarded = 0;
    int64_t failovers = 0;  // every failover (what the restart strategy's max_attempts counts)
    // Restarts as Flink's numRestarts reads to a user: failovers, less those of a restarted attempt
    // that never got every task running (engine/runtime/job_manager.cpp: one TaskManager loss is
    // one restart).
    int64_t restarts = 0;
    int64_t records_read = 0;
    int64_t checkpoints_stored = 0;  // HA: pointers added to the completed-checkpoint store
    int64_t checkpoint_store_refusals =
        0;  // HA: adds the service refused (fenced, expired session, write errors)
    int64_t fenced_messages =
        0;  // JobManager messages a TaskManager refused (a deposed leader's, or a standby's)
    int64_t leaderships = 0;  // times a JobManager was granted leadership (HA)
    int64_t deployments_refused =
        0;  // HA: deployments not sent because the fenced check before them failed
    int64_t savepoints_completed = 0;
    // Incremental state: shared files uploaded by completed checkpoints, and referred to by them.
    int64_t shared_bytes_uploaded = 0;
    int64_t shared_bytes_referenced = 0;
    int64_t shared_files_discarded = 0;
};

}  // namespace eosim::engine
