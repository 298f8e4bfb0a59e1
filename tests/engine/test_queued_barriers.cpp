// Timeoutable aligned barriers (Flink 1.14+): the aligned-checkpoint timeout reaches a
// barrier still queued in a channel. The handler sequences follow Flink's
// AlternatingCheckpointsTest (an announced barrier starts the timer, and at the timeout the
// checkpoint goes unaligned before any barrier was taken); the engine runs follow
// PipelinedSubpartitionWithReadViewTest's story through the real job: a queued barrier is converted
// at the timeout and overtakes the buffers before it, which become channel state and are replayed
// on restore (exactly-once holds); a barrier that reaches the head in time stays aligned; a
// checkpoint without the timeout is unaffected.
#include <catch2/catch.hpp>

#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/checkpointing/single_checkpoint_barrier_handler.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace eosim::engine {
namespace {

class TimerController final : public BarrierHandlerController {
public:
    sim::Time now() const override { return clock; }
    void block_channel(int32_t channel) override { log("block", channel); }
    void unblock_all_channels() override { calls.emplace_back("unblock_all"); }
    void trigger_snapshot(int64_t checkpoint_id) override { log("snapshot", checkpoint_id); }
    void abort_checkpoint(int64_t checkpoint_id, CheckpointFailureReason,
                          const std::string&) override {
        log("decline", checkpoint_id);
    }
    void start_unaligned_snapshot(int64_t checkpoint_id,
                                  const std::vector<bool>& barrier_in) override {
        std::string in;
        for (bool b : barrier_in) in += b ? '1' : '0';
        calls.push_back("unaligned:" + std::to_string(checkpoint_id) + ":" + in);
    }
    void channel_barrier_received(int32_t channel) override { log("channel_done", channel); }
    void finish_unaligned_snapshot(int64_t checkpoint_id) override { log("finish", checkpoint_id); }
    void start_alignment_timer(int64_t checkpoint_id, sim::Duration delay) override {
        log("timer", checkpoint_id);
        timer_delay = delay;
    }
    sim::Time clock;
    std::vector<std::string> calls;
    sim::Duration timer_delay = sim::Duration::millis(-1);

private:
    void log(const char* what, int64_t value) {
        calls.push_back(std::string(what) + ":" + std::to_string(value));
    }
};

using Calls = std::vector<std::string>;
const sim::Time kStart = sim::Time::zero() + sim::Duration::millis(1000);
CheckpointBarrier aligned_barrier(int64_t id) { return CheckpointBarrier{id, false, kStart}; }

std::unique_ptr<BarrierHandler> handler_of(AlignmentMode mode, int32_t channels,
                                           TimerController& controller) {
    return make_barrier_handler(CheckpointingMode::exactly_once, mode, sim::Duration::millis(200),
                                channels, controller);
}

TEST_CASE(
    "queued barriers: an announced barrier starts the timer, and at the timeout the checkpoint goes unaligned before any barrier was taken",
    "[queued-barriers]") {
    TimerController controller;
    controller.clock = kStart + sim::Duration::millis(30);
    auto handler = handler_of(AlignmentMode::aligned_then_unaligned, 2, controller);
    handler->barrier_announced(1, aligned_barrier(1));
    CHECK(controller.calls == Calls{"timer:1"});
    CHECK(controller.timer_delay == sim::Duration::millis(170));  // from the checkpoint's start
    CHECK(handler->pending_checkpoint() == 1);
    CHECK(handler->awaiting_first_barrier());
    CHECK_FALSE(handler->collecting_unaligned(1));
    handler->barrier_announced(0,
                               aligned_barrier(1));  // a second announcement sets no second timer
    CHECK(controller.calls == Calls{"timer:1"});
    handler->alignment_timed_out(1);
    CHECK(handler->collecting_unaligned(1));  // the task now takes the queued barriers at once
    handler->barrier_received(1, aligned_barrier(1));
    CHECK_FALSE(handler->awaiting_first_barrier());
    handler->barrier_received(0, aligned_barrier(1));
    CHECK(controller.calls == Calls{"timer:1", "unaligned:1:01", "channel_done:0", "finish:1"});
    // The next checkpoint starts aligned again.
    handler->barrier_received(0, aligned_barrier(2));
    CHECK(controller.calls.back() == "timer:2");
    CHECK_FALSE(handler->collecting_unaligned(2));
}

TEST_CASE("queued barriers: barriers that reach the head before the timeout stay aligned",
          "[queued-barriers]") {
    TimerController controller;
    controller.clock = kStart;
    auto handler = handler_of(AlignmentMode::aligned_then_unaligned, 2, controller);
    handler->barrier_announced(0, aligned_barrier(1));
    handler->barrier_received(0,
                              aligned_barrier(1));  // no second timer for the first barrier taken
    handler->barrier_announced(1, aligned_barrier(1));
    handler->barrier_received(1, aligned_barrier(1));
    CHECK(controller.calls == Calls{"timer:1", "block:0", "unblock_all", "snapshot:1"});
    handler->alignment_timed_out(1);  // late: nothing
    CHECK(controller.calls.size() == 4);
}

TEST_CASE("queued barriers: an announcement after the timeout ran out times out at once",
          "[queued-barriers]") {
    TimerController controller;
    controller.clock = kStart + sim::Duration::millis(450);
    auto handler = handler_of(AlignmentMode::aligned_then_unaligned, 2, controller);
    handler->barrier_announced(0, aligned_barrier(1));
    CHECK(controller.calls == Calls{"timer:1"});
    CHECK(controller.timer_delay == sim::Duration::zero());
}

TEST_CASE("queued barriers: an announcement of a newer checkpoint declines the older pending one",
          "[queued-barriers]") {
    TimerController controller;
    controller.clock = kStart;
    auto handler = handler_of(AlignmentMode::aligned_then_unaligned, 2, controller);
    handler->barrier_received(0, aligned_barrier(1));
    handler->barrier_announced(1, aligned_barrier(2));
    CHECK(controller.calls == Calls{"block:0", "timer:1", "decline:1", "unblock_all", "timer:2"});
    CHECK(handler->pending_checkpoint() == 2);
}

TEST_CASE("queued barriers: without a timeout, announcements change nothing", "[queued-barriers]") {
    for (AlignmentMode mode : {AlignmentMode::aligned, AlignmentMode::unaligned}) {
        TimerController controller;
        controller.clock = kStart;
        auto handler = handler_of(mode, 2, controller);
        handler->barrier_announced(0, aligned_barrier(1));
        CHECK(controller.calls.empty());
        CHECK(handler->pending_checkpoint() == 0);
    }
    TimerController controller;
    auto tracker = make_barrier_handler(CheckpointingMode::at_least_once, 2, controller);
    tracker->barrier_announced(0, aligned_barrier(1));
    CHECK(controller.calls.empty());
}

// ---- through the engine: the catalogue's slow-count job -----------------------------------------

scenarios::Scenario slow_count(const char* file = "queued-barrier-timeout.json") {
    return scenarios::load_scenario(std::filesystem::path(EOSIM_SOURCE_DIR) /
                                    "scenarios/catalogue/checkpointing" / file);
}

double max_start_delay_ms(const scenarios::RunResult& result) {
    double most = 0;
    for (const scenarios::CheckpointStats& c : result.checkpoints) {
        if (c.status == "completed") most = std::max(most, c.max_start_delay_ms);
    }
    return most;
}

TEST_CASE(
    "queued barriers: a queued barrier is converted at the timeout and overtakes the buffers, which become channel state",
    "[queued-barriers]") {
    scenarios::Scenario s = slow_count();
    s.faults = {};
    scenarios::RunOptions options;
    options.seed = 2;
    const scenarios::RunResult result = scenarios::run_scenario(s, options);
    REQUIRE(result.expectation_met);
    CHECK(max_start_delay_ms(result) < 250);
    // Both kinds of queue: a source whose barrier still waited for credit at the timeout sent it
    // ahead (its snapshot unaligned, with output channel state); where every source's barrier left
    // in time, the slow count subtask took it from its input queue at the timeout (input channel
    // state).
    int64_t converted_in_output = 0;
    int64_t converted_in_input = 0;
    for (const scenarios::CheckpointStats& c : result.checkpoints) {
        bool source_overtook = false;
        bool count_converted = false;
        for (const scenarios::CheckpointTaskStats& t : c.tasks) {
            if (t.vertex == "source" && t.unaligned) source_overtook = true;
            if (t.vertex == "count" && t.unaligned && t.start_delay_ms >= 199 &&
                t.channel_state_bytes > 0)
                count_converted = true;
        }
        if (source_overtook) ++converted_in_output;
        if (count_converted && !source_overtook) ++converted_in_input;
    }
    CHECK(converted_in_output > 0);
    CHECK(converted_in_input > 0);
    // Without the conversion (the negative control) the same subtask waits behind its queue.
    s.job.checkpointing.queued_barriers_wait = true;
    const scenarios::RunResult waiting = scenarios::run_scenario(s, options);
    CHECK(max_start_delay_ms(waiting) > 400);
    CHECK(waiting.trace_hash != result.trace_hash);
}

TEST_CASE("queued barriers: the overtaken buffers are replayed on restore and exactly-once holds",
          "[queued-barriers]") {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        scenarios::RunOptions options;
        options.seed = seed;
        const scenarios::RunResult result = scenarios::run_scenario(slow_count(), options);
        INFO("seed " << seed);
        for (const auto& verdict : result.verdicts) {
            INFO(verdict.oracle << ": " << verdict.message);
            CHECK(verdict.passed);
        }
        CHECK(result.figures.restarts >= 1);
        CHECK(result.figures.checkpoints_unaligned > 0);
    }
}

TEST_CASE(
    "queued barriers: without backpressure every timeoutable barrier leaves in time and checkpoints stay aligned",
    "[queued-barriers]") {
    scenarios::Scenario s = slow_count();
    s.faults = {};
    s.job.vertices[1].record_cost = sim::Duration::micros(100);  // the count keeps up
    scenarios::RunOptions options;
    options.seed = 1;
    const scenarios::RunResult result = scenarios::run_scenario(s, options);
    REQUIRE(result.expectation_met);
    CHECK(result.figures.checkpoints_completed > 20);
    CHECK(result.figures.checkpoints_unaligned == 0);
    for (const scenarios::CheckpointStats& c : result.checkpoints) {
        CHECK(c.channel_state_bytes == 0);
        for (const scenarios::CheckpointTaskStats& t : c.tasks)
            CHECK(t.sync_ms < 1);  // the wait for the barrier is not the sync part
    }
}

TEST_CASE("queued barriers: a checkpoint without the timeout is unaffected", "[queued-barriers]") {
    scenarios::Scenario s = slow_count();
    s.faults = {};
    s.oracles = {"exactly_once_output", "liveness"};
    s.job.checkpointing.aligned_checkpoint_timeout = sim::Duration::zero();
    s.job.checkpointing.unaligned = false;
    scenarios::RunOptions options;
    options.seed = 3;
    const scenarios::RunResult aligned = scenarios::run_scenario(s, options);
    REQUIRE(aligned.expectation_met);
    CHECK(aligned.figures.checkpoints_unaligned == 0);
    CHECK(max_start_delay_ms(aligned) > 400);  // the slow subtask's barriers wait behind its queue
    // The knob that keeps the timeout from queued barriers changes nothing without the timeout.
    s.job.checkpointing.queued_barriers_wait = true;
    CHECK(scenarios::run_scenario(s, options).trace_hash == aligned.trace_hash);
}

TEST_CASE(
    "queued barriers: trace lines of barriers name their channel and checkpoint, storage lines their path",
    "[queued-barriers][trace]") {
    const scenarios::Scenario s = slow_count();
    scenarios::RunOptions options;
    options.seed = 1;
    std::ostringstream log;
    scenarios::RunOptions logged = options;
    logged.trace_log = &log;
    CHECK(scenarios::run_scenario(s, logged).trace_hash ==
          scenarios::run_scenario(s, options).trace_hash);
    const std::string text = log.str();
    CHECK_THAT(text, Catch::Contains("\"kind\":\"channel.barrier\""));
    CHECK(std::regex_search(
        text,
        std::regex(
            "\"what\":\"(un)?aligned barrier 1 source-0 -> count-0 \\(input channel 0, gate 0\\)\"")));
    CHECK(std::regex_search(
        text,
        std::regex(
            "\"what\":\"(un)?aligned barrier 1 source-1 -> count-1 \\(input channel 1, gate 0\\)\"")));
    CHECK(std::regex_search(
        text,
        std::regex(
            "\"what\":\"unaligned barrier [0-9]+ count-1 -> sink-1 \\(input channel 0, gate 0\\)\"")));
    CHECK(std::regex_search(
        text,
        std::regex(
            "\"kind\":\"storage.apply\",\"seq\":[0-9]+,\"t_ns\":[0-9]+,\"what\":\"put [^\"]+\"")));
    CHECK(std::regex_search(
        text,
        std::regex("\"kind\":\"storage.done\",[^}]*\"what\":\"(put|get|remove|list) [^\"]+\"")));
}

}  // namespace
}  // namespace eosim::engine
