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
#include <vector>

#include "engine/runtime/record.h"

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
    // costly to produce (the reference model's evaluation): while the ranges are measured the records
    // wait in packed columns, a few bytes each.
    static RecordMultiset from_stream_once(const Stream& stream);

    size_t size() const;
    bool empty() const { return size() == 0; }
    engine::Record operator[](size_t index) const;  // the index-th smallest
    std::vector<engine::Record> records() const;    // unpacked, sorted (for tests and small sets)
    size_t bytes() const;                           // memory held

private:
    struct Content;
    struct Ranges;
    template <typename Each, typename Release>
    static RecordMultiset build(const Ranges& ranges, const Each& each, const Release& release);
    std::shared_ptr<const Content> content_;
};

}  // namespace eosim::oracles
