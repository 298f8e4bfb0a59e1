#pragma once
// A Redis-like key-value store: the outside system behind the key-value sink.
//
// What is modelled (the behaviour exactly-once depends on):
// - string keys holding integer values (what counters and dedup markers need);
// - GET, SET (optionally with a TTL), SETNX (sets only when the key is absent; returns whether it
//   set; on an existing key it changes nothing), INCRBY (an absent key counts as 0), DEL, EXPIRE;
// - expiry in virtual time (the scheduler's clock): a key whose TTL has passed reads as absent,
//   for every command (SETNX then sets it again, INCRBY starts from 0);
// - atomic scripts (the Lua-script pattern: no other command runs in between):
//   `set_if_absent_then_incrby(dedup_key, counter_key, delta, dedup_ttl)`: when `dedup_key` is
//   absent, sets it and adds `delta` to `counter_key`; when present, changes nothing. This is how
//   a sink makes an at-least-once INCRBY take effect exactly once;
//   `compare_and_set(key, expected, value)`: sets `key` to `value` only when its current value is
//   `expected` (nullopt: absent);
// - faults: unavailable until T (every call fails, nothing changes), write errors until T (every
//   write fails, nothing changes; GET still answers), calls that race (outside_system.h: a write
//   answered `timeout` may have applied, or may land later, after other calls).
//
// "Absorbed duplicates" (writes that changed nothing): SETNX on an existing key, a script whose
// dedup key existed, a compare-and-set whose expectation did not hold, a SET of the value already
// there (without TTL).
//
// Not modelled: data types other than integers (lists, hashes, ...), persistence settings (the
// content survives every crash, like an AOF with fsync always), replication and failover (a
// failover losing the last writes), eviction under memory pressure, MULTI/EXEC, pub/sub.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/external/outside_system.h"

namespace eosim::sim::external {

enum class KeyValueError : uint8_t {
    none,
    unavailable,   // the store or the caller is down, unreachable, or in an unavailable period
    write_failed,  // an injected write error: nothing changed
    timeout,  // no answer (calls that race, call_races.h): the write may have applied, or may still
              // land
};
const char* to_string(KeyValueError error);

struct KeyValueResult {
    KeyValueError error = KeyValueError::none;
    std::optional<int64_t>
        value;             // GET: the value (nullopt: absent); INCRBY/script: the counter after
    bool applied = false;  // SETNX / script / compare_and_set / DEL: whether it changed anything
};

class KeyValueStore final : public OutsideSystem {
public:
    KeyValueStore(Scheduler& scheduler, Network& network, NodeId node);

    KeyValueResult get(NodeId caller, const std::string& key);
    // `ttl` nullopt: no expiry (a SET clears an earlier TTL, as in Redis).
    KeyValueResult set(NodeId caller, const std::string& key, int64_t value,
                       std::optional<Duration> ttl = {});
    KeyValueResult setnx(NodeId caller, const std::string& key, int64_t value,
                         std::optional<Duration> ttl = {});
    KeyValueResult incrby(NodeId caller, const std::string& key, int64_t delta);
    KeyValueResult del(NodeId caller, const std::string& key);
    // Sets a TTL on an existing key; applied = false when the key is absent.
    KeyValueResult expire(NodeId caller, const std::string& key, Duration ttl);

    // Atomic scripts.
    KeyValueResult set_if_absent_then_incrby(NodeId caller, const std::string& dedup_key,
                                             const std::string& counter_key, int64_t delta,
                                             std::optional<Duration> dedup_ttl = {});
    KeyValueResult compare_and_set(NodeId caller, const std::string& key,
                                   std::optional<int64_t> expected, int64_t value);

    // Narrow views for oracles and tests (no caller, no fault): the live keys (expired ones are
    // absent), sorted; keys starting with `prefix` only.
    std::map<std::string, int64_t> entries(const std::string& prefix = "") const;
    std::optional<int64_t> peek(const std::string& key) const;
    // A digest of what it holds at the end (sim/external/content_digest.cpp): equal contents, equal
    // digests; folded into a run's state hash beside its trace hash.
    uint64_t content_digest() const;

private:
    struct Entry {
        int64_t value = 0;
        Time expires_at = Time::never();
    };
    // The live entry of `key`, or nullptr (an expired entry is erased on the way).
    Entry* live(const std::string& key);
    bool admit_write_or(NodeId caller, KeyValueResult* failure);
    // A write: admitted, delivered as the races say, noted in the call log.
    KeyValueResult write_call(NodeId caller, const std::function<std::string()>& call,
                              std::function<KeyValueResult()> apply);

    std::map<std::string, Entry> entries_;
};

}  // namespace eosim::sim::external
