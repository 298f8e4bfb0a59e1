// CheckpointRequestDecider (engine/checkpoint_request_decider.h), mirroring the cases of Flink's
// CheckpointRequestDeciderTest (written from our knowledge of that test class: the Flink sources
// were read for the failure manager, not for this one). Savepoints do not exist in eosim yet: the
// savepoint kind here is the test-only request the brief asks for, and is forced as Flink's are.
#include <catch2/catch.hpp>

#include "engine/checkpointing/checkpoint_request_decider.h"

namespace eosim::engine {
namespace {

using sim::Duration;
using sim::Time;
using Situation = CheckpointRequestDecider::Situation;

constexpr CheckpointRequest kPeriodic{CheckpointRequestKind::periodic};
constexpr CheckpointRequest kSavepoint{CheckpointRequestKind::savepoint};

Situation idle(Time now = Time::zero() + Duration::seconds(10)) {
    return Situation{false, 0, now, Time::zero()};
}
Situation busy(int32_t pending, Time now = Time::zero() + Duration::seconds(10)) {
    return Situation{false, pending, now, Time::zero()};
}

// Flink: testSimpleTrigger -- nothing pending, nothing queued: the request runs at once.
TEST_CASE("decider: a request runs at once when a slot is free", "[decider]") {
    CheckpointRequestDecider decider(1, Duration::zero());
    const auto decision = decider.submit(kPeriodic, idle());
    REQUIRE(decision.execute);
    CHECK(decision.execute->kind == CheckpointRequestKind::periodic);
    CHECK(decision.dropped.empty());
    CHECK(decider.queued() == 0);
}

// Flink: testNonForcedEnqueueOnTooManyPending -- a periodic request waits while max concurrent
// checkpoints are pending, and runs when asked again after a slot freed.
TEST_CASE("decider: a periodic request waits for a slot and runs when one frees", "[decider]") {
    CheckpointRequestDecider decider(1, Duration::zero());
    CHECK_FALSE(decider.submit(kPeriodic, busy(1)).execute);
    CHECK(decider.queued() == 1);
    CHECK_FALSE(decider.next(busy(1)).execute);
    const auto decision = decider.next(busy(0));
    REQUIRE(decision.execute);
    CHECK(decider.queued() == 0);
}

// Flink: testForce -- a forced request (a savepoint) runs even with max concurrent pending.
TEST_CASE("decider: a savepoint runs even when max concurrent checkpoints are pending",
          "[decider]") {
    CheckpointRequestDecider decider(1, Duration::zero());
    const auto decision = decider.submit(kSavepoint, busy(1));
    REQUIRE(decision.execute);
    CHECK(decision.execute->kind == CheckpointRequestKind::savepoint);
}

// Flink: testEnqueueOnTooManyPending / isTriggering -- nothing runs while a trigger is under way.
TEST_CASE("decider: nothing runs while a trigger is under way, not even a savepoint", "[decider]") {
    CheckpointRequestDecider decider(3, Duration::zero());
    Situation triggering = idle();
    triggering.triggering = true;
    CHECK_FALSE(decider.submit(kSavepoint, triggering).execute);
    CHECK_FALSE(decider.submit(kPeriodic, triggering).execute);
    CHECK(decider.queued() == 2);
    const auto decision = decider.next(idle());
    REQUIRE(decision.execute);
    CHECK(decision.execute->kind == CheckpointRequestKind::savepoint);
}

// Flink: testUserSubmittedPrioritized -- queued savepoints go before queued periodic checkpoints,
// each kind in order of arrival.
TEST_CASE("decider: savepoints before periodic checkpoints, each in order of arrival",
          "[decider]") {
    CheckpointRequestDecider decider(1, Duration::zero());
    Situation triggering = idle();
    triggering.triggering = true;
    decider.submit(kPeriodic, triggering);   // sequence 0
    decider.submit(kSavepoint, triggering);  // 1
    decider.submit(kPeriodic, triggering);   // 2
    decider.submit(kSavepoint, triggering);  // 3
    std::vector<std::pair<CheckpointRequestKind, uint64_t>> order;
    while (decider.queued() > 0) {
        const auto decision = decider.next(idle());
        REQUIRE(decision.execute);
        order.emplace_back(decision.execute->kind, decision.execute->sequence);
    }
    using K = CheckpointRequestKind;
    CHECK(order == std::vector<std::pair<K, uint64_t>>{
                       {K::savepoint, 1}, {K::savepoint, 3}, {K::periodic, 0}, {K::periodic, 2}});
}

// Flink: testQueueSizeLimit -- past the limit, the newest periodic request is dropped with
// TOO_MANY_CHECKPOINT_REQUESTS; Flink's limit is 1000.
TEST_CASE("decider: at most max_queued requests wait, the newest periodic one is dropped first",
          "[decider]") {
    CHECK(CheckpointRequestDecider::kDefaultMaxQueuedRequests == 1000);
    CheckpointRequestDecider decider(1, Duration::zero());
    for (size_t i = 0; i < 1000; ++i) CHECK(decider.submit(kPeriodic, busy(1)).dropped.empty());
    CHECK(decider.queued() == 1000);
    const auto decision = decider.submit(kPeriodic, busy(1));
    REQUIRE(decision.dropped.size() == 1);
    CHECK(decision.dropped[0].first.sequence ==
          1000);  // the newcomer itself: it is the newest periodic
    CHECK(decision.dropped[0].second == CheckpointFailureReason::too_many_checkpoint_requests);
    CHECK(decider.queued() == 1000);
}

// Flink: testQueueSizeLimitPriority -- a savepoint arriving at a full queue pushes out the newest
// periodic request; once only savepoints wait, a new request is refused.
TEST_CASE("decider: a full queue keeps savepoints and drops periodic requests first", "[decider]") {
    CheckpointRequestDecider decider(1, Duration::zero(), 3);
    Situation triggering = idle();
    triggering.triggering = true;
    decider.submit(kPeriodic, triggering);                   // 0
    decider.submit(kPeriodic, triggering);                   // 1
    decider.submit(kPeriodic, triggering);                   // 2
    auto decision = decider.submit(kSavepoint, triggering);  // 3 pushes out periodic 2
    REQUIRE(decision.dropped.size() == 1);
    CHECK(decision.dropped[0].first.sequence == 2);
    decider.submit(kSavepoint, triggering);  // 4 pushes out 1
    decider.submit(kSavepoint, triggering);  // 5 pushes out 0
    CHECK(decider.queued() == 3);
    decision = decider.submit(kSavepoint, triggering);  // 6: only savepoints wait: refused
    REQUIRE(decision.dropped.size() == 1);
    CHECK(decision.dropped[0].first.sequence == 6);
    CHECK(decision.dropped[0].second == CheckpointFailureReason::too_many_checkpoint_requests);
    decision = decider.submit(kPeriodic, triggering);  // 7: refused too
    REQUIRE(decision.dropped.size() == 1);
    CHECK(decision.dropped[0].first.sequence == 7);
    std::vector<uint64_t> left;
    while (decider.queued() > 0) left.push_back(decider.next(idle()).execute->sequence);
    CHECK(left == std::vector<uint64_t>{3, 4, 5});
}

// Flink: testPeriodicTiming / testSavepointTiming -- a periodic request before min pause has passed
// since the last completion is dropped (MINIMUM_TIME_BETWEEN_CHECKPOINTS) and the periodic trigger
// rescheduled to exactly that moment; a savepoint is not held back.
TEST_CASE(
    "decider: min pause drops an early periodic request and reschedules exactly, savepoints ignore it",
    "[decider]") {
    CheckpointRequestDecider decider(1, Duration::millis(700));
    const Time completed = Time::zero() + Duration::seconds(5);
    Situation early{false, 0, completed + Duration::millis(250), completed};
    auto decision = decider.submit(kPeriodic, early);
    CHECK_FALSE(decision.execute);
    REQUIRE(decision.dropped.size() == 1);
    CHECK(decision.dropped[0].second == CheckpointFailureReason::minimum_time_between_checkpoints);
    REQUIRE(decision.reschedule_periodic_in);
    CHECK(*decision.reschedule_periodic_in == Duration::millis(450));
    CHECK(decider.queued() == 0);

    decision = decider.submit(kSavepoint, early);
    CHECK(decision.execute);

    Situation on_time{false, 0, completed + Duration::millis(700), completed};
    decision = decider.submit(kPeriodic, on_time);
    CHECK(decision.execute);
    CHECK_FALSE(decision.reschedule_periodic_in);
}

TEST_CASE("decider: clear drops every queued request", "[decider]") {
    CheckpointRequestDecider decider(1, Duration::zero());
    decider.submit(kPeriodic, busy(1));
    decider.submit(kPeriodic, busy(1));
    REQUIRE(decider.queued() == 2);
    CHECK(decider.clear().size() == 2);
    CHECK(decider.queued() == 0);
    CHECK_FALSE(decider.next(idle()).execute);
}

}  // namespace
}  // namespace eosim::engine
