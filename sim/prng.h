#pragma once
// The simulator's randomness: xoshiro256** seeded through splitmix64, with portable integer
// distributions (Lemire's nearly-divisionless bounded draw). Nothing from <random> is used: the
// output of std:: distributions is implementation-defined, and a seed in a bug report must mean the
// same run on every compiler and every library version.
//
// Streams: `fork(name)` derives an independent generator from this one's *seed* and a name, not
// from its current state, so an extra draw in one component never shifts another's sequence.
#include <cstdint>
#include <string_view>

#include "sim/invariant.h"
#include "sim/time.h"

namespace eosim::sim {

// A probability as an integer ratio, so no floating point ever reaches a decision.
struct Ratio {
    uint64_t numerator = 0;
    uint64_t denominator = 1;

    static constexpr Ratio never() { return Ratio{0, 1}; }
    static constexpr Ratio always() { return Ratio{1, 1}; }
    constexpr bool is_zero() const { return numerator == 0; }
};

constexpr uint64_t splitmix64(uint64_t& state) {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// FNV-1a over a name: stable across platforms, used to derive stream seeds and event-kind ids.
constexpr uint64_t stable_hash(std::string_view text) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : text) {
        h ^= static_cast<uint8_t>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

class Prng {
public:
    explicit Prng(uint64_t seed);

    uint64_t seed() const { return seed_; }
    Prng fork(std::string_view stream_name) const;
    Prng fork(uint64_t stream_id) const;

    uint64_t next();
    // Uniform in [0, bound); bound > 0.
    uint64_t below(uint64_t bound);
    // Uniform in [low, high], inclusive.
    int64_t between(int64_t low, int64_t high);
    Duration duration_between(Duration low, Duration high);
    bool chance(Ratio ratio);
    // How many values this stream has produced (for "unseed" checks and logs).
    uint64_t draws() const { return draws_; }

private:
    static constexpr uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

    uint64_t seed_;
    uint64_t s_[4];
    uint64_t draws_ = 0;
};

// The draws are defined here, inline: they run once or more per simulated event.

inline uint64_t Prng::next() {
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

inline uint64_t Prng::below(uint64_t bound) {
    EOSIM_INVARIANT(bound > 0, "a draw below a positive bound");
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

inline int64_t Prng::between(int64_t low, int64_t high) {
    EOSIM_INVARIANT(low <= high, "a draw between an ordered pair");
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    if (span == UINT64_MAX) return static_cast<int64_t>(next());
    return static_cast<int64_t>(static_cast<uint64_t>(low) + below(span + 1));
}

inline Duration Prng::duration_between(Duration low, Duration high) {
    return Duration::nanos(between(low.ns, high.ns));
}

inline bool Prng::chance(Ratio ratio) {
    EOSIM_INVARIANT(ratio.denominator > 0 && ratio.numerator <= ratio.denominator,
                    "a chance is a ratio in [0, 1]");
    if (ratio.numerator == 0) return false;
    if (ratio.numerator >= ratio.denominator) return true;
    return below(ratio.denominator) < ratio.numerator;
}

}  // namespace eosim::sim
