#pragma once
// The command line that replays one run, built here and nowhere else:
//
//     eosim run FILE [--twin NAME] --seed N [--expect E] [--pct-depth D [--pct-steps S]]
//               [--savepoint-at T]... [--strict-faults]
//
// Every place that prints how to replay a run -- the run report and `eosim run --json`'s record,
// the suite's records, `eosim explore`'s catches and its shrink hint, `eosim shrink`'s result, the
// sensitivity table, the testkit's job-level failure and `eosim test-sink` -- fills a Reproducer
// and prints `text()`; the suite and the sensitivity check start their workers with `arguments()`
// plus the worker-only flags (`--json`, limits). So a printed reproducer is always one that
// `eosim run` accepts (tests/cli/test_reproducer.cpp parses every form with the CLI's own parser).
// `shrink_text()` is the same run handed to `eosim shrink` (which takes the file, the seed and the
// PCT options only).
#include <cstdint>
#include <string>
#include <vector>

namespace eosim::scenarios {

struct Scenario;

struct Reproducer {
    std::string program =
        "eosim";       // how the user calls the binary (a sink author's own, for the testkit)
    std::string file;  // the scenario file
    uint64_t seed = 1;
    std::string twin;    // a known-bad twin (scenarios/sensitivity.h), "" for the scenario itself
    std::string expect;  // --expect's text ("pass", "violation:<oracle>"), "" for the file's
    uint32_t pct_depth = 0;                 // 0: no PCT ordering
    uint64_t pct_steps = 0;                 // 0: the default (only with pct_depth)
    std::vector<std::string> savepoint_at;  // --savepoint-at times as given ("12s")
    bool strict_faults = false;

    // The run of `scenario` (its source file) with `seed`, nothing else given.
    static Reproducer of(const Scenario& scenario, uint64_t seed);

    // The arguments after the program: "run", FILE, the options in the order above.
    std::vector<std::string> arguments() const;
    // The program and the arguments, separated by spaces.
    std::string text() const;
    // " --pct-depth D --pct-steps S" (what `eosim shrink` and `eosim run` share), "" without PCT.
    std::string pct_options() const;
    // "eosim shrink FILE --seed N [--pct-depth D [--pct-steps S]]": the same run, minimised.
    std::string shrink_text() const;
};

}  // namespace eosim::scenarios
