#include "sim/prng.h"

#include <cassert>

namespace eosim::sim {

namespace {
constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Prng::Prng(uint64_t seed) : seed_(seed) {
    uint64_t state = seed;
    for (uint64_t& word : s_) word = splitmix64(state);
}

Prng Prng::fork(std::string_view stream_name) const { return fork(stable_hash(stream_name)); }

Prng Prng::fork(uint64_t stream_id) const {
    uint64_t mixed = seed_ ^ (stream_id * 0x9e3779b97f4a7c15ULL);
    return Prng(splitmix64(mixed));
}

uint64_t Prng::next() {
    ++draws_;
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
}

uint64_t Prng::below(uint64_t bound) {
    assert(bound > 0);
    __uint128_t product = static_cast<__uint128_t>(next()) * bound;
    auto low = static_cast<uint64_t>(product);
    if (low < bound) {
        const uint64_t threshold = -bound % bound;
        while (low < threshold) {
            product = static_cast<__uint128_t>(next()) * bound;
            low = static_cast<uint64_t>(product);
        }
    }
    return static_cast<uint64_t>(product >> 64);
}

int64_t Prng::between(int64_t low, int64_t high) {
    assert(low <= high);
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    if (span == UINT64_MAX) return static_cast<int64_t>(next());
    return static_cast<int64_t>(static_cast<uint64_t>(low) + below(span + 1));
}

Duration Prng::duration_between(Duration low, Duration high) {
    return Duration::nanos(between(low.ns, high.ns));
}

bool Prng::chance(Ratio ratio) {
    assert(ratio.denominator > 0 && ratio.numerator <= ratio.denominator);
    if (ratio.numerator == 0) return false;
    if (ratio.numerator >= ratio.denominator) return true;
    return below(ratio.denominator) < ratio.numerator;
}

}  // namespace eosim::sim
