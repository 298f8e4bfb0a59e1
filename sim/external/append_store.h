#pragma once
// A plain list-like store with no protection at all: the outside system behind the append sink,
// the negative control that must show duplicates when an at-least-once job replays after a
// recovery. Every successful append adds the record at the end, whether or not it was written
// before; there are no keys, no transactions, no idempotence and no fencing.
//
// Calls are synchronous but made on behalf of a node: a call from a node that is down, that a
// partition separates from the store's node (either direction), or made while the store is
// unavailable, fails with `unavailable` and writes nothing.
//
// Not modelled: latency, partial writes, a write that lands but whose acknowledgement is lost,
// the store's own node crashing (the content survives, as every outside system's does; calls
// fail while its node is down), ordering between concurrent writers beyond call order.
#include <cstdint>
#include <vector>

#include "sim/external/kafka.h"
#include "sim/network.h"
#include "sim/scheduler.h"

namespace eosim::sim::external {

enum class AppendStoreError : uint8_t {
    none,
    unavailable,  // the store is down, unreachable or in an unavailable period, or the caller is
                  // down
};
const char* to_string(AppendStoreError error);

class AppendStore {
public:
    AppendStore(Scheduler& scheduler, Network& network, NodeId store_node);

    NodeId node() const { return store_node_; }
    AppendStoreError append(NodeId caller, KafkaRecord record);

    // Faults: every call before `until` fails with `unavailable`.
    void set_unavailable_until(Time until) { unavailable_until_ = until; }

    // Narrow view for oracles and tests: every record ever appended, in append order.
    const std::vector<KafkaRecord>& records() const { return records_; }
    // A digest of what it holds at the end (sim/external/content_digest.cpp): equal contents, equal
    // digests; folded into a run's state hash beside its trace hash.
    uint64_t content_digest() const;
    uint64_t failed_appends() const { return failed_appends_; }

private:
    AppendStoreError reachable(NodeId caller) const;

    Scheduler& scheduler_;
    Network& network_;
    NodeId store_node_;
    std::vector<KafkaRecord> records_;
    Time unavailable_until_ = Time::zero();
    uint64_t failed_appends_ = 0;
};

}  // namespace eosim::sim::external
