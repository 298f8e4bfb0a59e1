#pragma once
// At-least-once barrier handling (Flink's CheckpointBarrierTracker): counts the barriers of each
// checkpoint in a bounded deque and snapshots when every channel that was open when the
// checkpoint's first barrier came has delivered it. It never blocks a channel. As in Flink, only a
// checkpoint newer than every one seen so far starts a count (an older one was skipped by some
// channel and can no longer complete), so the deque only grows at its back. When a checkpoint
// completes, older ones still counting are dropped (they are subsumed).
//
// Each count remembers *which* channels delivered (Flink's CheckpointBarrierCount keeps a set):
// a channel whose partition ends (a finished upstream task, FLIP-147) counts as delivered for the
// newest checkpoint it completes and the newer ones, once — a channel that gave its barrier and
// then ended is not counted twice
// (CheckpointBarrierTrackerTest.testDeduplicateChannelsWithBothBarrier- AndEndOfPartition). A
// checkpoint that starts after an end of partition waits for the open channels only.
//
// Cancellation (an in-band marker from an upstream task that declined): every older checkpoint
// still counting is aborted with it, as Flink's processCancellationBarrier does; the cancelled one
// stays in the deque, marked aborted, until its last barrier or marker came, so that its late
// barriers neither start nor complete anything. Like Flink's tracker it also remembers checkpoints
// the coordinator aborted before their first barrier came: their barriers are ignored. Each
// checkpoint is declined downstream at most once.
#include <cstdint>
#include <deque>
#include <set>
#include <vector>

#include "engine/checkpointing/barrier_handler.h"

namespace eosim::engine {

class BarrierTracker final : public BarrierHandler {
public:
    static constexpr size_t kMaxTracked = 50;

    BarrierTracker(int32_t channels, BarrierHandlerController& controller)
        : controller_(controller),
          open_channels_(channels),
          closed_(static_cast<size_t>(channels), false) {}

    void barrier_received(int32_t channel, const CheckpointBarrier& barrier) override;
    using BarrierHandler::barrier_received;
    void cancellation_marker_received(int32_t channel, int64_t checkpoint_id) override;
    void checkpoint_aborted(int64_t checkpoint_id) override;
    void end_of_partition(int32_t channel) override;
    int64_t pending_checkpoint() const override;
    const char* name() const override { return "tracker"; }

    // For tests (Flink's getPendingCheckpointIds, getNumOpenChannels).
    std::vector<int64_t> tracked_checkpoints() const;
    int32_t open_channels() const { return open_channels_; }

private:
    struct Tracked {
        int64_t checkpoint_id;
        int32_t target;  // the channels open when its first barrier (or marker) came
        std::vector<int32_t>
            delivered;         // the channels that delivered (barrier, marker or end of partition)
        bool aborted = false;  // cancelled: counted to the end, never snapshotted

        // Marks `channel` delivered; true when every target channel has.
        bool deliver(int32_t channel);
    };

    // Drops `it` and every older count; snapshots `it` unless it was cancelled.
    void complete(std::deque<Tracked>::iterator it);
    void decline_on_cancellation(int64_t checkpoint_id);

    BarrierHandlerController& controller_;
    int32_t open_channels_;
    std::vector<bool> closed_;  // per channel: its partition ended
    int64_t newest_seen_ =
        0;  // the newest checkpoint whose first barrier (or cancellation) arrived
    std::set<int64_t> aborted_ahead_;  // aborted by the coordinator before their first barrier came
    std::deque<Tracked> tracked_;      // ascending checkpoint ids
};

}  // namespace eosim::engine
