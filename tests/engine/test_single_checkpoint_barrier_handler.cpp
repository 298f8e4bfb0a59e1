// SingleCheckpointBarrierHandler in aligned mode
// (engine/checkpointing/single_checkpoint_barrier_handler.h), driven through a fake controller that
// records every call. Hand-written transitions first, then a "massive random" property (after
// Flink's *MassiveRandomTest): random interleavings of barriers over N FIFO channels, where a
// blocked channel is never read, must only ever snapshot complete, strictly increasing checkpoints
// with no channel blocked.
#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/checkpointing/single_checkpoint_barrier_handler.h"

namespace eosim::engine {
namespace {

// Records every call the aligner makes, and the set of channels it keeps blocked.
class HandlerController final : public BarrierHandlerController {
public:
    sim::Time now() const override { return clock; }
    sim::Time clock;  // the tests move it by hand
    struct Call {
        std::string what;  // "block", "unblock_all", "snapshot", "abort"
        int64_t value;     // the channel or the checkpoint id (-1 for unblock_all)
        bool operator==(const Call&) const = default;
    };

    void block_channel(int32_t channel) override {
        calls.push_back({"block", channel});
        blocked.insert(channel);
    }
    void unblock_all_channels() override {
        calls.push_back({"unblock_all", -1});
        blocked.clear();
    }
    void trigger_snapshot(int64_t checkpoint_id) override {
        calls.push_back({"snapshot", checkpoint_id});
        blocked_at_snapshot.push_back(static_cast<int32_t>(blocked.size()));
        snapshots.push_back(checkpoint_id);
    }
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason reason,
                          const std::string& detail) override {
        calls.push_back({"abort", checkpoint_id});
        aborts.push_back(checkpoint_id);
        abort_reasons.push_back(detail);
        abort_failure_reasons.push_back(reason);
    }

    std::vector<Call> calls;
    std::set<int32_t> blocked;
    std::vector<int64_t> snapshots;
    std::vector<int32_t>
        blocked_at_snapshot;  // channels still blocked when each snapshot was taken
    std::vector<int64_t> aborts;
    std::vector<std::string> abort_reasons;
    std::vector<CheckpointFailureReason> abort_failure_reasons;
};

using Call = HandlerController::Call;

TEST_CASE("aligner: a single channel snapshots at once, without blocking", "[aligner]") {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(1, AlignmentMode::aligned, sim::Duration::zero(),
                                           controller);
    aligner.barrier_received(0, 1);
    CHECK(controller.snapshots == std::vector<int64_t>{1});
    CHECK(std::none_of(controller.calls.begin(), controller.calls.end(),
                       [](const Call& c) { return c.what == "block"; }));
    CHECK(controller.blocked.empty());
    CHECK(aligner.pending_checkpoint() == 0);
    aligner.barrier_received(0, 2);
    CHECK(controller.snapshots == std::vector<int64_t>{1, 2});
}

TEST_CASE(
    "aligner: blocks each channel that delivered its barrier, snapshots and unblocks on the last",
    "[aligner]") {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(3, AlignmentMode::aligned, sim::Duration::zero(),
                                           controller);
    aligner.barrier_received(1, 7);
    CHECK(controller.blocked == std::set<int32_t>{1});
    CHECK(aligner.pending_checkpoint() == 7);
    CHECK(controller.snapshots.empty());
    aligner.barrier_received(0, 7);
    CHECK(controller.blocked == std::set<int32_t>{0, 1});
    CHECK(controller.snapshots.empty());
    aligner.barrier_received(2, 7);
    CHECK(controller.snapshots == std::vector<int64_t>{7});
    CHECK(controller.blocked.empty());
    CHECK(controller.blocked_at_snapshot ==
          std::vector<int32_t>{0});  // unblocked before the snapshot
    CHECK(aligner.pending_checkpoint() == 0);
    CHECK(controller.calls ==
          std::vector<Call>{{"block", 1}, {"block", 0}, {"unblock_all", -1}, {"snapshot", 7}});
    CHECK(controller.aborts.empty());

    // The next checkpoint aligns the same way.
    aligner.barrier_received(2, 8);
    aligner.barrier_received(0, 8);
    aligner.barrier_received(1, 8);
    CHECK(controller.snapshots == std::vector<int64_t>{7, 8});
}

TEST_CASE(
    "aligner: a newer barrier during alignment aborts the older checkpoint and aligns the new one",
    "[aligner]") {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(3, AlignmentMode::aligned, sim::Duration::zero(),
                                           controller);
    aligner.barrier_received(0, 3);
    aligner.barrier_received(1, 3);
    REQUIRE(controller.blocked == std::set<int32_t>{0, 1});
    // Channel 2 skipped checkpoint 3 (its upstream declined it) and delivers 4.
    aligner.barrier_received(2, 4);
    CHECK(controller.aborts == std::vector<int64_t>{3});
    CHECK(aligner.pending_checkpoint() == 4);
    CHECK(controller.blocked == std::set<int32_t>{2});  // 0 and 1 were released, 2 holds for 4
    CHECK(controller.snapshots.empty());
    aligner.barrier_received(0, 4);
    aligner.barrier_received(1, 4);
    CHECK(controller.snapshots == std::vector<int64_t>{4});
    CHECK(controller.blocked.empty());
}

TEST_CASE("aligner: late barriers of an older checkpoint are ignored", "[aligner]") {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(2, AlignmentMode::aligned, sim::Duration::zero(),
                                           controller);
    aligner.barrier_received(0, 1);
    aligner.barrier_received(1, 2);  // aborts 1, collects 2
    REQUIRE(controller.aborts == std::vector<int64_t>{1});
    const size_t calls_before = controller.calls.size();
    aligner.barrier_received(1, 1);  // a late barrier of the aborted checkpoint
    CHECK(controller.calls.size() == calls_before);
    CHECK(aligner.pending_checkpoint() == 2);
    aligner.barrier_received(0, 2);
    CHECK(controller.snapshots == std::vector<int64_t>{2});

    // After a completed checkpoint, a barrier of it or an older one changes nothing.
    const size_t after_snapshot = controller.calls.size();
    aligner.barrier_received(0, 2);
    aligner.barrier_received(1, 1);
    CHECK(controller.calls.size() == after_snapshot);
    CHECK(aligner.pending_checkpoint() == 0);
}

TEST_CASE("aligner: checkpoint_aborted during alignment unblocks and returns to waiting",
          "[aligner]") {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(3, AlignmentMode::aligned, sim::Duration::zero(),
                                           controller);
    aligner.barrier_received(0, 5);
    aligner.barrier_received(2, 5);
    REQUIRE(controller.blocked == std::set<int32_t>{0, 2});

    aligner.checkpoint_aborted(4);  // not the one being aligned: nothing happens
    CHECK(controller.blocked == std::set<int32_t>{0, 2});
    CHECK(aligner.pending_checkpoint() == 5);

    aligner.checkpoint_aborted(5);
    CHECK(controller.blocked.empty());
    CHECK(aligner.pending_checkpoint() == 0);
    CHECK(controller.aborts.empty());  // the coordinator aborted it: no decline goes back
    aligner.barrier_received(1, 5);    // the remaining barrier arrives late: ignored
    CHECK(controller.snapshots.empty());
    CHECK(controller.blocked.empty());

    // The next checkpoint aligns from scratch.
    aligner.barrier_received(1, 6);
    aligner.barrier_received(0, 6);
    aligner.barrier_received(2, 6);
    CHECK(controller.snapshots == std::vector<int64_t>{6});
}

TEST_CASE("aligner: a second barrier of the same checkpoint on one channel throws", "[aligner]") {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(2, AlignmentMode::aligned, sim::Duration::zero(),
                                           controller);
    aligner.barrier_received(0, 1);
    CHECK_THROWS_AS(aligner.barrier_received(0, 1), std::logic_error);
    try {
        aligner.barrier_received(0, 1);
    } catch (const std::logic_error& e) {
        CHECK(std::string(e.what()).find("channel 0") != std::string::npos);
    }
}

TEST_CASE(
    "aligner: make_barrier_handler picks the single-checkpoint handler for exactly-once and the tracker for at-least-once",
    "[aligner]") {
    HandlerController controller;
    CHECK(
        std::string(make_barrier_handler(CheckpointingMode::exactly_once, 2, controller)->name()) ==
        "single-checkpoint");
    CHECK(std::string(
              make_barrier_handler(CheckpointingMode::at_least_once, 2, controller)->name()) ==
          "tracker");
}

// ---- massive random
// -------------------------------------------------------------------------------

// One element of an input channel: a barrier, or a record (which the aligner never sees but which
// takes a turn, so that barriers of different channels interleave differently).
struct Element {
    bool barrier;
    int64_t checkpoint_id;
};

struct RandomRun {
    int32_t channels;
    std::vector<std::deque<Element>> queues;
};

// Drives the aligner the way a task does: picks at random a channel that is not blocked and has
// something queued, or (sometimes, and always when nothing can be read) delivers the coordinator's
// abort of the checkpoint being aligned. Checks the invariants after every step.
void drive(RandomRun run, bool allow_aborts) {
    HandlerController controller;
    SingleCheckpointBarrierHandler aligner(run.channels, AlignmentMode::aligned,
                                           sim::Duration::zero(), controller);
    std::map<int64_t, std::set<int32_t>>
        delivered;  // checkpoint -> channels whose barrier was handed over
    std::set<int64_t> aborted_by_coordinator;
    int64_t last_snapshot = 0;
    size_t snapshots_seen = 0;
    for (int guard = 0; guard < 100000; ++guard) {
        std::vector<int32_t> readable;
        for (int32_t c = 0; c < run.channels; ++c) {
            if (!controller.blocked.contains(c) && !run.queues[static_cast<size_t>(c)].empty())
                readable.push_back(c);
        }
        const int64_t pending = aligner.pending_checkpoint();
        const bool abort_now =
            pending != 0 && (readable.empty() || (allow_aborts && *rc::gen::inRange(0, 20) == 0));
        if (abort_now) {
            aborted_by_coordinator.insert(pending);
            aligner.checkpoint_aborted(pending);
            RC_ASSERT(controller.blocked.empty());
            RC_ASSERT(aligner.pending_checkpoint() == 0);
        } else if (readable.empty()) {
            break;  // everything delivered
        } else {
            const int32_t channel =
                readable[static_cast<size_t>(*rc::gen::inRange<size_t>(0, readable.size()))];
            const Element element = run.queues[static_cast<size_t>(channel)].front();
            run.queues[static_cast<size_t>(channel)].pop_front();
            if (element.barrier) {
                delivered[element.checkpoint_id].insert(channel);
                aligner.barrier_received(channel, element.checkpoint_id);
            }
        }
        // Invariants after every step.
        for (; snapshots_seen < controller.snapshots.size(); ++snapshots_seen) {
            const int64_t id = controller.snapshots[snapshots_seen];
            RC_ASSERT(id > last_snapshot);  // strictly increasing
            last_snapshot = id;
            RC_ASSERT(static_cast<int32_t>(delivered[id].size()) ==
                      run.channels);                                         // every barrier in
            RC_ASSERT(controller.blocked_at_snapshot[snapshots_seen] == 0);  // nothing blocked
            RC_ASSERT(!aborted_by_coordinator.contains(id));
        }
        // Blocked channels are exactly those that delivered the barrier being aligned.
        const int64_t now_pending = aligner.pending_checkpoint();
        if (now_pending == 0) {
            RC_ASSERT(controller.blocked.empty());
        } else {
            RC_ASSERT(controller.blocked == delivered[now_pending]);
            RC_ASSERT(static_cast<int32_t>(controller.blocked.size()) < run.channels);
        }
    }
    for (const auto& queue : run.queues) RC_ASSERT(queue.empty());
    // Every decline names a checkpoint that was being aligned and was not snapshotted.
    for (int64_t id : controller.aborts) {
        RC_ASSERT(std::find(controller.snapshots.begin(), controller.snapshots.end(), id) ==
                  controller.snapshots.end());
    }
}

// Channels each carry barriers for a random increasing subset of checkpoint ids (an upstream task
// that declined a checkpoint sends no barrier for it), with records in between.
rc::Gen<RandomRun> random_run(bool every_channel_gets_every_barrier) {
    return rc::gen::exec([every_channel_gets_every_barrier] {
        RandomRun run;
        run.channels = *rc::gen::inRange(1, 7);
        const int64_t checkpoints = *rc::gen::inRange<int64_t>(1, 12);
        run.queues.resize(static_cast<size_t>(run.channels));
        for (auto& queue : run.queues) {
            for (int64_t id = 1; id <= checkpoints; ++id) {
                const int records = *rc::gen::inRange(0, 4);
                for (int r = 0; r < records; ++r) queue.push_back(Element{false, 0});
                if (every_channel_gets_every_barrier || *rc::gen::inRange(0, 5) != 0)
                    queue.push_back(Element{true, id});
            }
        }
        return run;
    });
}

TEST_CASE(
    "aligner massive random: snapshots are complete, strictly increasing, and never while blocked",
    "[aligner]") {
    rc::prop("random barrier interleavings with skipped barriers and coordinator aborts",
             [] { drive(*random_run(false), true); });
}

TEST_CASE(
    "aligner massive random: with every barrier delivered and no aborts, every checkpoint is snapshotted",
    "[aligner]") {
    rc::prop("complete barrier sets align to a snapshot each, in order", [] {
        const RandomRun run = *random_run(true);
        const auto checkpoints =
            static_cast<int64_t>(std::count_if(run.queues[0].begin(), run.queues[0].end(),
                                               [](const Element& e) { return e.barrier; }));
        HandlerController controller;
        SingleCheckpointBarrierHandler aligner(run.channels, AlignmentMode::aligned,
                                               sim::Duration::zero(), controller);
        RandomRun state = run;
        while (true) {
            std::vector<int32_t> readable;
            for (int32_t c = 0; c < state.channels; ++c) {
                if (!controller.blocked.contains(c) &&
                    !state.queues[static_cast<size_t>(c)].empty())
                    readable.push_back(c);
            }
            if (readable.empty()) break;
            const int32_t channel =
                readable[static_cast<size_t>(*rc::gen::inRange<size_t>(0, readable.size()))];
            const Element element = state.queues[static_cast<size_t>(channel)].front();
            state.queues[static_cast<size_t>(channel)].pop_front();
            if (element.barrier) aligner.barrier_received(channel, element.checkpoint_id);
        }
        std::vector<int64_t> expected;
        for (int64_t id = 1; id <= checkpoints; ++id) expected.push_back(id);
        RC_ASSERT(controller.snapshots == expected);
        RC_ASSERT(controller.aborts.empty());
        RC_ASSERT(controller.blocked.empty());
        for (const auto& queue : state.queues) RC_ASSERT(queue.empty());
    });
}

}  // namespace
}  // namespace eosim::engine
