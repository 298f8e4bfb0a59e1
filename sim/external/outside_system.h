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
// Not modelled: latency of a call, a write that lands but whose acknowledgement is lost,
// replication and failover of the system itself.
#include <cstdint>

#include "sim/network.h"
#include "sim/outside_fault_target.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

struct OutsideSystemStats {
    uint64_t calls = 0;
    uint64_t failed_calls = 0;          // unavailable, injected write errors, rejected requests
    uint64_t writes_applied = 0;        // writes (or bulk items) that changed the content
    uint64_t absorbed_duplicates = 0;   // writes (or bulk items) that changed nothing
};

class OutsideSystem : public OutsideFaultTarget {
public:
    OutsideSystem(Scheduler& scheduler, Network& network, NodeId node);

    NodeId node() const { return node_; }
    const OutsideSystemStats& stats() const { return stats_; }

    void set_unavailable_until(Time until) override { unavailable_until_ = until; }
    void set_write_errors_until(Time until) override { write_errors_until_ = until; }

protected:
    // Counts the call; false (counted as failed) when `caller` cannot reach the system now.
    bool admit(NodeId caller);
    // Counts the call; false (counted as failed) when it cannot reach the system or writes fail
    // now. `*unreachable` tells which.
    bool admit_write(NodeId caller, bool* unreachable);
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
};

}  // namespace eosim::sim::external
