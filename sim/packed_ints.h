#pragma once
// A column of 64-bit integers stored as narrow as its values allow: each value takes 1, 2, 4 or 8
// bytes, the width of the widest value appended so far (the column re-packs itself, once per
// widening, when a wider value arrives). Random access, append only. What the outside-system models
// and the reference model keep per record (keys, values, transaction numbers) is small integers
// almost always, so a record costs a few bytes instead of 16-24.
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

namespace eosim::sim {

class PackedInts {
public:
    void push_back(int64_t value) {
        const int needed = width_of(value);
        if (needed > width_) widen(needed);
        const size_t at = bytes_.size();
        bytes_.resize(at + static_cast<size_t>(width_));
        store(bytes_.data() + at, value);
        ++size_;
    }
    int64_t operator[](size_t index) const {
        const uint8_t* at = bytes_.data() + index * static_cast<size_t>(width_);
        switch (width_) {
            case 1: return static_cast<int8_t>(*at);
            case 2: { int16_t v; std::memcpy(&v, at, 2); return v; }
            case 4: { int32_t v; std::memcpy(&v, at, 4); return v; }
            default: { int64_t v; std::memcpy(&v, at, 8); return v; }
        }
    }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    void reserve(size_t values) { bytes_.reserve(values * static_cast<size_t>(width_)); }
    int width() const { return width_; }        // bytes per value now
    size_t bytes() const { return bytes_.capacity(); }  // memory held
    void clear() {
        bytes_.clear();
        size_ = 0;
        width_ = 1;
    }
    bool operator==(const PackedInts& other) const;

private:
    static int width_of(int64_t value) {
        if (value >= INT8_MIN && value <= INT8_MAX) return 1;
        if (value >= INT16_MIN && value <= INT16_MAX) return 2;
        if (value >= INT32_MIN && value <= INT32_MAX) return 4;
        return 8;
    }
    void store(uint8_t* at, int64_t value) const {
        switch (width_) {
            case 1: *at = static_cast<uint8_t>(static_cast<int8_t>(value)); break;
            case 2: { const auto v = static_cast<int16_t>(value); std::memcpy(at, &v, 2); break; }
            case 4: { const auto v = static_cast<int32_t>(value); std::memcpy(at, &v, 4); break; }
            default: std::memcpy(at, &value, 8); break;
        }
    }
    void widen(int width);

    std::vector<uint8_t> bytes_;
    size_t size_ = 0;
    int width_ = 1;
};

}  // namespace eosim::sim
