#pragma once
// A stream record: a key and a value, both 64-bit integers. The jobs eosim runs are defined over
// integers so that the reference model can evaluate them exactly.
//
// A record is also a changelog row (Flink's RowKind): an insert (what every Kafka record is), the
// retraction of an earlier row (update_before, delete) or its replacement (update_after). `version`
// is the row's per-key sequence where the source or an operator knows one (a CDC row's version
// column; a keyed aggregate's count of changes to the key); 0 otherwise. Both fit in the padding
// of the two int64s.
//
// `timestamp` is the record's event time in milliseconds (Flink's StreamRecord timestamp): set by
// the source from the input (the producer's event time, or its append time), kept by map, filter,
// union and the keyed aggregates, set by a window (its end - 1) or a join (the later side's).
// A record is 32 bytes.
#include <compare>
#include <cstdint>
#include <vector>

namespace eosim::engine {

enum class RowKind : uint8_t { insert, update_before, update_after, delete_row };
const char* to_string(RowKind kind);
// update_before and delete withdraw a row; insert and update_after add one.
inline bool is_retraction(RowKind kind) { return kind == RowKind::update_before || kind == RowKind::delete_row; }

struct Record {
    int64_t key = 0;
    int64_t value = 0;
    int32_t version = 0;
    RowKind kind = RowKind::insert;
    int64_t timestamp = 0;  // event time, ms (last, so {key, value, version, kind} initialisers stay valid)
    auto operator<=>(const Record&) const = default;
};

using RecordBatch = std::vector<Record>;

// Watermarks (Flink's semantics): a watermark W says no more records with timestamp <= W follow.
inline constexpr int64_t kMinWatermark = INT64_MIN;  // nothing known yet
inline constexpr int64_t kMaxWatermark = INT64_MAX;  // the end of a bounded input

}  // namespace eosim::engine
