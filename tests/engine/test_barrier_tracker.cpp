// BarrierTracker (engine/barrier_tracker.h): the at-least-once barrier handler. It never blocks a
// channel, snapshots when a checkpoint's barrier count reaches the number of channels, drops older
// checkpoints when a newer one completes, tracks at most kMaxTracked checkpoints, forgets an
// aborted one, and ignores a late first barrier of a checkpoint older than the newest one seen.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/checkpointing/barrier_tracker.h"

namespace eosim::engine {
namespace {

class TrackerController final : public BarrierHandlerController {
public:
    sim::Time now() const override { return clock; }
    sim::Time clock;  // the tests move it by hand
    void block_channel(int32_t) override { ++blocks; }
    void unblock_all_channels() override { ++unblocks; }
    void trigger_snapshot(int64_t checkpoint_id) override { snapshots.push_back(checkpoint_id); }
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason,
                          const std::string&) override {
        aborts.push_back(checkpoint_id);
    }

    int blocks = 0;
    int unblocks = 0;
    std::vector<int64_t> snapshots;
    std::vector<int64_t> aborts;
};

TEST_CASE("tracker: never blocks a channel and snapshots when the count reaches the channels",
          "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(3, controller);
    tracker.barrier_received(0, 1);
    tracker.barrier_received(2, 1);
    CHECK(controller.snapshots.empty());
    CHECK(tracker.pending_checkpoint() == 1);
    tracker.barrier_received(1, 1);
    CHECK(controller.snapshots == std::vector<int64_t>{1});
    CHECK(tracker.pending_checkpoint() == 0);
    CHECK(controller.blocks == 0);
    CHECK(controller.aborts.empty());
    CHECK(std::string(tracker.name()) == "tracker");
}

TEST_CASE("tracker: single channel snapshots at once", "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(1, controller);
    tracker.barrier_received(0, 1);
    tracker.barrier_received(0, 2);
    CHECK(controller.snapshots == std::vector<int64_t>{1, 2});
}

TEST_CASE("tracker: several checkpoints are counted at once", "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(2, controller);
    tracker.barrier_received(0, 1);
    tracker.barrier_received(0, 2);  // channel 0 runs ahead: the tracker does not block it
    tracker.barrier_received(0, 3);
    CHECK(tracker.pending_checkpoint() == 3);
    tracker.barrier_received(1, 1);
    CHECK(controller.snapshots == std::vector<int64_t>{1});
    tracker.barrier_received(1, 2);
    tracker.barrier_received(1, 3);
    CHECK(controller.snapshots == std::vector<int64_t>{1, 2, 3});
    CHECK(controller.blocks == 0);
}

TEST_CASE("tracker: a later checkpoint completing drops the earlier ones", "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(2, controller);
    tracker.barrier_received(0, 1);  // channel 1 skips checkpoint 1
    tracker.barrier_received(0, 2);
    tracker.barrier_received(1, 2);
    CHECK(controller.snapshots == std::vector<int64_t>{2});
    CHECK(tracker.pending_checkpoint() == 0);  // 1 was dropped with 2's completion
    tracker.barrier_received(1, 1);            // a late barrier of 1: can no longer complete
    CHECK(controller.snapshots == std::vector<int64_t>{2});
    CHECK(tracker.pending_checkpoint() == 0);
    tracker.barrier_received(0, 2);  // and a repeated barrier of a completed one is ignored
    CHECK(controller.snapshots == std::vector<int64_t>{2});
}

TEST_CASE("tracker: at most kMaxTracked checkpoints are tracked, the oldest is dropped",
          "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(2, controller);
    const auto max = static_cast<int64_t>(BarrierTracker::kMaxTracked);
    for (int64_t id = 1; id <= max + 1; ++id) tracker.barrier_received(0, id);
    CHECK(tracker.pending_checkpoint() == max + 1);
    // Checkpoint 1 fell out of the deque: its second barrier starts a fresh count and completes
    // nothing.
    tracker.barrier_received(1, 1);
    CHECK(controller.snapshots.empty());
    // Checkpoint 3 is still tracked with one barrier: the second completes it.
    tracker.barrier_received(1, 3);
    CHECK(controller.snapshots == std::vector<int64_t>{3});
    // The newest is still tracked too.
    tracker.barrier_received(1, max + 1);
    CHECK(controller.snapshots == std::vector<int64_t>{3, max + 1});
    CHECK(tracker.pending_checkpoint() == 0);
}

TEST_CASE("tracker: an aborted checkpoint is forgotten", "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(2, controller);
    tracker.barrier_received(0, 1);
    tracker.barrier_received(0, 2);
    tracker.checkpoint_aborted(2);
    CHECK(tracker.pending_checkpoint() == 1);
    tracker.checkpoint_aborted(1);
    CHECK(tracker.pending_checkpoint() == 0);
    // 1's count was forgotten: one more barrier does not complete it.
    tracker.barrier_received(1, 1);
    CHECK(controller.snapshots.empty());
    // Aborting an unknown checkpoint is harmless.
    tracker.checkpoint_aborted(42);
    tracker.barrier_received(0, 3);
    tracker.barrier_received(1, 3);
    CHECK(controller.snapshots == std::vector<int64_t>{3});
}

// Flink's CheckpointBarrierTracker starts a count only for a checkpoint newer than every one seen
// (an older checkpoint can no longer complete: the channel that delivered the newer barrier skipped
// it). Inserting the old one in the middle of a full deque would evict the oldest tracked
// checkpoint for it, which can be one that would still complete.
TEST_CASE("tracker: a late first barrier of an old checkpoint does not evict a completable one",
          "[tracker]") {
    TrackerController controller;
    BarrierTracker tracker(2, controller);
    const auto max = static_cast<int64_t>(BarrierTracker::kMaxTracked);
    for (int64_t id = 1; id <= max + 1; ++id)
        tracker.barrier_received(0, id);  // 1 falls out; 2..max+1 tracked
    tracker.barrier_received(1, 1);       // late: checkpoint 1 cannot complete any more
    tracker.barrier_received(1, 2);       // checkpoint 2 has both barriers now
    CHECK(controller.snapshots == std::vector<int64_t>{2});
}

TEST_CASE(
    "tracker massive random: snapshots only complete checkpoints, strictly increasing, never blocking",
    "[tracker]") {
    rc::prop("random barrier interleavings over FIFO channels", [] {
        const int32_t channels = *rc::gen::inRange(1, 6);
        const int64_t checkpoints = *rc::gen::inRange<int64_t>(1, 15);
        std::vector<std::vector<int64_t>> queues(static_cast<size_t>(channels));
        for (auto& queue : queues) {
            for (int64_t id = 1; id <= checkpoints; ++id) {
                if (*rc::gen::inRange(0, 4) != 0) queue.push_back(id);
            }
        }
        TrackerController controller;
        BarrierTracker tracker(channels, controller);
        std::vector<size_t> next(queues.size(), 0);
        std::vector<std::vector<int32_t>> delivered(static_cast<size_t>(checkpoints + 1));
        while (true) {
            std::vector<int32_t> readable;
            for (int32_t c = 0; c < channels; ++c) {
                if (next[static_cast<size_t>(c)] < queues[static_cast<size_t>(c)].size())
                    readable.push_back(c);
            }
            if (readable.empty()) break;
            const int32_t c =
                readable[static_cast<size_t>(*rc::gen::inRange<size_t>(0, readable.size()))];
            const int64_t id = queues[static_cast<size_t>(c)][next[static_cast<size_t>(c)]++];
            delivered[static_cast<size_t>(id)].push_back(c);
            tracker.barrier_received(c, id);
        }
        RC_ASSERT(controller.blocks == 0);
        int64_t last = 0;
        for (int64_t id : controller.snapshots) {
            RC_ASSERT(id > last);
            last = id;
            RC_ASSERT(static_cast<int32_t>(delivered[static_cast<size_t>(id)].size()) == channels);
        }
        // Every checkpoint whose barriers all arrived, and that no newer completed one overtook, is
        // snapshotted.
        for (int64_t id = 1; id <= checkpoints; ++id) {
            if (static_cast<int32_t>(delivered[static_cast<size_t>(id)].size()) != channels)
                continue;
            const bool snapshotted =
                std::find(controller.snapshots.begin(), controller.snapshots.end(), id) !=
                controller.snapshots.end();
            const bool newer_completed_first =
                std::any_of(controller.snapshots.begin(), controller.snapshots.end(),
                            [&](int64_t s) { return s > id; });
            RC_ASSERT(snapshotted || newer_completed_first);
        }
    });
}

}  // namespace
}  // namespace eosim::engine
