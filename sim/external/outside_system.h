#pragma once
// What every non-Kafka outside-system model shares (sim/external/document_store.h,
// key_value_store.h, object_store.h): the system lives on a node of its own; calls are synchronous
// but made on behalf of a caller node, and a caller that is down, or that a partition separates
// from the system's node (either direction), or a call made while the system's node is down or in
// an injected unavailable period, gets `unavailable` and changes nothing. Content survives every
// crash (it is the outside world's). Fault switches (unavailable, write errors) come through
// `sim::OutsideFaultTarget`, so the fault injector reaches every system by its name.
//
// Statistics every model keeps: calls, failed calls, writes that changed something, and writes
// that changed nothing ("absorbed duplicates": a replay an idempotent write made harmless, e.g.
// SETNX on an existing key, a stale external version, an identical re-index).
//
// Calls that race (call_races.h): when switched on (a script, or the `system_call_races` fault), an
// admitted write may apply and lose its answer, land later, or be lost; the caller then sees
// `timeout`. Every call is noted in the call log when one is set (`races().set_log`).
//
// Latency: a synchronous call takes no time. An asynchronous call (a sink's
// engine::SinkContext::call) travels both ways with a latency drawn per leg from the system's own
// PRNG stream, uniformly in [latency().min, latency().max] (default 2-20 ms, after a service in the
// same region), times the slow factor while a slow period lasts (`set_slow_until`). Two calls of
// one client may therefore land, and be answered, in another order than sent.
//
// Not modelled: replication and failover of the system itself.
#include <cstdint>
#include <functional>
#include <string>

#include "sim/external/call_races.h"
#include "sim/network.h"
#include "sim/outside_fault_target.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

// The latency of one leg of an asynchronous call (the request to the system, the answer back).
struct CallLatency {
    Duration min = Duration::millis(2);
    Duration max = Duration::millis(20);
};

struct OutsideSystemStats {
    uint64_t calls = 0;
    uint64_t failed_calls =
        0;  // unavailable, injected write errors, rejected requests, timeouts (races)
    uint64_t writes_applied = 0;       // writes (or bulk items) that changed the content
    uint64_t absorbed_duplicates = 0;  // writes (or bulk items) that changed nothing
};

class OutsideSystem : public OutsideFaultTarget {
public:
    OutsideSystem(Scheduler& scheduler, Network& network, NodeId node);

    NodeId node() const { return node_; }
    const OutsideSystemStats& stats() const { return stats_; }

    void set_unavailable_until(Time until) override { unavailable_until_ = until; }
    void set_write_errors_until(Time until) override { write_errors_until_ = until; }
    bool has_call_races() const override { return true; }
    void set_call_races(Ratio ratio, Time until, Prng prng) override {
        races_.set_races(ratio, until, prng);
    }
    CallRaces& races() { return races_; }
    const CallRaces& races() const { return races_; }

    // Asynchronous calls: the latency of a leg and the stream it is drawn from (e.g.
    // world.prng("latency.key_values"); by default a stream fixed by the system's node).
    void set_latency(CallLatency latency, Prng prng);
    const CallLatency& latency() const { return latency_; }
    // A slow system: before `until`, every leg drawn takes `factor` (>= 1) times as long.
    void set_slow_until(Time until, int64_t factor) override;
    bool has_latency() const override { return true; }
    // The latency of the next leg (one draw).
    Duration draw_latency();

protected:
    // Counts the call; false (counted as failed) when `caller` cannot reach the system now.
    bool admit(NodeId caller);
    // Counts the call; false (counted as failed) when it cannot reach the system or writes fail
    // now. `*unreachable` tells which.
    bool admit_write(NodeId caller, bool* unreachable);
    // An admitted write, delivered as the races say: `apply` (which owns copies of what it reads:
    // a late write applies later) now, or now with `timed_out` as the answer, or later.
    template <typename Result>
    Result deliver_write(NodeId caller, const std::function<std::string()>& call,
                         std::function<Result()> apply, Result timed_out) {
        const RaceStep step = races_.next_write();
        if (step.delivery == CallDelivery::now) return apply();
        count_failed();  // the caller sees a timeout
        if (step.delivery == CallDelivery::answer_lost) {
            (void)apply();
        } else if (step.delivery == CallDelivery::late) {
            races_.hold(
                caller, races_.logging() ? call() : std::string(),
                [apply = std::move(apply)] { (void)apply(); }, step.late_by_calls);
        }
        return timed_out;
    }
    void count_failed() { ++stats_.failed_calls; }
    void count_applied() { ++stats_.writes_applied; }
    void count_absorbed() { ++stats_.absorbed_duplicates; }
    Time now() const { return scheduler_.now(); }

private:
    bool reachable(NodeId caller) const;

    Scheduler& scheduler_;
    Network& network_;
    NodeId node_;
    Time unavailable_until_ = Time::zero();
    Time write_errors_until_ = Time::zero();
    OutsideSystemStats stats_;
    CallRaces races_;
    CallLatency latency_;
    Prng latency_prng_;
    Time slow_until_ = Time::zero();
    int64_t slow_factor_ = 1;
};

}  // namespace eosim::sim::external
