#pragma once
// The trace: every processed event is folded into a running 64-bit hash of (kind, time, node,
// payload digest). Two runs with the same scenario and seed must end with the same hash; that is
// the determinism check. Optionally every event is also written as a JSON line.
#include <cstdint>
#include <ostream>
#include <string_view>

#include "sim/prng.h"
#include "sim/time.h"

namespace eosim::sim {

// What happened, by name. Declare kinds as constants: `constexpr EventKind kFoo{"foo"};`.
struct EventKind {
    std::string_view name;
    uint64_t id;
    constexpr explicit EventKind(std::string_view n) : name(n), id(stable_hash(n)) {}
};

using NodeId = uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

// Mixes a value into a digest (for payload digests built from several fields).
constexpr uint64_t digest_mix(uint64_t h, uint64_t value) {
    uint64_t x = h ^ (value + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}
uint64_t digest_of(std::string_view text);

class Trace {
public:
    void record(const EventKind& kind, Time at, NodeId node, uint64_t digest) {
        uint64_t h = digest_mix(hash_, kind.id);
        h = digest_mix(h, static_cast<uint64_t>(at.ns));
        h = digest_mix(h, node);
        hash_ = digest_mix(h, digest);
        ++events_;
        if (log_ != nullptr) write_line(kind, at, node, digest);
    }

    uint64_t hash() const { return hash_; }
    uint64_t events() const { return events_; }
    // Writes every later event as one JSON object per line; nullptr stops logging.
    void set_log(std::ostream* log) { log_ = log; }

private:
    void write_line(const EventKind& kind, Time at, NodeId node, uint64_t digest);

    uint64_t hash_ = 0x243f6a8885a308d3ULL;
    uint64_t events_ = 0;
    std::ostream* log_ = nullptr;
};

}  // namespace eosim::sim
