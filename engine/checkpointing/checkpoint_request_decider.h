#pragma once
// Which checkpoint request runs next, after Flink's CheckpointRequestDecider.
//
// Requests queue in priority order: savepoints (user-submitted, forced) before periodic
// checkpoints, each kind in order of arrival. At most `max_queued` requests wait (Flink: 1000);
// past that the newest periodic request is dropped first, and a new request is refused only when
// every queued one is a savepoint (TOO_MANY_CHECKPOINT_REQUESTS). The first request runs when
// nothing is being triggered and fewer than `max_concurrent` checkpoints are pending (a forced one
// runs regardless of the pending ones); a periodic one that comes before `min_pause` has passed
// since the last completion is dropped (MINIMUM_TIME_BETWEEN_CHECKPOINTS) and the periodic trigger
// is rescheduled to exactly that moment.
//
// It does not trigger anything itself and holds no timers: the coordinator asks it on every new
// request and whenever a slot may have freed (a trigger, completion or abort finished).
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "engine/vocabulary/checkpoint_failure_reason.h"
#include "engine/vocabulary/snapshot_type.h"
#include "sim/time.h"

namespace eosim::engine {

enum class CheckpointRequestKind : uint8_t { periodic, savepoint };

struct CheckpointRequest {
    CheckpointRequestKind kind = CheckpointRequestKind::periodic;
    uint64_t sequence = 0;    // order of arrival, set by the decider
    SnapshotType snapshot{};  // savepoint: which one (intermediate, or the final one of a stop)
    int32_t user_request =
        -1;  // savepoint: the user's request it serves (Engine::savepoint_requests)
    bool forced() const { return kind == CheckpointRequestKind::savepoint; }
};

class CheckpointRequestDecider {
public:
    static constexpr size_t kDefaultMaxQueuedRequests = 1000;

    // The coordinator's view at the moment of a decision.
    struct Situation {
        bool triggering = false;  // a trigger is under way (its id is being made durable)
        int32_t pending = 0;      // checkpoints triggered and not yet completed or aborted
        sim::Time now;
        sim::Time last_completion;
    };
    struct Decision {
        std::optional<CheckpointRequest> execute;
        std::vector<std::pair<CheckpointRequest, CheckpointFailureReason>> dropped;
        std::optional<sim::Duration> reschedule_periodic_in;  // the periodic trigger's next firing
    };

    CheckpointRequestDecider(int32_t max_concurrent, sim::Duration min_pause,
                             size_t max_queued = kDefaultMaxQueuedRequests);

    // A new request: queue it, then choose.
    Decision submit(CheckpointRequest request, const Situation& now);
    // A slot may have freed: choose among the queued requests.
    Decision next(const Situation& now);
    // Drops every queued request (the coordinator stops).
    std::vector<CheckpointRequest> clear();
    size_t queued() const { return savepoints_.size() + periodic_.size(); }

private:
    void choose(const Situation& now, Decision& decision);
    std::deque<CheckpointRequest>& queue_of(const CheckpointRequest& request);
    const CheckpointRequest& first() const;
    CheckpointRequest pop_first();
    CheckpointRequest pop_last();

    int32_t max_concurrent_;
    sim::Duration min_pause_;
    size_t max_queued_;
    uint64_t next_sequence_ = 0;
    std::deque<CheckpointRequest> savepoints_;  // first in priority
    std::deque<CheckpointRequest> periodic_;
};

}  // namespace eosim::engine
