#pragma once
// `eosim explore FILE [--seeds A..B | --time-budget 60s] [--jobs J]`: runs many seeds of one
// scenario in-process on J threads (runs share nothing: each builds its own world), prints every
// seed where an oracle fired as `seed=N oracle=NAME` with the command that reproduces it, and a
// summary. Random faults are drawn as the scenario's `faults.random` says (swarm unless it says
// "fixed"). With a time budget (wall clock: it only decides when to stop starting seeds) seeds
// run upwards from the first seed of --seeds (default 1).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

namespace eosim::cli {

struct ExploreCommand {
    std::string file;
    std::optional<std::string> seeds;        // "1..200"
    std::optional<std::string> time_budget;  // "60s"
    size_t jobs = 0;                         // 0: one per CPU
    uint64_t max_events = 50'000'000;        // per run (a hang guard)
};

// Exit code: 0 when every seed gave the outcome `eosim run` accepts (for a negative control: the
// expected violation or, with every_seed false, nothing) and a negative control's violation showed
// on at least one seed -- for a negative control finding violations is success; 1 when some seed
// fired an oracle the scenario does not expect (or was cut at a limit), or a negative control never
// showed its violation, or a "sometimes" combination of the scenario was never hit (the coverage
// table of all the seeds is printed at the end); 2 bad input.
int explore_command(const ExploreCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
