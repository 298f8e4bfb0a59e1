#pragma once
// `eosim shrink FILE --seed N [--out MIN.json]`: replays a failing run, makes its fault schedule
// explicit and minimises it (scenarios/shrinker.h) while the same oracle keeps firing with the
// same outcome; writes a standalone scenario that `eosim run MIN.json --seed N` reproduces, checks
// that it does, and prints the faults before and after and the number of replays. A pct run shrinks
// with its --pct-depth (and --pct-steps): every replay and the check run with them, and the
// reproduce command names them (the scenario file has no key for them).
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace eosim::cli {

struct ShrinkCommand {
    std::string file;
    uint64_t seed = 1;
    std::string out;  // default: <file stem>-seed<N>-min.json in the current folder
    size_t max_replays = 1000;
    uint64_t max_events = 50'000'000;  // per replay
    bool verbose = false;              // progress lines on stderr
    uint32_t pct_depth =
        0;  // a pct run (`explore --strategy pct`): its PCT depth, also for every replay
    uint64_t pct_steps = 0;  // and its change-point steps (0: the default)
};

// Exit code: 0 shrunk and the written file reproduces the failure; 1 it does not reproduce;
// 2 bad input (unreadable scenario, a seed where no oracle fires, an unwritable output file).
int shrink_command(const ShrinkCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
