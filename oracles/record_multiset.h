#pragma once
// A multiset of records in compact, sorted form: what the output oracles compare (the reference
// model's expected sink output, a sink's committed content). Records that are plain inserts
// (version 0) with keys and values spanning small ranges (every scenario's) are packed into one
// number each, 4 bytes when the spans allow and 8 otherwise, and radix-sorted; any other records
// are kept whole and sorted with std::sort. Either way the multiset hands back exactly the records
// it was given, in (key, value, version, kind) order: the packing is lossless, except that event
// timestamps are dropped (every record comes back with timestamp 0): the output oracles compare
// rows, and an oracle that needs timestamps (the window oracle's window of a result) reads them
// from the sink's records itself.
//
// Immutable once built and cheap to copy (the content is shared), so a reader can hand it out by
// value.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "engine/vocabulary/record.h"

namespace eosim::oracles {

class RecordMultiset {
public:
    using Visit = std::function<void(const engine::Record&)>;
    // Hands every record of a sequence to its argument, the same records each time it is called.
    using Stream = std::function<void(const Visit&)>;

    RecordMultiset() = default;
    // Implicit: a sink reader or a test hands a plain vector.
    RecordMultiset(std::vector<engine::Record> records);  // NOLINT(google-explicit-constructor)
    // Built from a stream read twice (once to measure the ranges, once to pack), so the records
    // never exist unpacked all at once, and nothing but the result is held.
    static RecordMultiset from_stream(const Stream& stream);
    // The same from a stream read once (twice when a record cannot be packed), for a stream that is
    // costly to produce (the reference model's evaluation): while the ranges are measured the
    // records wait in packed columns, a few bytes each.
    static RecordMultiset from_stream_once(const Stream& stream);
    // Plain inserts (version 0) handed as key and value columns of equal length, a batch per call
    // (a Kafka topic's committed content: sim/external/kafka.h, for_each_committed_batch). Read
    // twice, as from_stream.
    using ColumnVisit =
        std::function<void(std::span<const int64_t> keys, std::span<const int64_t> values)>;
    using ColumnStream = std::function<void(const ColumnVisit&)>;
    static RecordMultiset from_columns(const ColumnStream& stream);

    size_t size() const;
    bool empty() const { return size() == 0; }
    engine::Record operator[](size_t index) const;  // the index-th smallest
    std::vector<engine::Record> records() const;    // unpacked, sorted (for tests and small sets)
    size_t bytes() const;                           // memory held

    // The packed form, when the records have one (see above): codes in ascending order, each
    // (key - key_min) * value_span + (value - value_min), in 32 bits when the largest fits and 64
    // otherwise. For a comparison that merges two multisets packed alike code by code
    // (OutputComparison), decoding only the records it reports.
    struct Packing {
        int64_t key_min = 0;
        int64_t value_min = 0;
        uint64_t value_span = 1;
        bool operator==(const Packing&) const = default;
        engine::Record decode(uint64_t code) const {
            return engine::Record{
                static_cast<int64_t>(code / value_span + static_cast<uint64_t>(key_min)),
                static_cast<int64_t>(code % value_span + static_cast<uint64_t>(value_min))};
        }
    };
    bool packed() const;  // false when empty or when the records are kept whole
    Packing packing() const;
    std::span<const uint32_t> narrow_codes() const;  // empty unless packed in 32 bits
    std::span<const uint64_t> wide_codes() const;    // empty unless packed in 64 bits

private:
    struct Content;
    struct Ranges;
    template <typename Each, typename Release>
    static RecordMultiset build(const Ranges& ranges, const Each& each, const Release& release);
    std::shared_ptr<const Content> content_;
};

}  // namespace eosim::oracles
