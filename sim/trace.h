#pragma once
// The trace: every processed event is folded into a running 64-bit hash of (kind, time, node,
// payload digest). Two runs with the same scenario and seed must end with the same hash; that is
// the determinism check. Optionally every event is also written as a JSON line, with the names a
// reader needs (the node's name, what a protocol point is): names only, never part of the hash.
#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
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
    // `note`: for the log only (e.g. the protocol point's name), never hashed.
    void record(const EventKind& kind, Time at, NodeId node, uint64_t digest,
                std::string_view note = {}) {
        uint64_t h = digest_mix(hash_, kind.id);
        h = digest_mix(h, static_cast<uint64_t>(at.ns));
        h = digest_mix(h, node);
        hash_ = digest_mix(h, digest);
        ++events_;
        if (log_ != nullptr) write_line(kind, at, node, digest, note);
    }
    bool logging() const { return log_ != nullptr; }
    // With a log only: the events of `digest` are about `note` (a barrier's channel and checkpoint,
    // a storage operation's path), written as their "what" when they carry no note of their own.
    // For the reader only: never hashed.
    void annotate(uint64_t digest, std::string note) {
        if (log_ != nullptr) notes_[digest] = std::move(note);
    }

    uint64_t hash() const { return hash_; }
    uint64_t events() const { return events_; }
    // Writes every later event as one JSON object per line; nullptr stops logging. `node_name`
    // (optional) names a line's node; `subject` (optional) what an event of (node, digest) is about
    // (e.g. the task whose timer it is), "" when it cannot tell.
    using NodeNamer = std::function<std::string(NodeId)>;
    using SubjectNamer = std::function<std::string(NodeId, uint64_t)>;
    void set_log(std::ostream* log, NodeNamer node_name = {}, SubjectNamer subject = {}) {
        log_ = log;
        node_name_ = std::move(node_name);
        subject_ = std::move(subject);
    }

private:
    // Only with --trace: kept out of line, so that the flattened hot path (Scheduler::step,
    // schedule_at, Network::send) does not pull json's construction and dump into itself when a
    // unity batch puts trace.cpp beside them (under the sanitizers that made one batch a
    // 10-minute compile).
    [[gnu::cold, gnu::noinline]] void write_line(const EventKind& kind, Time at, NodeId node,
                                                 uint64_t digest, std::string_view note);

    uint64_t hash_ = 0x243f6a8885a308d3ULL;
    uint64_t events_ = 0;
    std::ostream* log_ = nullptr;
    NodeNamer node_name_;
    SubjectNamer subject_;
    std::map<uint64_t, std::string> notes_;  // annotate(): by digest, only while logging
};

}  // namespace eosim::sim
