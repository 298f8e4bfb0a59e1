#include "engine/vocabulary/checkpoint_failure_reason.h"

namespace eosim::engine {

namespace {

struct ReasonText {
    const char* name;
    const char* description;
};

ReasonText text_of(CheckpointFailureReason reason) {
    using R = CheckpointFailureReason;
    switch (reason) {
        case R::periodic_scheduler_shutdown:
            return {"PERIODIC_SCHEDULER_SHUTDOWN", "Periodic checkpoint scheduler is shut down."};
        case R::too_many_concurrent_checkpoints:
            return {"TOO_MANY_CONCURRENT_CHECKPOINTS",
                    "The maximum number of concurrent checkpoints is exceeded."};
        case R::too_many_checkpoint_requests:
            return {"TOO_MANY_CHECKPOINT_REQUESTS",
                    "The maximum number of queued checkpoint requests exceeded."};
        case R::minimum_time_between_checkpoints:
            return {"MINIMUM_TIME_BETWEEN_CHECKPOINTS",
                    "The minimum time between checkpoints is still pending."};
        case R::not_all_required_tasks_running:
            return {"NOT_ALL_REQUIRED_TASKS_RUNNING",
                    "Not all required tasks are currently running."};
        case R::io_exception:
            return {"IO_EXCEPTION", "An Exception occurred while triggering the checkpoint."};
        case R::checkpoint_async_exception:
            return {"CHECKPOINT_ASYNC_EXCEPTION", "Asynchronous task checkpoint failed."};
        case R::channel_state_shared_stream_exception:
            return {
                "CHANNEL_STATE_SHARED_STREAM_EXCEPTION",
                "The checkpoint was aborted due to exception of other subtasks sharing the ChannelState file."};
        case R::checkpoint_expired:
            return {"CHECKPOINT_EXPIRED", "Checkpoint expired before completing."};
        case R::checkpoint_subsumed:
            return {"CHECKPOINT_SUBSUMED", "Checkpoint has been subsumed."};
        case R::checkpoint_declined: return {"CHECKPOINT_DECLINED", "Checkpoint was declined."};
        case R::checkpoint_declined_task_not_ready:
            return {"CHECKPOINT_DECLINED_TASK_NOT_READY",
                    "Checkpoint was declined (tasks not ready)."};
        case R::checkpoint_declined_task_closing:
            return {"CHECKPOINT_DECLINED_TASK_CLOSING",
                    "Checkpoint was declined (task is closing)."};
        case R::checkpoint_declined_task_not_checkpointing:
            return {"CHECKPOINT_DECLINED_TASK_NOT_CHECKPOINTING",
                    "Task does not support checkpointing."};
        case R::checkpoint_declined_alignment_limit_exceeded:
            return {
                "CHECKPOINT_DECLINED_ALIGNMENT_LIMIT_EXCEEDED",
                "The checkpoint alignment phase needed to buffer more than the configured maximum bytes."};
        case R::checkpoint_declined_on_cancellation_barrier:
            return {"CHECKPOINT_DECLINED_ON_CANCELLATION_BARRIER",
                    "Task received cancellation from one of its inputs."};
        case R::checkpoint_declined_subsumed:
            return {
                "CHECKPOINT_DECLINED_SUBSUMED",
                "Checkpoint was canceled because a barrier from newer checkpoint was received."};
        case R::checkpoint_declined_input_end_of_stream:
            return {"CHECKPOINT_DECLINED_INPUT_END_OF_STREAM",
                    "Checkpoint was declined because one input stream is finished."};
        case R::checkpoint_coordinator_shutdown:
            return {"CHECKPOINT_COORDINATOR_SHUTDOWN", "CheckpointCoordinator shutdown."};
        case R::checkpoint_coordinator_suspend:
            return {"CHECKPOINT_COORDINATOR_SUSPEND", "Checkpoint Coordinator is suspending."};
        case R::job_failure: return {"JOB_FAILURE", "The job has failed."};
        case R::job_failover_region:
            return {"JOB_FAILOVER_REGION", "FailoverRegion is restarting."};
        case R::task_failure: return {"TASK_FAILURE", "Task has failed."};
        case R::task_checkpoint_failure:
            return {"TASK_CHECKPOINT_FAILURE", "Task local checkpoint failure."};
        case R::unknown_task_checkpoint_notification_failure:
            return {"UNKNOWN_TASK_CHECKPOINT_NOTIFICATION_FAILURE",
                    "Unknown task for the checkpoint to notify."};
        case R::trigger_checkpoint_failure:
            return {"TRIGGER_CHECKPOINT_FAILURE", "Trigger checkpoint failure."};
        case R::finalize_checkpoint_failure:
            return {"FINALIZE_CHECKPOINT_FAILURE", "Failure to finalize checkpoint."};
    }
    return {"UNKNOWN", "Unknown checkpoint failure reason."};
}

}  // namespace

const char* to_string(CheckpointFailureReason reason) { return text_of(reason).name; }

const char* description(CheckpointFailureReason reason) { return text_of(reason).description; }

bool counts_toward_tolerable_failures(CheckpointFailureReason reason) {
    switch (reason) {
        case CheckpointFailureReason::io_exception:
        case CheckpointFailureReason::checkpoint_async_exception:
        case CheckpointFailureReason::checkpoint_declined:
        case CheckpointFailureReason::checkpoint_expired: return true;
        default: return false;
    }
}

}  // namespace eosim::engine
