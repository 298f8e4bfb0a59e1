#pragma once
// A small binary encoding for snapshots: fixed-width little-endian integers and length-prefixed
// strings. Deterministic byte for byte, which keeps the trace hash stable.
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace eosim::engine {

class BlobWriter {
public:
    void put_i64(int64_t value) {
        char bytes[8];
        for (int i = 0; i < 8; ++i)
            bytes[i] = static_cast<char>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff);
        out_.append(bytes, 8);
    }
    void put_string(std::string_view text) {
        put_i64(static_cast<int64_t>(text.size()));
        out_.append(text);
    }
    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

class BlobReader {
public:
    explicit BlobReader(std::string_view in) : in_(in) {}
    int64_t get_i64() {
        if (in_.size() - pos_ < 8) throw std::runtime_error("snapshot blob truncated");
        uint64_t value = 0;
        for (int i = 0; i < 8; ++i)
            value |= static_cast<uint64_t>(static_cast<uint8_t>(in_[pos_ + i])) << (8 * i);
        pos_ += 8;
        return static_cast<int64_t>(value);
    }
    std::string get_string() {
        const auto size = static_cast<size_t>(get_i64());
        if (in_.size() - pos_ < size) throw std::runtime_error("snapshot blob truncated");
        std::string text(in_.substr(pos_, size));
        pos_ += size;
        return text;
    }
    bool done() const { return pos_ == in_.size(); }

private:
    std::string_view in_;
    size_t pos_ = 0;
};

}  // namespace eosim::engine
