#pragma once
// `eosim test-sink --command CMD [--level contract|jobs|both] [--cases N] [--seed S]`: the sink
// testkit's two levels (testkit/sink_contract.h, testkit/sink_jobs.h) on a sink in any language,
// run as a process sink (engine/connectors/process/, docs/sink-protocol.md), with the testkit's
// defaults, shrinking and reports.
//
// A counterexample is written to a replay file in --out (default eosim-testkit-failures/): at the
// job level the shrunk standalone scenario (replay: eosim run FILE --seed N), at the contract level
// a JSON file of this command's arguments (replay: eosim test-sink --replay FILE).
// Exit code: 0 every level passed; 1 a counterexample (its replay file named on stdout); 2 bad
// input (the command line, or the sink broke the protocol: the error names the command, the last
// message sent and the offending line).
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace eosim::cli {

struct TestSinkCommand {
    std::string command;         // the sink's command line (split at blanks; quotes group)
    std::string replay;          // a contract-level replay file instead of the options below
    std::string level = "both";  // contract, jobs or both
    int cases = 0;               // 0: the testkit's defaults (100 contract cases, 10 jobs x 2 runs)
    uint64_t seed = 1;
    std::string guarantee = "exactly_once";  // or at_least_once: what the sink promises
    std::string cwd;                         // where the command runs (default: here)
    int answer_timeout_ms = 10000;           // the watchdog for one line from the sink
    std::string out = "eosim-testkit-failures";
    std::string eosim_program = "eosim";  // how replay commands name this program
};

int test_sink_command(const TestSinkCommand& command, std::ostream& out, std::ostream& err);

// `text` split at blanks, single and double quotes grouping (no other shell syntax); throws
// std::invalid_argument for an unclosed quote.
std::vector<std::string> split_command_line(const std::string& text);

}  // namespace eosim::cli
