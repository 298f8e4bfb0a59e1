#pragma once
// private: the harness's inside (contract_harness.h), shared by its files -- contract_harness.cpp
// (the world, the steps, the faults), contract_recovery.cpp (failovers, restores, the final
// checkpoint) and contract_checks.cpp (what the outside system may show): the sink instances as
// subtasks of incarnations, the SinkContext each one gets, and the harness's constants.
#include <algorithm>
#include <limits>
#include <string_view>

#include "testkit/contract_harness.h"

namespace eosim::testkit {

inline constexpr sim::EventKind kTick{"testkit.tick"};
inline constexpr sim::EventKind kSinkTimer{"testkit.sink_timer"};
inline constexpr int kRestoreAttempts = 30;
inline constexpr size_t kFlushSteps =
    2000;  // steps of calls (or 10 ms) a subtask may wait for prepare_pre_commit
inline constexpr int64_t kLegMillis = 5;  // the virtual time one step of a call in flight takes
inline constexpr int64_t kEverything =
    std::numeric_limits<int64_t>::max();  // a count or barrier without a limit

struct ContractHarness::Subtask {
    Incarnation* incarnation = nullptr;
    int32_t index = 0;
    sim::NodeId node = sim::kNoNode;
    std::unique_ptr<Context> context;
    std::unique_ptr<engine::Sink> sink;
    int64_t position = 0;  // S is written up to here (its own records before it)
    std::string name() const;
};

struct ContractHarness::Incarnation {
    // An instance's life (testkit/README.md, "An instance's life"): live; zombie (the job failed
    // over without reaching it: not closed, it finishes what reaches it); failed (it failed the
    // job, close() comes next); closed (close() called: only its own timers and its calls' late
    // answers are left); crashed (its process died: nothing at all).
    enum class State : uint8_t { live, zombie, failed, closed, crashed };
    int32_t number = 0;
    std::vector<std::unique_ptr<Subtask>> subtasks;
    State state = State::live;
    std::string failure;  // why it failed (SinkContext::fail or a refused pre-commit)
    // A zombie's one barrier: the checkpoint in flight when the job failed over without it (or one
    // triggered just before), which each subtask that had not yet may still pre-commit -- once.
    int64_t zombie_barrier = 0;
    std::vector<bool> barrier_taken;
    std::string name() const { return "incarnation " + std::to_string(number); }
    int32_t parallelism() const { return static_cast<int32_t>(subtasks.size()); }
    // Where its subtasks are in S: the furthest of their positions.
    int64_t furthest() const {
        int64_t out = 0;
        for (const auto& s : subtasks) out = std::max(out, s->position);
        return out;
    }
};

class ContractHarness::Context final : public engine::SinkContext {
public:
    Context(ContractHarness& harness, Subtask& subtask) : harness_(harness), subtask_(subtask) {}
    sim::World& world() override { return harness_.world_; }
    sim::NodeId node() const override { return subtask_.node; }
    int32_t subtask() const override { return subtask_.index; }
    int32_t parallelism() const override { return subtask_.incarnation->parallelism(); }
    int64_t attempt() const override { return subtask_.incarnation->number; }
    engine::RunObserver& observer() override { return harness_.observer_; }
    std::optional<std::vector<std::string_view>> declared_points() const override {
        return harness_.config_->announced_points();
    }
    void after(sim::Duration delay, std::function<void()> fn) override {
        Incarnation* incarnation = subtask_.incarnation;
        ContractHarness* harness = &harness_;
        harness_.world_.scheduler().schedule(
            delay, subtask_.node, kSinkTimer, 0, [harness, incarnation, fn = std::move(fn)] {
                // A crashed task is gone; any other's process lives on, and so do its timers: a
                // zombie's, and a closed one's (cancelled, failed, stopped) until close() stopped
                // them, as in the engine (engine/runtime/task.cpp, Task::after).
                const auto state = incarnation->state;
                if (state == Incarnation::State::crashed) return;
                if (harness->finished_ && state == Incarnation::State::closed)
                    ++harness->timers_after_close_;
                fn();
            });
    }
    void send(AsyncCall call) override { harness_.hold_call(subtask_, std::move(call)); }
    void fail(const std::string& reason) override {
        Incarnation& incarnation = *subtask_.incarnation;
        if (incarnation.state != Incarnation::State::live) return;
        incarnation.state = Incarnation::State::failed;
        incarnation.failure = "subtask " + std::to_string(subtask_.index) + ": " + reason;
    }

private:
    ContractHarness& harness_;
    Subtask& subtask_;
};

}  // namespace eosim::testkit
