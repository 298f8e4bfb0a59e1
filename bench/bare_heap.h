#pragma once
// The practical limit of an event loop: a bare binary heap of (time, seq, index) entries
// (std::vector
// + push_heap / pop_heap, one latency draw per push) doing the pops and pushes of a ping-pong
// between `node_count` nodes. bench_sim_pingpong compares the simulator with it; bench_standard_run
// prints it as a yardstick of how fast the machine is at the moment (shared machines have slow
// phases).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "sim/prng.h"
#include "sim/time.h"

namespace eosim::bench {

struct BareResult {
    uint64_t operations;
    uint64_t checksum;
};

// The same work with nothing but a heap: pop the earliest (time, seq), push its answer.
inline BareResult bare_heap(uint32_t node_count, uint64_t events, uint64_t seed) {
    struct Entry {
        int64_t at_ns;
        uint64_t seq;
        uint32_t index;
    };
    auto later = [](const Entry& a, const Entry& b) {
        return a.at_ns != b.at_ns ? a.at_ns > b.at_ns : a.seq > b.seq;
    };
    const sim::Duration min = sim::Duration::micros(500);  // NetworkOptions' default remote latency
    const sim::Duration max = sim::Duration::millis(2);
    sim::Prng prng = sim::Prng(seed).fork("bare");
    std::vector<Entry> heap;
    heap.reserve(node_count);
    uint64_t seq = 0;
    uint64_t pushes_left = events;
    for (uint32_t i = 0; i < node_count && pushes_left > 0; ++i, --pushes_left) {
        heap.push_back(Entry{prng.duration_between(min, max).ns, seq++, i});
        std::push_heap(heap.begin(), heap.end(), later);
    }
    uint64_t checksum = 0;
    uint64_t operations = 0;
    while (!heap.empty()) {
        std::pop_heap(heap.begin(), heap.end(), later);
        const Entry entry = heap.back();
        heap.pop_back();
        ++operations;
        checksum = checksum * 31 + entry.index + static_cast<uint64_t>(entry.at_ns);
        if (pushes_left == 0) continue;
        --pushes_left;
        heap.push_back(
            Entry{entry.at_ns + prng.duration_between(min, max).ns, seq++, entry.index ^ 1U});
        std::push_heap(heap.begin(), heap.end(), later);
    }
    return BareResult{operations, checksum};
}

// The machine yardstick the benchmarks print: millions of bare-heap pops+pushes per second (64
// nodes' ping-pong, 2M events, best of 3).
inline double yardstick_mops() {
    double best = 0;
    for (int round = 0; round < 3; ++round) {
        const auto start = std::chrono::steady_clock::now();
        const BareResult r = bare_heap(64, 2'000'000, 1);
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        best = std::max(best, static_cast<double>(r.operations) / seconds / 1e6);
    }
    return best;
}

}  // namespace eosim::bench
