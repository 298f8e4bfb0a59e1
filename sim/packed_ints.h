#pragma once
// A column of 64-bit integers in compact form: append only, random access. Values are kept in
// chunks of 4,096; a full chunk is sealed as its smallest value plus, per value, the difference
// from it in as few bytes as the chunk's range needs (0, 1, 2, 4 or 8: frame-of-reference coding),
// so a column of equal values costs nothing per value, and keys, transaction numbers and counts
// that move slowly cost a byte or two. The open chunk at the end holds plain values. Sealed chunks
// are never copied again as the column grows (no doubling of a large buffer). Lossless for every
// int64 value.
//
// What the outside-system models and the reference model keep per record (keys, values,
// transaction numbers) is stored this way, so a record costs a few bytes instead of 16-24.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

namespace eosim::sim {

class PackedInts {
public:
    static constexpr size_t kChunkBits = 12;
    static constexpr size_t kChunk = size_t{1} << kChunkBits;  // values a chunk

    void push_back(int64_t value) {
        if (open_size_ == open_room_) make_room();
        open_[open_size_++] = value;
    }
    int64_t operator[](size_t index) const {
        const size_t chunk = index >> kChunkBits;
        const size_t at = index & (kChunk - 1);
        if (chunk == sealed_.size()) return open_[at];
        const Sealed& s = sealed_[chunk];
        uint64_t diff = 0;
        switch (s.width) {
            case 0: break;
            case 1: diff = s.bytes[at]; break;
            case 2: {
                uint16_t v;
                std::memcpy(&v, s.bytes.data() + at * 2, 2);
                diff = v;
                break;
            }
            case 4: {
                uint32_t v;
                std::memcpy(&v, s.bytes.data() + at * 4, 4);
                diff = v;
                break;
            }
            default: std::memcpy(&diff, s.bytes.data() + at * 8, 8); break;
        }
        return static_cast<int64_t>(static_cast<uint64_t>(s.base) + diff);
    }
    size_t size() const { return sealed_.size() * kChunk + open_size_; }
    // Copies values [begin, begin + count) to `out`, decoding a chunk at a time (one switch on the
    // width per chunk, not per value): for readers that walk a whole column.
    void copy(size_t begin, size_t count, int64_t* out) const;
    bool empty() const { return size() == 0; }
    // Bytes per value of the widest sealed chunk (8 while nothing is sealed: the open chunk).
    int widest_sealed_width() const;
    size_t bytes() const;  // memory held, approximately (chunk buffers, not allocator overhead)
    bool operator==(const PackedInts& other) const;

private:
    struct Sealed {
        int64_t base = 0;
        uint8_t width = 0;
        std::vector<uint8_t> bytes;
    };
    void seal();
    // A full open chunk is sealed; a smaller one grows (doubling, up to a chunk).
    void make_room();

    std::vector<Sealed> sealed_;
    // The open chunk: open_size_ values in a buffer of open_room_ (its own count and room, so that
    // a push is one compare, not a vector's size and capacity arithmetic: every record of a run
    // passes here a dozen times).
    std::vector<int64_t> open_;
    size_t open_size_ = 0;
    size_t open_room_ = 0;
};

// Reads one column at (mostly) increasing indexes through a window of up to N decoded values: a
// read outside the window decodes the next values from there with PackedInts::copy (one chunk
// lookup and width dispatch a window instead of a value, as operator[] pays). It keeps no pointer
// to the column (the caller hands it at each read), so its owner stays movable; a column that grew
// since the window was filled still reads right (values once appended never change).
template <size_t N = 64>
class PackedWindow {
public:
    // The value at `index` (< column.size()); on a miss the window is refilled from `index` with up
    // to N values (what the column holds).
    int64_t read(const PackedInts& column, size_t index) {
        if (index - start_ >= count_) {  // below start_ wraps round: a miss too
            count_ = std::min(N, column.size() - index);
            start_ = index;
            column.copy(index, count_, values_.data());
        }
        return values_[index - start_];
    }

private:
    size_t start_ = 0;
    size_t count_ = 0;
    std::array<int64_t, N> values_;
};

// Walks columns of equal length together, a range at a time, decoding each range with `copy` (one
// chunk lookup and width dispatch a range instead of a value): for each range [at, at + n) of at
// most `Range` entries from `first` to below `end`, `visit(at, values...)` gets one
// std::span<int64_t> a column, over a buffer on the stack (no allocation; the visitor may rewrite
// it in place). A caller that reads a few entries at a time (a poll) takes a smaller Range: less
// buffer to clear.
template <size_t Range = 256, typename Visit, typename... Columns>
void for_each_decoded_range(size_t first, size_t end, const Visit& visit,
                            const Columns&... columns) {
    std::array<std::array<int64_t, Range>, sizeof...(Columns)> buffers{};
    for (size_t at = first; at < end; at += Range) {
        const size_t n = std::min(Range, end - at);
        [&]<size_t... I>(std::index_sequence<I...>) {
            (columns.copy(at, n, buffers[I].data()), ...);
            visit(at, std::span<int64_t>(buffers[I].data(), n)...);
        }
        (std::index_sequence_for<Columns...>{});
    }
}

}  // namespace eosim::sim
