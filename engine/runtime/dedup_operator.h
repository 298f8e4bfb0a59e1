#pragma once
// Deduplication: keep the first row per key within `bound` of event time (Flink SQL's
// deduplication keeping the first row, with the state TTL replaced by an exact event-time expiry).
//
// Rule (design-14): per key, the first record starts a period [ts0, ts0 + bound); a later record of
// the key with timestamp < ts0 + bound is dropped (also one with timestamp < ts0 that arrives after
// it); the first with timestamp >= ts0 + bound is kept and starts a new period. Kept records are
// emitted unchanged.
//
// State: the period start, cell {key, 0, 0, 0} -> ts0 (the keyed aggregates' cell, so it is what
// the backend's contents() lists: key -> period start), and an event-time timer at ts0 + bound
// (TimerService: checkpointed and restored with the key's group) that clears the period when the
// watermark reaches its end: the state's expiry. A new period deletes the old period's timer.
//
// Why the expiry changes nothing for in-bound input: a record that arrives after the timer at
// ts0 + bound fired has timestamp > watermark >= ts0 + bound (it is in-bound), so it starts a new
// period whether or not the old one was still in state. Out-of-bound (late) records are the one
// case where expiry would decide the outcome (kept after the expiry, dropped before it: it depends
// on the interleaving). The decision: late input is not handled specially here (no side output, no
// drop): the operator applies the rule to whatever state it holds, and a dedup is exact only for
// in-bound input. The loader refuses a dedup downstream of an input with late records
// (`event_time.late_percent` > 0, scenarios/loader/read_input.cpp) and a dedup whose source has
// idle splits (`watermarks.idle_timeout`: a split active again after idling may be behind the
// combined watermark; scenarios/loader/read_job.cpp).
#include <cstdint>
#include <memory>
#include <optional>

#include "engine/runtime/operators.h"
#include "engine/state/state_backend.h"
#include "engine/state/timer_service.h"
#include "engine/vocabulary/record.h"

namespace eosim::engine {

// True when a record at `timestamp` is kept (starts a new period of its key), given the start of
// the key's current period (nullopt: none) and the bound in milliseconds.
bool dedup_keeps(std::optional<int64_t> period_start, int64_t timestamp, int64_t bound_ms);

class DedupOperator final : public Operator {
public:
    DedupOperator(int64_t bound_ms, std::unique_ptr<KeyedStateBackend> state);
    void process(int32_t input, const Record& in, const Emit& out) override;
    void advance_watermark(int64_t watermark, const Emit& out) override;
    KeyedStateBackend* keyed_state() override { return state_.get(); }

private:
    // The backend may have been restored since construction (before any record or watermark): the
    // timer index is rebuilt from it at first use.
    TimerService& timers();

    int64_t bound_ms_;
    std::unique_ptr<KeyedStateBackend> state_;
    TimerService timers_;
    bool timers_ready_ = false;
};

}  // namespace eosim::engine
