#pragma once
// What the fault injector can do to an outside system (a document store, a key-value store, an
// object store, a database, ...), named in a fault plan by the system's name: the generic fault
// kinds `system_unavailable`, `system_write_errors`, `bulk_partial_failure` and `system_call_races`
// (sim/fault_plan.h).
// The models in sim/external/ implement it; the runner hands the injector one target per system
// name (`OutsideFaults::systems`), so adding a system needs no new fault kind and no new switch.
//
// Kafka keeps its own kinds (broker_unavailable, kafka_write_failure, transaction_abort).
#include "sim/prng.h"
#include "sim/time.h"

namespace eosim::sim {

class OutsideFaultTarget {
public:
    virtual ~OutsideFaultTarget() = default;
    // Every call fails with `unavailable` before `until` (and writes nothing).
    virtual void set_unavailable_until(Time until) = 0;
    // Every write fails before `until` (and writes nothing); reads still answer.
    virtual void set_write_errors_until(Time until) = 0;
    // Whether the system has batch requests whose items succeed or fail one by one (a bulk).
    virtual bool has_partial_batch_failures() const { return false; }
    // Before `until`, each item of a batch request fails on its own with `ratio` (the others
    // apply). Called only when has_partial_batch_failures().
    virtual void set_partial_batch_failure(Ratio ratio, Time until) {
        (void)ratio;
        (void)until;
    }
    // Whether the system's writes can race (sim/external/call_races.h: answers lost after the
    // write applied, writes landing late).
    virtual bool has_call_races() const { return false; }
    // Before `until`, each write races with `ratio`, drawn from `prng`. Called only when
    // has_call_races().
    virtual void set_call_races(Ratio ratio, Time until, Prng prng) {
        (void)ratio;
        (void)until;
        (void)prng;
    }
    // Whether the system's asynchronous calls take a drawn latency (sim/external/outside_system.h).
    virtual bool has_latency() const { return false; }
    // A slow system: before `until`, each leg of an asynchronous call takes `factor` times its
    // drawn latency. Called only when has_latency().
    virtual void set_slow_until(Time until, int64_t factor) {
        (void)until;
        (void)factor;
    }
};

}  // namespace eosim::sim
