#include "sim/packed_ints.h"

namespace eosim::sim {

void PackedInts::widen(int width) {
    std::vector<uint8_t> wider;
    // Room for what is there plus the growth the old buffer had planned.
    wider.reserve(std::max(bytes_.capacity() / static_cast<size_t>(width_), size_ + 1) * static_cast<size_t>(width));
    wider.resize(size_ * static_cast<size_t>(width));
    const int old_width = width_;
    for (size_t i = 0; i < size_; ++i) {
        const int64_t value = (*this)[i];
        width_ = width;
        store(wider.data() + i * static_cast<size_t>(width), value);
        width_ = old_width;
    }
    bytes_.swap(wider);
    width_ = width;
}

bool PackedInts::operator==(const PackedInts& other) const {
    if (size_ != other.size_) return false;
    for (size_t i = 0; i < size_; ++i) {
        if ((*this)[i] != other[i]) return false;
    }
    return true;
}

}  // namespace eosim::sim
