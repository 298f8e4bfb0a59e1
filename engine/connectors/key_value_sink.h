#pragma once
// The key-value sink (Redis-like, sim/external/key_value_store.h): keeps, per output key, a
// counter "<prefix>count:<key>" of the records it received for that key (INCRBY 1 per record).
// For a keyed running count that counter ends at the key's final count, which is what the harness
// compares with the reference model (a final keyed table).
//
// Delivery guarantee -- writes at-least-once, effect exactly-once (mode `dedup`, the default):
// - at-least-once: each record is sent at once; a record whose call failed (unavailable, write
//   error) stays pending and is re-sent at the next write and at pre_commit; pre_commit fails the
//   checkpoint when anything is still pending, so a completed checkpoint means every record before
//   its barrier reached the store. After a failover the source rewinds and records are sent again;
// - exactly-once effect: the increment runs in one atomic script with a SETNX on the record's
//   event id, "<prefix>seen:<key>:<value>" (`set_if_absent_then_incrby`): a replayed record finds
//   its event id set and changes nothing (an absorbed duplicate). The event id is stable across
//   replays because it is derived from the output record alone: for a keyed running count the
//   pair (key, count) is unique per key and recomputed identically from the restored state. The
//   dedup and the increment are one step: with two separate calls, a crash between them would
//   lose or double the increment. Event ids never expire here (a TTL shorter than the longest
//   replay would let a replay count again).
// - `incr` (the negative control): a plain INCRBY per record, no event id: every replayed record
//   is counted again, so the counters over-count after any failover that replays records already
//   sent. It must violate exactly-once output; never use it in a passing scenario.
//
// The sink keeps nothing in the checkpoint.
//
// Not modelled: pipelining, cluster slots, and any value but a count of records per key.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "sim/external/key_value_store.h"

namespace eosim::engine {

enum class KeyValueSinkMode : uint8_t { dedup, incr };
const char* to_string(KeyValueSinkMode mode);

struct KeyValueSinkOptions {
    std::string prefix;  // put before every key the sink writes
    KeyValueSinkMode mode = KeyValueSinkMode::dedup;
};

class KeyValueSink final : public Sink {
public:
    KeyValueSink(KeyValueSinkOptions options, SinkContext& context, sim::external::KeyValueStore& store);

    bool open(int64_t restored_checkpoint_id, const std::string& restored_state) override;
    void write(const RecordBatch& records) override;
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override;
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

    static std::string counter_key(const std::string& prefix, int64_t key);
    static std::string event_key(const std::string& prefix, const Record& record);
    // The counters the store shows, as (key, count) records sorted by key: what the harness reads.
    static std::vector<Record> counters(const sim::external::KeyValueStore& store, const std::string& prefix);

private:
    // Sends the pending records in order; stops at the first failure (order per key is kept).
    std::string send_pending();

    KeyValueSinkOptions options_;
    SinkContext& context_;
    sim::external::KeyValueStore& store_;
    std::vector<Record> pending_;
};

}  // namespace eosim::engine
