#pragma once
// hello_upsert: the smallest useful custom sink. Every record is written at once as an upsert
// (key -> latest value) into the append store; a reader sees, per key, the last value written. A
// replay after a recovery writes the same values again in the same order, so the table ends equal
// to the exactly-once result: an idempotent sink needs nothing in the checkpoint.
#include <vector>

#include <eosim/engine/connectors/sink_registry.h>

namespace hello {

eosim::engine::SinkKind hello_upsert_kind();

// What a reader of the table sees: per key, the last value appended (sorted by key).
std::vector<eosim::engine::Record> latest_per_key(
    const std::vector<eosim::engine::Record>& appended);

}  // namespace hello
