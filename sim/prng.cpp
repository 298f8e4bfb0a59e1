#include "sim/prng.h"

namespace eosim::sim {

Prng::Prng(uint64_t seed) : seed_(seed) {
    uint64_t state = seed;
    for (uint64_t& word : s_) word = splitmix64(state);
}

Prng Prng::fork(std::string_view stream_name) const { return fork(stable_hash(stream_name)); }

Prng Prng::fork(uint64_t stream_id) const {
    uint64_t mixed = seed_ ^ (stream_id * 0x9e3779b97f4a7c15ULL);
    return Prng(splitmix64(mixed));
}

}  // namespace eosim::sim
