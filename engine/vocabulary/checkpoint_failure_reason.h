#pragma once
// Why a checkpoint (or a request for one) failed: the catalogue of Flink's CheckpointFailureReason,
// with Flink's names. Every abort in the coordinator carries one; reports, the timeline and the
// checkpoint statistics show it, and CheckpointFailureManager decides by it whether the failure
// counts toward tolerable_failures (counts_toward_tolerable_failures(), as Flink's
// CheckpointFailureManager.checkFailureCounter does).
//
// Reasons eosim produces today: checkpoint_expired (timeout), checkpoint_subsumed (a newer one
// completed), checkpoint_declined (a task's synchronous snapshot failed, e.g. a sink could not
// pre-commit), checkpoint_declined_task_not_ready (a source was not running yet),
// checkpoint_declined_subsumed (a barrier of a newer checkpoint arrived during alignment),
// checkpoint_async_exception (a task could not upload its state), finalize_checkpoint_failure (the
// metadata could not be written), io_exception (the checkpoint id could not be made durable: the
// storage failed while triggering), checkpoint_coordinator_suspend (failover),
// checkpoint_coordinator_shutdown (the job ended), too_many_checkpoint_requests and
// minimum_time_between_checkpoints (requests the queue dropped). The others are listed so that
// later work (unaligned checkpoints, savepoints) names its failures the same way.
#include <cstdint>

namespace eosim::engine {

enum class CheckpointFailureReason : uint8_t {
    periodic_scheduler_shutdown,
    too_many_concurrent_checkpoints,
    too_many_checkpoint_requests,
    minimum_time_between_checkpoints,
    not_all_required_tasks_running,
    io_exception,
    checkpoint_async_exception,
    channel_state_shared_stream_exception,
    checkpoint_expired,
    checkpoint_subsumed,
    checkpoint_declined,
    checkpoint_declined_task_not_ready,
    checkpoint_declined_task_closing,
    checkpoint_declined_task_not_checkpointing,
    checkpoint_declined_alignment_limit_exceeded,
    checkpoint_declined_on_cancellation_barrier,
    checkpoint_declined_subsumed,
    checkpoint_declined_input_end_of_stream,
    checkpoint_coordinator_shutdown,
    checkpoint_coordinator_suspend,
    job_failure,
    job_failover_region,
    task_failure,
    task_checkpoint_failure,
    unknown_task_checkpoint_notification_failure,
    trigger_checkpoint_failure,
    finalize_checkpoint_failure,
};

// Every reason, in declaration order (for tests and reports that list them all).
inline constexpr CheckpointFailureReason kAllCheckpointFailureReasons[] = {
    CheckpointFailureReason::periodic_scheduler_shutdown,
    CheckpointFailureReason::too_many_concurrent_checkpoints,
    CheckpointFailureReason::too_many_checkpoint_requests,
    CheckpointFailureReason::minimum_time_between_checkpoints,
    CheckpointFailureReason::not_all_required_tasks_running,
    CheckpointFailureReason::io_exception,
    CheckpointFailureReason::checkpoint_async_exception,
    CheckpointFailureReason::channel_state_shared_stream_exception,
    CheckpointFailureReason::checkpoint_expired,
    CheckpointFailureReason::checkpoint_subsumed,
    CheckpointFailureReason::checkpoint_declined,
    CheckpointFailureReason::checkpoint_declined_task_not_ready,
    CheckpointFailureReason::checkpoint_declined_task_closing,
    CheckpointFailureReason::checkpoint_declined_task_not_checkpointing,
    CheckpointFailureReason::checkpoint_declined_alignment_limit_exceeded,
    CheckpointFailureReason::checkpoint_declined_on_cancellation_barrier,
    CheckpointFailureReason::checkpoint_declined_subsumed,
    CheckpointFailureReason::checkpoint_declined_input_end_of_stream,
    CheckpointFailureReason::checkpoint_coordinator_shutdown,
    CheckpointFailureReason::checkpoint_coordinator_suspend,
    CheckpointFailureReason::job_failure,
    CheckpointFailureReason::job_failover_region,
    CheckpointFailureReason::task_failure,
    CheckpointFailureReason::task_checkpoint_failure,
    CheckpointFailureReason::unknown_task_checkpoint_notification_failure,
    CheckpointFailureReason::trigger_checkpoint_failure,
    CheckpointFailureReason::finalize_checkpoint_failure,
};

// Flink's enum constant name, e.g. "CHECKPOINT_EXPIRED".
const char* to_string(CheckpointFailureReason reason);
// Flink's message for the reason, e.g. "Checkpoint expired before completing."
const char* description(CheckpointFailureReason reason);
// Whether a failure for this reason counts toward tolerable_failures (Flink: IO_EXCEPTION,
// CHECKPOINT_ASYNC_EXCEPTION, CHECKPOINT_DECLINED and CHECKPOINT_EXPIRED do; every other is
// ignored).
bool counts_toward_tolerable_failures(CheckpointFailureReason reason);

}  // namespace eosim::engine
