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
    uint64_t seed_;
    uint64_t s_[4];
    uint64_t draws_ = 0;
};

}  // namespace eosim::sim
