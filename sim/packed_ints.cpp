#include "sim/packed_ints.h"

#include <algorithm>

namespace eosim::sim {

namespace {

// Writes each value's difference from `base` as `Width` little-endian bytes. One loop per width
// (rather than a switch per value): sealing runs once per 4,096 values of every column, and the
// per-value switch made it a visible share of a run.
template <typename Width>
void encode_differences(std::span<const int64_t> values, int64_t base, uint8_t* out) {
    for (const int64_t value : values) {
        const auto diff =
            static_cast<Width>(static_cast<uint64_t>(value) - static_cast<uint64_t>(base));
        std::memcpy(out, &diff, sizeof(Width));
        out += sizeof(Width);
    }
}

// Decodes `count` differences of `Width` bytes from `in` and adds `base` to each.
template <typename Width>
void decode_differences(const uint8_t* in, size_t count, int64_t base, int64_t* out) {
    for (size_t i = 0; i < count; ++i) {
        Width diff;
        std::memcpy(&diff, in + i * sizeof(Width), sizeof(Width));
        out[i] = static_cast<int64_t>(static_cast<uint64_t>(base) + diff);
    }
}

}  // namespace

void PackedInts::copy(size_t begin, size_t count, int64_t* out) const {
    while (count > 0) {
        const size_t chunk = begin >> kChunkBits;
        const size_t at = begin & (kChunk - 1);
        const size_t n = std::min(count, kChunk - at);
        if (chunk == sealed_.size()) {
            std::copy_n(open_.data() + at, n, out);
        } else {
            const Sealed& s = sealed_[chunk];
            const uint8_t* in = s.bytes.data() + at * s.width;
            switch (s.width) {
                case 0: std::fill_n(out, n, s.base); break;
                case 1: decode_differences<uint8_t>(in, n, s.base, out); break;
                case 2: decode_differences<uint16_t>(in, n, s.base, out); break;
                case 4: decode_differences<uint32_t>(in, n, s.base, out); break;
                default: decode_differences<uint64_t>(in, n, s.base, out); break;
            }
        }
        begin += n, count -= n, out += n;
    }
}

void PackedInts::make_room() {
    if (open_size_ == kChunk) {
        seal();
        return;
    }
    open_room_ = std::clamp<size_t>(2 * open_room_, 8, kChunk);
    open_.resize(open_room_);
}

void PackedInts::seal() {
    const std::span<const int64_t> open(open_.data(), open_size_);
    Sealed s;
    // A plain min/max loop (conditional moves) rather than std::minmax_element, whose branches
    // mispredict on the random keys and values most columns hold.
    int64_t min = open.front(), max = open.front();
    for (const int64_t value : open) {
        min = std::min(min, value);
        max = std::max(max, value);
    }
    s.base = min;
    const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(s.base);
    s.width = range == 0            ? 0
              : range <= UINT8_MAX  ? 1
              : range <= UINT16_MAX ? 2
              : range <= UINT32_MAX ? 4
                                    : 8;
    s.bytes.resize(open.size() * s.width);
    switch (s.width) {
        case 0: break;
        case 1: encode_differences<uint8_t>(open, s.base, s.bytes.data()); break;
        case 2: encode_differences<uint16_t>(open, s.base, s.bytes.data()); break;
        case 4: encode_differences<uint32_t>(open, s.base, s.bytes.data()); break;
        default: encode_differences<uint64_t>(open, s.base, s.bytes.data()); break;
    }
    sealed_.push_back(std::move(s));
    open_size_ = 0;  // the buffer stays: the next chunk reuses it
}

int PackedInts::widest_sealed_width() const {
    if (sealed_.empty()) return 8;
    int widest = 0;
    for (const Sealed& s : sealed_) widest = std::max(widest, static_cast<int>(s.width));
    return widest;
}

size_t PackedInts::bytes() const {
    size_t total = open_.capacity() * sizeof(int64_t) + sealed_.capacity() * sizeof(Sealed);
    for (const Sealed& s : sealed_) total += s.bytes.capacity();
    return total;
}

bool PackedInts::operator==(const PackedInts& other) const {
    if (size() != other.size()) return false;
    for (size_t i = 0; i < size(); ++i) {
        if ((*this)[i] != other[i]) return false;
    }
    return true;
}

}  // namespace eosim::sim
