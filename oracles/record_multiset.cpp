#include "oracles/record_multiset.h"

#include <algorithm>
#include <array>

#include "sim/packed_ints.h"

namespace eosim::oracles {

using engine::Record;

struct RecordMultiset::Content {
    // Packed form: a record is key_offset * value_span + value_offset.
    int64_t key_min = 0;
    int64_t value_min = 0;
    uint64_t value_span = 1;
    std::vector<uint32_t> narrow;  // codes when the largest fits 32 bits
    std::vector<uint64_t> wide;    // codes otherwise
    std::vector<Record> whole;     // records that cannot be packed (kept as they are)
    size_t size = 0;
};

namespace {

// Least-significant-digit radix sort of `codes` over its low `bits` bits, in as few passes of at
// most 11-bit digits as the bits need (a 17-bit code: two passes of 9 bits). A pass whose digit is
// the same in every code moves nothing and is skipped. Nothing but the scratch copy is allocated
// (the digit counts are on the stack).
template <typename Code>
void radix_sort(std::vector<Code>& codes, int bits) {
    constexpr int kMaxDigitBits = 11;
    const int passes = (bits + kMaxDigitBits - 1) / kMaxDigitBits;
    if (passes == 0 || codes.size() < 2) return;
    const int digit_bits = (bits + passes - 1) / passes;
    const size_t buckets = size_t{1} << digit_bits;
    const Code mask = static_cast<Code>(buckets - 1);
    std::array<size_t, (size_t{1} << kMaxDigitBits) + 1>
        start{};  // start[d + 1]: codes with digit d, then where they go
    std::vector<Code> scratch;
    for (int pass = 0; pass < passes; ++pass) {
        const int shift = pass * digit_bits;
        std::fill(start.begin(), start.end(), 0);
        for (Code code : codes) ++start[((code >> shift) & mask) + 1];
        if (start[((codes.front() >> shift) & mask) + 1] == codes.size())
            continue;  // one digit: already in order
        for (size_t digit = 1; digit <= buckets; ++digit) start[digit] += start[digit - 1];
        if (scratch.empty()) scratch.resize(codes.size());
        for (Code code : codes) scratch[start[(code >> shift) & mask]++] = code;
        codes.swap(scratch);
    }
}

bool is_plain(const Record& r) { return r.version == 0 && r.kind == engine::RowKind::insert; }

}  // namespace

// What a pass over the records tells: how many, whether all are plain, and the ranges of their keys
// and values.
struct RecordMultiset::Ranges {
    size_t size = 0;
    bool packable = true;
    int64_t key_min = 0, key_max = 0, value_min = 0, value_max = 0;

    void add(const Record& r) {  // timestamps are ignored (see the header)
        packable = packable && is_plain(r);
        if (size++ == 0) key_min = key_max = r.key, value_min = value_max = r.value;
        key_min = std::min(key_min, r.key), key_max = std::max(key_max, r.key);
        value_min = std::min(value_min, r.value), value_max = std::max(value_max, r.value);
    }
    // Plain inserts given as key and value columns of equal length: the same as `add` of each.
    void add_plain(std::span<const int64_t> keys, std::span<const int64_t> values) {
        if (keys.empty()) return;
        if (size == 0) key_min = key_max = keys[0], value_min = value_max = values[0];
        size += keys.size();
        for (const int64_t key : keys)
            key_min = std::min(key_min, key), key_max = std::max(key_max, key);
        for (const int64_t value : values)
            value_min = std::min(value_min, value), value_max = std::max(value_max, value);
    }
};

// The packed or whole form of records whose ranges are known. `each` hands them over again, in any
// order, as often as it is called: `each(visit)`; `release` frees what `each` reads, once the codes
// are made and before the sort's scratch is taken.
template <typename Each, typename Release>
RecordMultiset RecordMultiset::build(const Ranges& ranges, const Each& each,
                                     const Release& release) {
    auto content = std::make_shared<Content>();
    content->size = ranges.size;
    content->key_min = ranges.key_min;
    content->value_min = ranges.value_min;
    // Spans as unsigned differences (no signed overflow); the largest code must fit in 64 bits.
    const uint64_t key_span =
        static_cast<uint64_t>(ranges.key_max) - static_cast<uint64_t>(ranges.key_min) + 1;
    const uint64_t value_span =
        static_cast<uint64_t>(ranges.value_max) - static_cast<uint64_t>(ranges.value_min) + 1;
    const bool packable = ranges.packable && key_span != 0 && value_span != 0 &&
                          key_span <= UINT64_MAX / value_span;  // 0: all 2^64
    RecordMultiset set;
    if (!packable) {
        content->whole.reserve(content->size);
        each([&content](const Record& r) {
            content->whole.push_back(r);
            content->whole.back().timestamp = 0;
        });
        release();
        std::sort(content->whole.begin(), content->whole.end());
        set.content_ = std::move(content);
        return set;
    }
    content->value_span = value_span;
    const uint64_t max_code = content->size == 0 ? 0 : key_span * value_span - 1;
    int bits = 0;
    while (bits < 64 && (max_code >> bits) != 0) ++bits;
    auto code_of = [&content](const Record& r) {
        return (static_cast<uint64_t>(r.key) - static_cast<uint64_t>(content->key_min)) *
                   content->value_span +
               (static_cast<uint64_t>(r.value) - static_cast<uint64_t>(content->value_min));
    };
    if (max_code <= UINT32_MAX) {
        content->narrow.reserve(content->size);
        each(
            [&](const Record& r) { content->narrow.push_back(static_cast<uint32_t>(code_of(r))); });
        release();
        radix_sort(content->narrow, bits);
    } else {
        content->wide.reserve(content->size);
        each([&](const Record& r) { content->wide.push_back(code_of(r)); });
        release();
        radix_sort(content->wide, bits);
    }
    set.content_ = std::move(content);
    return set;
}

RecordMultiset::RecordMultiset(std::vector<Record> records) {
    *this = from_stream([&records](const Visit& visit) {
        for (const Record& r : records) visit(r);
    });
}

RecordMultiset RecordMultiset::from_stream(const Stream& stream) {
    Ranges ranges;
    stream([&ranges](const Record& r) { ranges.add(r); });
    return build(ranges, stream, [] {});
}

RecordMultiset RecordMultiset::from_columns(const ColumnStream& stream) {
    Ranges ranges;
    stream([&ranges](std::span<const int64_t> keys, std::span<const int64_t> values) {
        ranges.add_plain(keys, values);
    });
    return build(
        ranges,
        [&stream](const auto& visit) {
            stream([&visit](std::span<const int64_t> keys, std::span<const int64_t> values) {
                for (size_t i = 0; i < keys.size(); ++i) visit(Record{keys[i], values[i]});
            });
        },
        [] {});
}

RecordMultiset RecordMultiset::from_stream_once(const Stream& stream) {
    Ranges ranges;
    sim::PackedInts keys, values;
    stream([&](const Record& r) {
        ranges.add(r);
        if (!ranges.packable) return;
        keys.push_back(r.key);
        values.push_back(r.value);
    });
    auto release = [&] { keys = {}, values = {}; };
    if (!ranges.packable) {  // whole records: the stream again, without the columns
        release();
        return build(ranges, stream, [] {});
    }
    return build(
        ranges,
        [&](const auto& visit) {  // the columns decoded a range at a time
            sim::for_each_decoded_range(
                0, keys.size(),
                [&visit](size_t, std::span<int64_t> key_range, std::span<int64_t> value_range) {
                    for (size_t i = 0; i < key_range.size(); ++i)
                        visit(Record{key_range[i], value_range[i]});
                },
                keys, values);
        },
        release);
}

size_t RecordMultiset::size() const { return content_ == nullptr ? 0 : content_->size; }

Record RecordMultiset::operator[](size_t index) const {
    const Content& c = *content_;
    if (!c.whole.empty()) return c.whole[index];
    return packing().decode(c.narrow.empty() ? c.wide[index] : c.narrow[index]);
}

bool RecordMultiset::packed() const { return size() > 0 && content_->whole.empty(); }

RecordMultiset::Packing RecordMultiset::packing() const {
    if (content_ == nullptr) return Packing{};
    return Packing{content_->key_min, content_->value_min, content_->value_span};
}

std::span<const uint32_t> RecordMultiset::narrow_codes() const {
    return content_ == nullptr ? std::span<const uint32_t>()
                               : std::span<const uint32_t>(content_->narrow);
}

std::span<const uint64_t> RecordMultiset::wide_codes() const {
    return content_ == nullptr ? std::span<const uint64_t>()
                               : std::span<const uint64_t>(content_->wide);
}

std::vector<Record> RecordMultiset::records() const {
    std::vector<Record> out;
    out.reserve(size());
    for (size_t i = 0; i < size(); ++i) out.push_back((*this)[i]);
    return out;
}

size_t RecordMultiset::bytes() const {
    if (content_ == nullptr) return 0;
    return content_->narrow.capacity() * sizeof(uint32_t) +
           content_->wide.capacity() * sizeof(uint64_t) +
           content_->whole.capacity() * sizeof(Record);
}

}  // namespace eosim::oracles
