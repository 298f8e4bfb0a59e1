#pragma once
// `eosim explore FILE [--seeds A..B | --time-budget 60s] [--jobs J] [--strategy swarm|pct|guided]`:
// runs many runs of one scenario in-process on J threads (runs share nothing: each builds its own
// world), prints every run where an oracle fired with the command that reproduces it, the
// progress (runs, distinct coverage keys, catches) on stderr, and a summary. The strategies are
// scenarios/exploration.h's: swarm (random faults as the scenario's `faults.random` says; the
// default, as before), pct (the same seeds with PCT message ordering of depth --pct-depth) and
// guided (a corpus of fault schedules mutated where coverage grew; a mutant that fires an oracle
// is written as a scenario file that `eosim run FILE --seed N` replays). With a time budget (wall
// clock: it only decides when to stop starting generations) seeds run upwards from the first seed
// of --seeds (default 1). --until-first stops after the generation of the first run that fired an
// oracle.
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
    size_t jobs = 0;                         // 0: one per CPU the process may use (cli/cpu_share.h)
    uint64_t max_events = 50'000'000;        // per run (a hang guard)
    std::string strategy = "swarm";          // swarm | pct | guided
    uint32_t pct_depth = 0;                  // pct: the depth d (0: 3)
    uint64_t pct_steps = 0;     // pct: change points within this many messages (0: 20,000)
    size_t guided_batch = 8;    // guided: runs per generation
    bool until_first = false;   // stop after the generation of the first catch
    std::string out_dir = ".";  // guided: where a catching mutant's scenario file goes
};

// Exit code: 0 when every run gave the outcome `eosim run` accepts (for a negative control: the
// expected violation or, with every_seed false, nothing) and a negative control's violation showed
// on at least one run -- for a negative control finding violations is success; 1 when some run
// fired an oracle the scenario does not expect (or was cut at a limit), or a negative control never
// showed its violation, or a "sometimes" combination of the scenario was never hit (the coverage
// table of all the runs is printed at the end); 2 bad input (command line, scenario file).
int explore_command(const ExploreCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
