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
// - exactly-once effect (dedup by event id, the Redis pattern of a SETNX on the event id and the
//   effect in one MULTI/Lua script): the increment runs in one atomic script with a SETNX on the
//   record's event id, "<prefix>seen:<event id>" (`set_if_absent_then_incrby`): a replayed record
//   finds its event id set and changes nothing (an absorbed duplicate). Event ids never expire here
//   (a TTL shorter than the longest replay would let a replay count again). Two event ids
//   (`event_id`):
//   - `record` (default): "<key>:<value>", derived from the output record alone: for a keyed
//   running
//     count the pair (key, count) is unique per key and recomputed identically from the restored
//     state. Anywhere else two events with the same key and value share one id and the second is
//     never counted;
//   - `source_offset`: "<topic>-<partition>-<offset>" of the Kafka record the output record came
//     from (its source identity, engine/vocabulary/record.h): unique per event, equal in a replay,
//     for a job passing events on as they are. Allowed only where every record reaching the sink
//     has that identity (as the document sink's `source_offset` ids: one topic, the sink reached
//     from a kafka_source through maps and filters only; refused otherwise, exit code 2). The
//     harness then reads the counters as key counts (sink_registry.h: each key's number of
//     records), which is what they are for any job; with `record` ids it reads them as a keyed
//     table (the running count's last value, which equals it).
// - `dedup_non_atomic` (a negative control): the same SETNX and INCRBY as two calls, as a client
//   without MULTI or a script does. A SETNX that applied but whose INCRBY then failed or timed out
//   (calls that race, sim/external/call_races.h: an answer lost) leaves the event marked and not
//   counted; its retry finds the mark and skips, so the count is lost for good. Never use it in a
//   passing scenario.
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

enum class KeyValueSinkMode : uint8_t { dedup, incr, dedup_non_atomic };
const char* to_string(KeyValueSinkMode mode);
enum class KeyValueEventId : uint8_t { record, source_offset };
const char* to_string(KeyValueEventId event_id);

struct KeyValueSinkOptions {
    std::string prefix;  // put before every key the sink writes
    KeyValueSinkMode mode = KeyValueSinkMode::dedup;
    KeyValueEventId event_id = KeyValueEventId::record;
    std::string source_topic;  // event_id source_offset: the topic the job's source reads
};

class KeyValueSink final : public Sink {
public:
    KeyValueSink(KeyValueSinkOptions options, SinkContext& context,
                 sim::external::KeyValueStore& store);

    bool open(int64_t restored_checkpoint_id,
              const std::vector<RestoredSinkState>& restored) override;
    void write(const RecordBatch& records) override;
    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override;
    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

    static std::string counter_key(const std::string& prefix, int64_t key);
    static std::string event_key(const KeyValueSinkOptions& options, const Record& record);
    // The counters the store shows, as (key, count) records sorted by key: what the harness reads.
    static std::vector<Record> counters(const sim::external::KeyValueStore& store,
                                        const std::string& prefix);

private:
    // Sends the pending records in order; stops at the first failure (order per key is kept).
    std::string send_pending();
    // The record's effect on the store, as `mode` makes it.
    sim::external::KeyValueResult send(const Record& record);

    KeyValueSinkOptions options_;
    SinkContext& context_;
    sim::external::KeyValueStore& store_;
    std::vector<Record> pending_;
};

}  // namespace eosim::engine
