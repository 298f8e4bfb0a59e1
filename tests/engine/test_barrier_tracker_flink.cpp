// The at-least-once BarrierTracker replayed against Flink's CheckpointBarrierTrackerTest cases for
// finished channels (end of partition, FLIP-147) and cancellation markers. Each TEST_CASE names the
// Flink test method whose sequence and expectations it mirrors (channels numbered as there).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/checkpointing/barrier_tracker.h"

namespace eosim::engine {
namespace {

using Ids = std::vector<int64_t>;

class FlinkTrackerController final : public BarrierHandlerController {
public:
    sim::Time now() const override { return clock; }
    sim::Time clock;  // the tests move it by hand
    void block_channel(int32_t) override { ++blocks; }
    void unblock_all_channels() override {}
    void trigger_snapshot(int64_t checkpoint_id) override { triggered.push_back(checkpoint_id); }
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason,
                          const std::string&) override {
        aborted.push_back(checkpoint_id);
    }

    int blocks = 0;
    Ids triggered;
    Ids aborted;
};

TEST_CASE("CheckpointBarrierTrackerTest.testDeduplicateChannelsWithBothBarrierAndEndOfPartition",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.barrier_received(0, 2);
    tracker.barrier_received(1, 2);
    tracker.end_of_partition(1);  // channel 1 already delivered: it must not count twice
    CHECK(controller.triggered.empty());
    CHECK(controller.aborted.empty());
    tracker.barrier_received(2, 2);
    CHECK(controller.triggered == Ids{2});
}

TEST_CASE("CheckpointBarrierTrackerTest.testTriggerCheckpointsWithEndOfPartition",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.barrier_received(0, 1);
    tracker.barrier_received(0, 2);
    tracker.barrier_received(1, 2);
    tracker.barrier_received(0, 3);
    tracker.barrier_received(0, 4);
    tracker.barrier_received(1, 4);
    tracker.barrier_received(1, 5);
    tracker.end_of_partition(2);
    // Only 4 completes; the older ones are subsumed, 5 still waits for channel 0.
    CHECK(controller.triggered == Ids{4});
    CHECK(controller.aborted.empty());
    CHECK(tracker.tracked_checkpoints() == Ids{5});
    CHECK(tracker.open_channels() == 2);
}

TEST_CASE("CheckpointBarrierTrackerTest.testTriggerCheckpointsAfterReceivedEndOfPartition",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.end_of_partition(2);
    tracker.barrier_received(0, 5);
    tracker.barrier_received(0, 6);
    tracker.barrier_received(1, 6);
    tracker.end_of_partition(1);
    tracker.barrier_received(0, 7);
    CHECK(controller.triggered == Ids{6, 7});
    CHECK(controller.aborted.empty());
}

TEST_CASE("CheckpointBarrierTrackerTest.testNoFastPathWithChannelFinishedDuringCheckpoints",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(2, controller);
    tracker.barrier_received(0, 1);
    tracker.end_of_partition(0);
    tracker.barrier_received(1, 1);
    // The last barrier finishes the pending checkpoint instead of starting a "new" one.
    CHECK(controller.triggered == Ids{1});
    CHECK(tracker.pending_checkpoint() == 0);
    CHECK(tracker.tracked_checkpoints().empty());
}

TEST_CASE("CheckpointBarrierTrackerTest.testNoFastPathWithChannelFinishedDuringCheckpointsCancel",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(2, controller);
    tracker.barrier_received(0, 1);
    tracker.end_of_partition(0);
    tracker.cancellation_marker_received(1, 1);
    CHECK(controller.aborted == Ids{1});
    CHECK(controller.triggered.empty());
    CHECK(tracker.tracked_checkpoints().empty());
}

TEST_CASE("CheckpointBarrierTrackerTest.testCompleteAndRemoveAbortedCheckpointWithEndOfPartition",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.cancellation_marker_received(0, 4);
    tracker.barrier_received(1, 4);
    tracker.barrier_received(1, 5);
    tracker.end_of_partition(2);
    CHECK(controller.aborted == Ids{4});
    CHECK(controller.triggered.empty());
    CHECK(tracker.tracked_checkpoints() == Ids{5});
    CHECK(tracker.open_channels() == 2);
}

TEST_CASE("CheckpointBarrierTrackerTest.testAbortCheckpointsAfterEndOfPartitionReceived",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.end_of_partition(2);
    tracker.barrier_received(0, 5);
    tracker.barrier_received(0, 6);
    tracker.cancellation_marker_received(1, 6);  // aborts 6 and the older 5 still counting
    tracker.end_of_partition(1);
    tracker.cancellation_marker_received(0, 7);
    CHECK(controller.aborted == Ids{5, 6, 7});
    CHECK(controller.triggered.empty());
}

TEST_CASE("CheckpointBarrierTrackerTest.testInterleavedCancellationBarriers", "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.barrier_received(0, 1);
    tracker.cancellation_marker_received(0, 2);
    tracker.cancellation_marker_received(1, 1);
    tracker.cancellation_marker_received(1, 2);
    tracker.cancellation_marker_received(2, 1);
    tracker.cancellation_marker_received(2, 2);
    // Each checkpoint aborted once.
    CHECK(controller.aborted == Ids{1, 2});
    CHECK(controller.triggered.empty());
}

TEST_CASE("CheckpointBarrierTrackerTest.testMultiChannelAbortCheckpoint", "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(3, controller);
    for (int32_t c : {1, 2, 0}) tracker.barrier_received(c, 1);
    tracker.barrier_received(0, 2);
    tracker.barrier_received(2, 2);
    tracker.cancellation_marker_received(1, 2);  // aborted on its last barrier
    for (int32_t c : {1, 2, 0}) tracker.barrier_received(c, 3);
    tracker.cancellation_marker_received(1, 4);  // aborted on its first barrier
    tracker.barrier_received(2, 4);
    tracker.barrier_received(0, 4);
    for (int32_t c : {2, 1, 0}) tracker.barrier_received(c, 5);
    tracker.cancellation_marker_received(1, 6);
    tracker.cancellation_marker_received(2, 6);
    tracker.barrier_received(0, 6);
    CHECK(controller.triggered == Ids{1, 3, 5});
    CHECK(controller.aborted == Ids{2, 4, 6});
    CHECK(controller.blocks == 0);
}

TEST_CASE("CheckpointBarrierTrackerTest.testNextFirstCheckpointBarrierOvertakesCancellationBarrier",
          "[tracker][flink]") {
    FlinkTrackerController controller;
    BarrierTracker tracker(2, controller);
    tracker.barrier_received(1, 1);
    tracker.barrier_received(1, 2);
    tracker.cancellation_marker_received(0, 1);  // older than the newest seen: 1 aborted, 2 goes on
    tracker.barrier_received(0, 2);
    CHECK(controller.triggered == Ids{2});
    CHECK(controller.aborted == Ids{1});
}

}  // namespace
}  // namespace eosim::engine
