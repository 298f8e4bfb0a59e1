#pragma once
// `eosim golden`: the trace hash and the state hash (what the outside systems hold at the end) of
// every scenario of a suite over a few seeds, compared with (or written to) a golden file. The
// design promises the same hash on every build type and compiler; the test suite (Release and
// sanitizer builds) and CI's clang build check this file to hold it.
//
// The golden file (tests/golden/trace-hashes.json) holds {"suite", "seeds", "hashes": {scenario:
// {seed: "16 hex digits"}}, "state_hashes": {the same}}, with paths relative to the project root
// ("hashes" are the trace hashes; a file without "state_hashes" has every state hash missing).
// Regenerate it with `build/cli/eosim golden --write` (from the project root) only in a commit
// whose message says why the hashes changed (tests/README.md).
//
// Not here: judging runs (the hash only; expectations are the suite's business).
#include <ostream>
#include <string>
#include <vector>

namespace eosim::cli {

struct GoldenCommand {
    std::string golden_path = "tests/golden/trace-hashes.json";
    std::string project_dir = ".";  // the suite path in the golden file is relative to this
    std::string suite_path;  // replaces the golden file's suite (with --write, or with no file yet)
    std::string seeds;       // replaces the golden file's seeds (likewise)
    bool write = false;      // write the hashes instead of checking them
};

// One scenario x seed whose hash is not the golden one (or that one side lacks).
struct GoldenMismatch {
    std::string hash;  // which: "trace" or "state"
    std::string scenario;
    std::string seed;
    std::string golden;  // "" when the golden file lacks it
    std::string actual;  // "" when the suite no longer has it
};

struct GoldenCheck {
    size_t runs = 0;
    std::vector<GoldenMismatch> mismatches;
    std::string describe() const;  // one line per mismatch, then how to regenerate
};

// Runs the golden file's suite x seeds and compares. Throws scenarios::ScenarioError or
// std::runtime_error when the golden file or a scenario cannot be read.
GoldenCheck check_golden(const GoldenCommand& command);

// Returns the exit code: 0 all hashes agree (or written), 1 some differ, 2 bad input.
int golden_command(const GoldenCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
