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
// `source_id` is the record's source identity: the partition and offset of the
// Kafka record it was read from, set by the Kafka source and kept by map, filter and union; the
// keyed operators, windows, joins and the CDC source make records of their own, with none. A replay
// after a failover re-reads the same offsets, so a replayed record has the same identity: what a
// sink names a document or an event id after. Packed in one word so a record stays 40 bytes
// (partition + 1 in the top 16 bits, offset in the low 48; 0: no identity).
// A record is 40 bytes.
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace eosim::engine {

enum class RowKind : uint8_t { insert, update_before, update_after, delete_row };
const char* to_string(RowKind kind);
// update_before and delete withdraw a row; insert and update_after add one.
inline bool is_retraction(RowKind kind) {
    return kind == RowKind::update_before || kind == RowKind::delete_row;
}

struct Record {
    int64_t key = 0;
    int64_t value = 0;
    int32_t version = 0;
    RowKind kind = RowKind::insert;
    int64_t timestamp =
        0;  // event time, ms (after kind, so {key, value, version, kind} initialisers stay valid)
    uint64_t source_id = 0;  // the source identity (above); kSourceIdNone when there is none
    auto operator<=>(const Record&) const = default;
};

inline constexpr uint64_t kSourceIdNone = 0;
inline constexpr int64_t kSourceOffsetLimit = int64_t{1}
                                              << 48;  // offsets below this have an identity
inline constexpr int32_t kSourcePartitionLimit =
    (1 << 16) - 1;  // partitions below this have an identity
// The identity of the record at `offset` of `partition` (both checked against the limits above).
uint64_t make_source_id(int32_t partition, int64_t offset);
inline int32_t source_partition(uint64_t source_id) {
    return static_cast<int32_t>(source_id >> 48) - 1;
}
inline int64_t source_offset(uint64_t source_id) {
    return static_cast<int64_t>(source_id & (kSourceOffsetLimit - 1));
}
// "<topic>-<partition>-<offset>" (Kafka's own naming of a record's position, as a document _id or
// an event id): the identity of a record of a job whose sink reads one source topic.
std::string source_id_text(const std::string& topic, uint64_t source_id);

using RecordBatch = std::vector<Record>;

// Watermarks (Flink's semantics): a watermark W says no more records with timestamp <= W follow.
inline constexpr int64_t kMinWatermark = INT64_MIN;  // nothing known yet
inline constexpr int64_t kMaxWatermark = INT64_MAX;  // the end of a bounded input

}  // namespace eosim::engine
