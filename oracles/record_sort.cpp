#include "oracles/record_sort.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace eosim::oracles {

namespace {

using engine::Record;

// Least-significant-digit radix sort of `codes` over its low `bytes` bytes.
void radix_sort_bytes(std::vector<uint64_t>& codes, int bytes) {
    std::vector<uint64_t> scratch(codes.size());
    for (int byte = 0; byte < bytes; ++byte) {
        const int shift = 8 * byte;
        std::array<size_t, 257> start{};
        for (uint64_t code : codes) ++start[((code >> shift) & 0xff) + 1];
        for (size_t digit = 1; digit < start.size(); ++digit) start[digit] += start[digit - 1];
        for (uint64_t code : codes) scratch[start[(code >> shift) & 0xff]++] = code;
        codes.swap(scratch);
    }
}

}  // namespace

void sort_records(std::vector<Record>& records) {
    constexpr size_t kSmall = 256;  // below this, std::sort is as fast and simpler
    if (records.size() < kSmall) {
        std::sort(records.begin(), records.end());
        return;
    }
    int64_t key_min = records.front().key, key_max = key_min;
    int64_t value_min = records.front().value, value_max = value_min;
    // The packed path orders by (key, value) only: it needs every other field equal in all records.
    const Record& first = records.front();
    bool same_rest = true;
    for (const Record& r : records) {
        key_min = std::min(key_min, r.key), key_max = std::max(key_max, r.key);
        value_min = std::min(value_min, r.value), value_max = std::max(value_max, r.value);
        same_rest = same_rest && r.version == first.version && r.kind == first.kind &&
                    r.timestamp == first.timestamp;
    }
    if (!same_rest) {
        std::sort(records.begin(), records.end());
        return;
    }
    // Spans as unsigned differences (no signed overflow); a code is key_offset * value_span +
    // value_offset, which orders like (key, value) and must fit in 64 bits.
    const uint64_t key_span = static_cast<uint64_t>(key_max) - static_cast<uint64_t>(key_min) + 1;
    const uint64_t value_span =
        static_cast<uint64_t>(value_max) - static_cast<uint64_t>(value_min) + 1;
    if (value_span == 0 || key_span == 0 ||
        key_span > UINT64_MAX / value_span) {  // 0: the span is all 2^64 values
        std::sort(records.begin(), records.end());
        return;
    }
    std::vector<uint64_t> codes;
    codes.reserve(records.size());
    for (const Record& r : records) {
        codes.push_back((static_cast<uint64_t>(r.key) - static_cast<uint64_t>(key_min)) *
                            value_span +
                        (static_cast<uint64_t>(r.value) - static_cast<uint64_t>(value_min)));
    }
    const uint64_t max_code = key_span * value_span - 1;
    int bytes = 0;
    while (bytes < 8 && (max_code >> (8 * bytes)) != 0) ++bytes;
    radix_sort_bytes(codes, bytes);
    for (size_t i = 0; i < codes.size(); ++i) {
        records[i].key =
            static_cast<int64_t>(codes[i] / value_span + static_cast<uint64_t>(key_min));
        records[i].value =
            static_cast<int64_t>(codes[i] % value_span + static_cast<uint64_t>(value_min));
    }
}

}  // namespace eosim::oracles
