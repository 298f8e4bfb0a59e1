#pragma once
// `eosim shrink FILE --seed N [--out MIN.json]`: replays a failing run, makes its fault schedule
// explicit and minimises it (scenarios/shrinker.h) while the same oracle keeps firing with the
// same outcome; writes a standalone scenario that `eosim run MIN.json --seed N` reproduces, checks
// that it does, and prints the faults before and after and the number of replays.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace eosim::cli {

struct ShrinkCommand {
    std::string file;
    uint64_t seed = 1;
    std::string out;               // default: <file stem>-seed<N>-min.json in the current folder
    size_t max_replays = 1000;
    uint64_t max_events = 50'000'000;  // per replay
    bool verbose = false;              // progress lines on stderr
};

// Exit code: 0 shrunk and the written file reproduces the failure; 1 it does not reproduce;
// 2 bad input (unreadable scenario, a seed where no oracle fires, an unwritable output file).
int shrink_command(const ShrinkCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
