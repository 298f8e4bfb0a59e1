// Barrier handlers replayed against the sequences of Flink's AlignedCheckpointsTest,
// UnalignedCheckpointsTest, AlternatingCheckpointsTest and CheckpointBarrierTrackerTest: aborts
// and cancellation markers (in-band, from a declining upstream task), checkpoints the coordinator
// aborted before their first barrier came, end of partition, unaligned checkpoints and the
// aligned-checkpoint timeout. Two sequences with an abort notice that overtook the barriers
// have a section of their own.
#include <catch2/catch.hpp>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/checkpointing/barrier_tracker.h"
#include "engine/checkpointing/single_checkpoint_barrier_handler.h"

namespace eosim::engine {
namespace {

// Records every call a handler makes, as "what:value" strings, and the channels it keeps blocked.
class RecordingController final : public BarrierHandlerController {
public:
    sim::Time now() const override { return clock; }
    sim::Time clock;  // the tests move it by hand
    void block_channel(int32_t channel) override {
        log("block", channel);
        blocked.insert(channel);
        ever_blocked.insert(channel);
    }
    void unblock_all_channels() override {
        calls.push_back("unblock_all");
        blocked.clear();
    }
    void trigger_snapshot(int64_t checkpoint_id) override {
        log("snapshot", checkpoint_id);
        snapshots.push_back(checkpoint_id);
    }
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason,
                          const std::string&) override {
        log("decline", checkpoint_id);
        declines.push_back(checkpoint_id);
    }
    void start_unaligned_snapshot(int64_t checkpoint_id,
                                  const std::vector<bool>& barrier_in) override {
        std::string in;
        for (bool b : barrier_in) in += b ? '1' : '0';
        calls.push_back("unaligned:" + std::to_string(checkpoint_id) + ":" + in);
        snapshots.push_back(checkpoint_id);
    }
    void channel_barrier_received(int32_t channel) override { log("channel_done", channel); }
    void finish_unaligned_snapshot(int64_t checkpoint_id) override { log("finish", checkpoint_id); }
    void discard_unaligned_snapshot(int64_t checkpoint_id) override {
        log("discard", checkpoint_id);
    }
    void start_alignment_timer(int64_t checkpoint_id, sim::Duration delay) override {
        log("timer", checkpoint_id);
        timer_delay = delay;
    }

    std::vector<std::string> calls;
    std::set<int32_t> blocked;
    std::set<int32_t> ever_blocked;
    std::vector<int64_t> snapshots;
    std::vector<int64_t> declines;
    sim::Duration timer_delay = sim::Duration::zero();

private:
    void log(const char* what, int64_t value) {
        calls.push_back(std::string(what) + ":" + std::to_string(value));
    }
};

using Calls = std::vector<std::string>;

std::unique_ptr<BarrierHandler> aligned(int32_t channels, RecordingController& controller) {
    return make_barrier_handler(CheckpointingMode::exactly_once, channels, controller);
}
std::unique_ptr<BarrierHandler> tracker(int32_t channels, RecordingController& controller) {
    return make_barrier_handler(CheckpointingMode::at_least_once, channels, controller);
}
std::unique_ptr<BarrierHandler> unaligned(int32_t channels, RecordingController& controller) {
    return make_barrier_handler(CheckpointingMode::exactly_once, AlignmentMode::unaligned,
                                sim::Duration::zero(), channels, controller);
}
std::unique_ptr<BarrierHandler> alternating(int32_t channels, RecordingController& controller) {
    return make_barrier_handler(CheckpointingMode::exactly_once,
                                AlignmentMode::aligned_then_unaligned, sim::Duration::millis(200),
                                channels, controller);
}
CheckpointBarrier priority(int64_t checkpoint_id) { return CheckpointBarrier{checkpoint_id, true}; }

// ---- an abort notice that overtook the barriers ------------------------------------------------

TEST_CASE(
    "flink sequences: an abort notice ahead of the first barrier cancels the checkpoint, nothing blocks",
    "[barrier-sequences]") {
    for (bool at_least_once : {false, true}) {
        RecordingController controller;
        auto handler = at_least_once ? tracker(3, controller) : aligned(3, controller);
        handler->checkpoint_aborted(4);
        handler->barrier_received(2, 4);
        // (data on channel 2 would be read now: it is not blocked)
        CHECK(controller.blocked.empty());
        handler->barrier_received(0, 4);
        CHECK(controller.ever_blocked.empty());
        handler->barrier_received(1, 4);
        CHECK(controller.snapshots.empty());
        CHECK(controller.declines.empty());  // the coordinator aborted it: no decline goes back
        CHECK(handler->pending_checkpoint() == 0);
        // The next checkpoint is taken as usual.
        for (int32_t c = 0; c < 3; ++c) handler->barrier_received(c, 5);
        CHECK(controller.snapshots == std::vector<int64_t>{5});
    }
}

TEST_CASE("flink sequences: abort(7) then barrier 7 on every channel snapshots nothing",
          "[barrier-sequences]") {
    for (bool at_least_once : {false, true}) {
        RecordingController controller;
        auto handler = at_least_once ? tracker(2, controller) : aligned(2, controller);
        handler->checkpoint_aborted(7);
        handler->barrier_received(0, 7);
        handler->barrier_received(1, 7);
        CHECK(controller.snapshots.empty());
        CHECK(controller.ever_blocked.empty());
    }
}

// ---- aborts ------------------------------------------------------------------------------------

TEST_CASE("flink sequences: an abort notice of a newer checkpoint leaves the older alignment alone",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = aligned(2, controller);
    handler->barrier_received(0, 3);
    handler->checkpoint_aborted(4);  // overtook barriers of 3 and 4
    CHECK(handler->pending_checkpoint() == 3);
    CHECK(controller.blocked == std::set<int32_t>{0});
    handler->barrier_received(1, 3);
    CHECK(controller.snapshots == std::vector<int64_t>{3});
    handler->barrier_received(0, 4);
    handler->barrier_received(1, 4);
    CHECK(controller.snapshots == std::vector<int64_t>{3});
    CHECK(controller.calls == Calls{"block:0", "unblock_all", "snapshot:3"});
}

TEST_CASE("flink sequences: aborted ids are remembered until a barrier passes them",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = aligned(2, controller);
    handler->checkpoint_aborted(5);
    handler->checkpoint_aborted(6);
    // 5's barriers never came (its sources declined): 6 is cancelled too when its barriers come.
    handler->barrier_received(0, 6);
    handler->barrier_received(1, 6);
    handler->barrier_received(0, 7);
    handler->barrier_received(1, 7);
    CHECK(controller.snapshots == std::vector<int64_t>{7});
    CHECK(controller.ever_blocked == std::set<int32_t>{0});
}

// ---- cancellation markers (Flink's CancelCheckpointMarker) -------------------------------------

TEST_CASE(
    "flink sequences: a cancellation marker during alignment releases the channels and declines once",
    "[barrier-sequences]") {
    RecordingController controller;
    auto handler = aligned(3, controller);
    handler->barrier_received(0, 1);
    handler->cancellation_marker_received(1, 1);
    CHECK(controller.blocked.empty());
    CHECK(controller.declines ==
          std::vector<int64_t>{1});  // and told downstream, by the controller
    handler->barrier_received(2, 1);
    handler->cancellation_marker_received(2, 1);
    CHECK(controller.declines == std::vector<int64_t>{1});
    CHECK(controller.snapshots.empty());
    for (int32_t c = 0; c < 3; ++c) handler->barrier_received(c, 2);
    CHECK(controller.snapshots == std::vector<int64_t>{2});
}

TEST_CASE(
    "flink sequences: a cancellation marker of a newer checkpoint declines the older and the newer",
    "[barrier-sequences]") {
    RecordingController controller;
    auto handler = aligned(2, controller);
    handler->barrier_received(0, 1);
    handler->cancellation_marker_received(1, 2);
    CHECK(controller.declines == std::vector<int64_t>{1, 2});
    CHECK(controller.blocked.empty());
    handler->barrier_received(0, 2);
    CHECK(controller.ever_blocked == std::set<int32_t>{0});  // only from checkpoint 1
    CHECK(handler->pending_checkpoint() == 0);
}

TEST_CASE("flink sequences: a cancellation marker ahead of any barrier cancels the checkpoint",
          "[barrier-sequences]") {
    for (bool at_least_once : {false, true}) {
        RecordingController controller;
        auto handler = at_least_once ? tracker(2, controller) : aligned(2, controller);
        handler->cancellation_marker_received(0, 3);
        CHECK(controller.declines == std::vector<int64_t>{3});
        handler->barrier_received(1, 3);
        handler->cancellation_marker_received(1, 3);
        CHECK(controller.declines == std::vector<int64_t>{3});
        CHECK(controller.snapshots.empty());
        CHECK(controller.ever_blocked.empty());
    }
}

TEST_CASE("flink sequences: the tracker drops a counted checkpoint on its cancellation marker",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = tracker(2, controller);
    handler->barrier_received(0, 1);
    handler->cancellation_marker_received(1, 1);
    CHECK(controller.declines == std::vector<int64_t>{1});
    handler->barrier_received(1, 1);
    CHECK(controller.snapshots.empty());
}

// ---- end of partition --------------------------------------------------------------------------

TEST_CASE(
    "flink sequences: end of partition completes an alignment that only waited for that channel",
    "[barrier-sequences]") {
    for (bool at_least_once : {false, true}) {
        RecordingController controller;
        auto handler = at_least_once ? tracker(3, controller) : aligned(3, controller);
        handler->barrier_received(0, 1);
        handler->barrier_received(1, 1);
        handler->end_of_partition(2);
        CHECK(controller.snapshots == std::vector<int64_t>{1});
        CHECK(controller.blocked.empty());
        // The closed channel no longer takes part.
        handler->barrier_received(1, 2);
        handler->barrier_received(0, 2);
        CHECK(controller.snapshots == std::vector<int64_t>{1, 2});
    }
}

TEST_CASE(
    "flink sequences: a channel that closes after delivering its barrier leaves the alignment waiting",
    "[barrier-sequences]") {
    RecordingController controller;
    auto handler = aligned(3, controller);
    handler->barrier_received(0, 1);
    handler->end_of_partition(0);
    CHECK(handler->pending_checkpoint() == 1);
    CHECK(controller.snapshots.empty());
    handler->barrier_received(1, 1);
    handler->barrier_received(2, 1);
    CHECK(controller.snapshots == std::vector<int64_t>{1});
}

// ---- unaligned ---------------------------------------------------------------------------------

TEST_CASE("flink sequences: unaligned snapshots on the first barrier and completes on the last",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = unaligned(3, controller);
    handler->barrier_received(1, priority(1));
    CHECK(handler->collecting_unaligned(1));
    handler->barrier_received(0, priority(1));
    handler->barrier_received(2, priority(1));
    CHECK(controller.calls ==
          Calls{"unaligned:1:010", "channel_done:0", "channel_done:2", "finish:1"});
    CHECK(controller.ever_blocked.empty());
    CHECK(handler->pending_checkpoint() == 0);
    // A single remaining channel completes at once.
    handler->end_of_partition(2);
    handler->barrier_received(0, priority(2));
    handler->barrier_received(1, priority(2));
    CHECK(controller.snapshots == std::vector<int64_t>{1, 2});
}

TEST_CASE("flink sequences: an aborted unaligned checkpoint drops its channel state",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = unaligned(2, controller);
    handler->barrier_received(0, priority(1));
    handler->barrier_received(1, priority(2));  // 1's barrier was skipped on channel 1
    CHECK(controller.calls == Calls{"unaligned:1:10", "decline:1", "discard:1", "unaligned:2:01"});
    handler->checkpoint_aborted(2);
    CHECK(controller.calls.back() == "discard:2");
    CHECK_FALSE(handler->collecting_unaligned(2));
}

// ---- aligned with a timeout (Flink's AlternatingCheckpointsTest) -------------------------------

TEST_CASE("flink sequences: an alignment that times out switches to unaligned",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = alternating(3, controller);
    handler->barrier_received(0, 1);
    CHECK(controller.timer_delay == sim::Duration::millis(200));
    handler->barrier_received(2, 1);
    handler->alignment_timed_out(1);
    CHECK(handler->collecting_unaligned(1));
    handler->barrier_received(1, 1);
    CHECK(controller.calls == Calls{"block:0", "timer:1", "block:2", "unblock_all",
                                    "unaligned:1:101", "channel_done:1", "finish:1"});
    // The next checkpoint starts aligned again; a late timer of the old one does nothing.
    handler->barrier_received(1, 2);
    handler->alignment_timed_out(1);
    CHECK(controller.blocked == std::set<int32_t>{1});
    handler->barrier_received(0, 2);
    handler->barrier_received(2, 2);
    CHECK(controller.calls.back() == "snapshot:2");
}

TEST_CASE("flink sequences: a barrier an upstream sent unaligned switches the alignment",
          "[barrier-sequences]") {
    RecordingController controller;
    auto handler = alternating(2, controller);
    handler->barrier_received(0, 1);
    handler->barrier_received(1, priority(1));
    CHECK(controller.calls ==
          Calls{"block:0", "timer:1", "unblock_all", "unaligned:1:11", "finish:1"});
    // First barrier already unaligned: no alignment at all.
    handler->barrier_received(1, priority(2));
    CHECK(controller.calls.back() == "unaligned:2:01");
    CHECK(handler->collecting_unaligned(2));
}

TEST_CASE("AlignedCheckpointsTest.testAbortOnCanceledBarriers", "[barrier-sequences][flink]") {
    // A cancellation marker aborts the checkpoint being aligned (once); its late barrier is ignored
    // and the next checkpoint aligns and completes as usual.
    RecordingController controller;
    auto handler = aligned(3, controller);
    handler->barrier_received(1, 1);
    handler->cancellation_marker_received(0, 1);
    CHECK(controller.declines == std::vector<int64_t>{1});
    CHECK(controller.blocked.empty());
    handler->barrier_received(1, 2);
    handler->barrier_received(2, 1);  // already cancelled here, and 2 started
    CHECK(controller.blocked == std::set<int32_t>{1});
    handler->barrier_received(0, 2);
    handler->barrier_received(2, 2);
    CHECK(controller.snapshots == std::vector<int64_t>{2});
    CHECK(controller.declines == std::vector<int64_t>{1});
    CHECK(controller.blocked.empty());
}

TEST_CASE("AlternatingCheckpointsTest.testTimeoutAlignmentBeforeFirstBarrier",
          "[barrier-sequences][flink]") {
    // The timeout counts from the checkpoint's start: a first barrier that arrives after it starts
    // the checkpoint unaligned at once, nothing blocks, no timer is set.
    RecordingController controller;
    auto handler = alternating(2, controller);
    controller.clock = sim::Time::zero() + sim::Duration::millis(201);
    handler->barrier_received(0, CheckpointBarrier{1, false, sim::Time::zero()});
    CHECK(controller.calls == Calls{"unaligned:1:10"});
    CHECK(handler->collecting_unaligned(1));
    handler->barrier_received(1, CheckpointBarrier{1, false, sim::Time::zero()});
    CHECK(controller.calls.back() == "finish:1");
    CHECK(controller.ever_blocked.empty());
}

TEST_CASE("AlternatingCheckpointsTest.testAlignedAfterTimedOut", "[barrier-sequences][flink]") {
    // One channel: checkpoint 1's barrier comes after its timeout (unaligned), checkpoint 2's
    // within it (aligned again).
    RecordingController controller;
    auto handler = alternating(1, controller);
    controller.clock = sim::Time::zero() + sim::Duration::millis(201);
    handler->barrier_received(0, CheckpointBarrier{1, false, sim::Time::zero()});
    handler->barrier_received(0, CheckpointBarrier{2, false, controller.clock});
    CHECK(controller.calls == Calls{"unaligned:1:1", "finish:1", "snapshot:2"});
}

TEST_CASE(
    "flink sequences: the alignment timer runs for what is left of the timeout since the checkpoint started",
    "[barrier-sequences]") {
    RecordingController controller;
    auto handler = alternating(2, controller);
    controller.clock =
        sim::Time::zero() + sim::Duration::millis(150);  // the barrier took 150 ms to come
    handler->barrier_received(0, CheckpointBarrier{1, false, sim::Time::zero()});
    CHECK(controller.calls == Calls{"block:0", "timer:1"});
    CHECK(controller.timer_delay == sim::Duration::millis(50));
}

}  // namespace
}  // namespace eosim::engine
