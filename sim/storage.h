#pragma once
// Durable blob storage (the checkpoint store: think S3 or HDFS). It outlives every node crash.
// Operations are asynchronous: they take effect after a latency drawn from the options, and the
// caller's callback runs on the caller's node (dropped if that incarnation crashed meanwhile; a
// write that was issued still lands, as an upload that completes after its client died would).
// Failures are injectable: a ratio of operations fail, or every operation fails for a period;
// slowness multiplies the latency for a period.
//
// Node-local storage, which a crash wipes, is `NodeTable::disk`.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/network.h"
#include "sim/prng.h"
#include "sim/scheduler.h"

namespace eosim::sim {

// Fault knobs of the durable store. Every default means "no fault".
struct StorageOptions {
    LinkLatency latency{Duration::millis(1), Duration::millis(5)};
    Ratio failure = Ratio::never();  // share of operations that fail
};

enum class StorageStatus : uint8_t { ok, failed, not_found };

class DurableStorage {
public:
    using Done = std::function<void(StorageStatus)>;
    using GetDone = std::function<void(StorageStatus, std::string)>;
    using ListDone = std::function<void(StorageStatus, std::vector<std::string>)>;

    DurableStorage(Scheduler& scheduler, Prng prng, StorageOptions options);

    void put(NodeId caller, std::string key, std::string value, Done done);
    void get(NodeId caller, std::string key, GetDone done);
    void remove(NodeId caller, std::string key, Done done);
    // Keys starting with `prefix`, in lexicographic order.
    void list(NodeId caller, std::string prefix, ListDone done);

    // Faults: every operation that completes before `until` fails / takes `multiplier` times
    // longer.
    void fail_until(Time until) { failing_until_ = until; }
    void slow_until(Time until, uint32_t multiplier);
    // What the faults hit (scenarios/fault_accounting.h): operations that failed because of
    // fail_until, operations slowed by slow_until.
    uint64_t operations_failed_by_fault() const { return failed_by_fault_; }
    uint64_t operations_slowed_by_fault() const { return slowed_by_fault_; }

    // Direct, synchronous view for oracles and tests (not for the engine).
    const std::map<std::string, std::string>& contents() const { return blobs_; }
    // Whether a remove of `key` was issued and has not taken effect yet.
    bool removal_in_flight(const std::string& key) const {
        return removals_in_flight_.contains(key);
    }
    uint64_t bytes_stored() const;

private:
    // Draws the latency and whether the operation fails, then runs `apply` at completion time and
    // hands the result to the caller on its own node.
    void submit(NodeId caller, uint64_t digest,
                std::function<std::function<void()>(bool failed)> apply);
    // Names the operation of `digest` in a trace log ("put <path>"); called before submit, which
    // takes the path away.
    void annotate(uint64_t digest, std::string_view what, const std::string& path);

    Scheduler& scheduler_;
    Prng prng_;
    StorageOptions options_;
    std::map<std::string, std::string> blobs_;
    std::map<std::string, int32_t> removals_in_flight_;  // key -> removes issued, not yet applied
    Time failing_until_ = Time::zero();
    Time slow_until_ = Time::zero();
    uint32_t slow_multiplier_ = 1;
    uint64_t failed_by_fault_ = 0;
    uint64_t slowed_by_fault_ = 0;
};

}  // namespace eosim::sim
