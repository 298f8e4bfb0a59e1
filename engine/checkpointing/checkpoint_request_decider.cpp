#include "engine/checkpointing/checkpoint_request_decider.h"

#include "sim/invariant.h"

namespace eosim::engine {

CheckpointRequestDecider::CheckpointRequestDecider(int32_t max_concurrent, sim::Duration min_pause,
                                                   size_t max_queued)
    : max_concurrent_(max_concurrent), min_pause_(min_pause), max_queued_(max_queued) {
    EOSIM_INVARIANT(max_queued > 0, "a request queue holds at least one request");
}

CheckpointRequestDecider::Decision CheckpointRequestDecider::submit(CheckpointRequest request,
                                                                    const Situation& now) {
    Decision decision;
    request.sequence = next_sequence_++;
    if (queued() >= max_queued_ && periodic_.empty()) {
        // Only savepoints wait: keep them, refuse the newcomer.
        decision.dropped.emplace_back(request,
                                      CheckpointFailureReason::too_many_checkpoint_requests);
        return decision;
    }
    queue_of(request).push_back(request);
    if (queued() > max_queued_) {
        decision.dropped.emplace_back(pop_last(),
                                      CheckpointFailureReason::too_many_checkpoint_requests);
    }
    EOSIM_INVARIANT(queued() <= max_queued_, "the request queue never holds more than its bound");
    choose(now, decision);
    return decision;
}

CheckpointRequestDecider::Decision CheckpointRequestDecider::next(const Situation& now) {
    Decision decision;
    choose(now, decision);
    return decision;
}

void CheckpointRequestDecider::choose(const Situation& now, Decision& decision) {
    if (now.triggering || queued() == 0) return;
    if (now.pending >= max_concurrent_) {
        if (first().forced()) decision.execute = pop_first();
        return;
    }
    if (!first().forced()) {
        const sim::Time allowed = now.last_completion + min_pause_;
        if (now.now < allowed) {
            decision.dropped.emplace_back(
                pop_first(), CheckpointFailureReason::minimum_time_between_checkpoints);
            decision.reschedule_periodic_in = allowed - now.now;
            return;
        }
    }
    decision.execute = pop_first();
}

std::vector<CheckpointRequest> CheckpointRequestDecider::clear() {
    std::vector<CheckpointRequest> dropped(savepoints_.begin(), savepoints_.end());
    dropped.insert(dropped.end(), periodic_.begin(), periodic_.end());
    savepoints_.clear();
    periodic_.clear();
    return dropped;
}

std::deque<CheckpointRequest>& CheckpointRequestDecider::queue_of(
    const CheckpointRequest& request) {
    return request.kind == CheckpointRequestKind::savepoint ? savepoints_ : periodic_;
}

const CheckpointRequest& CheckpointRequestDecider::first() const {
    EOSIM_INVARIANT(queued() > 0, "a request is taken from a non-empty queue");
    return savepoints_.empty() ? periodic_.front() : savepoints_.front();
}

CheckpointRequest CheckpointRequestDecider::pop_first() {
    EOSIM_INVARIANT(queued() > 0, "a request is taken from a non-empty queue");
    std::deque<CheckpointRequest>& queue = savepoints_.empty() ? periodic_ : savepoints_;
    CheckpointRequest request = queue.front();
    queue.pop_front();
    return request;
}

CheckpointRequest CheckpointRequestDecider::pop_last() {
    EOSIM_INVARIANT(queued() > 0, "a request is taken from a non-empty queue");
    std::deque<CheckpointRequest>& queue = periodic_.empty() ? savepoints_ : periodic_;
    CheckpointRequest request = queue.back();
    queue.pop_back();
    return request;
}

}  // namespace eosim::engine
