#include "sim/packed_ints.h"

#include <algorithm>

namespace eosim::sim {

void PackedInts::seal() {
    Sealed s;
    s.base = *std::min_element(open_.begin(), open_.end());
    const int64_t max = *std::max_element(open_.begin(), open_.end());
    const uint64_t range = static_cast<uint64_t>(max) - static_cast<uint64_t>(s.base);
    s.width = range == 0 ? 0 : range <= UINT8_MAX ? 1 : range <= UINT16_MAX ? 2 : range <= UINT32_MAX ? 4 : 8;
    s.bytes.resize(open_.size() * s.width);
    for (size_t i = 0; i < open_.size() && s.width > 0; ++i) {
        const uint64_t diff = static_cast<uint64_t>(open_[i]) - static_cast<uint64_t>(s.base);
        uint8_t* at = s.bytes.data() + i * s.width;
        switch (s.width) {
            case 1: *at = static_cast<uint8_t>(diff); break;
            case 2: { const auto v = static_cast<uint16_t>(diff); std::memcpy(at, &v, 2); break; }
            case 4: { const auto v = static_cast<uint32_t>(diff); std::memcpy(at, &v, 4); break; }
            default: std::memcpy(at, &diff, 8); break;
        }
    }
    sealed_.push_back(std::move(s));
    open_.clear();  // keeps its capacity: the next chunk reuses it
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
