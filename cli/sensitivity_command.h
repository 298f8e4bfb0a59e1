#pragma once
// `eosim sensitivity PATH [--seeds A..B]`: could the scenarios have failed? For every scenario of
// PATH (a scenario, suite file or folder, as `eosim suite` takes it) that expects every oracle to
// pass, each known-bad twin that applies to it (scenarios/sensitivity.h) runs over the same seeds,
// as worker processes (`eosim run FILE --twin NAME --seed N --json`), and the table says per
// scenario x twin on how many seeds an oracle caught it, and which. A twin caught on no seed is
// NOT CAUGHT: the scenario is blind to that class of bug, unless it says why it does not target it
// ("sensitivity": {"skip", "why"}). A twin the loader refuses (a fault at a point only the original
// announces) is "n/a", with the loader's reason.
#include <optional>
#include <ostream>
#include <string>

namespace eosim::cli {

struct SensitivityCommand {
    std::string path;
    std::optional<std::string>
        seeds;  // replaces every seed range of the plan (default: the plan's)
    unsigned jobs =
        0;  // worker processes at a time (0: one per CPU the process may use, cli/cpu_share.h)
    std::string timeout = "60s";  // wall-clock limit per run
    std::string json_path;        // also write the table as JSON here
    std::string self_program;     // this program (eosim_main resolves it); else /proc/self/exe
    int (*self_entry)(int, char**) = nullptr;  // its entry (eosim_main): workers fork without exec
};

// 0: every twin that applies was caught on some seed or is skipped with a reason; 1: some twin was
// NOT CAUGHT (or a run failed to run); 2: bad input.
int sensitivity_command(const SensitivityCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
