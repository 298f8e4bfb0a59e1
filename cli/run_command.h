#pragma once
// `eosim run FILE --seed N`: one scenario, one seed; the text report, or with --json one JSON
// object (a `reports::RunRecord`), which is also how suite workers answer.
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "scenarios/reproducer.h"
#include "scenarios/scenario.h"

namespace eosim::cli {

struct RunCommand {
    std::string file;
    uint64_t seed = 1;
    std::string trace_path;         // every event as JSON lines
    std::string trace_grep;         // only the trace lines that contain this (e.g. "window.fired")
    std::string chrome_trace_path;  // the run as Chrome trace events
    bool check_determinism = false;
    bool json = false;
    // With --json: whether the run's history (timeline, per-checkpoint figures, status history,
    // exceptions: most of the bytes) is in it: "all", "failing" (only when the run's expectation
    // was not met: a suite's worker whose history the suite keeps only then) or "none".
    std::string json_history = "all";
    std::string expect;       // "pass" or "violation:<oracle>": replaces the scenario's expectation
    uint64_t max_events = 0;  // cut the run after this many events (0: no limit)
    std::string max_virtual_time;  // cut the run at this virtual time if it comes before the
                                   // scenario's limit
    std::vector<std::string>
        savepoint_at;  // extra savepoints the user takes, at these virtual times
    std::string twin;  // run this known-bad twin of the scenario (scenarios/sensitivity.h) instead
    bool strict_faults = false;  // as the scenario's faults.strict: a scheduled fault that did not
                                 // fire with an effect fails the run
    // PCT message ordering (sim/priority_delivery.h), as `eosim explore --strategy pct` ran it:
    // 0 off (the default); 1..64 the depth d.
    uint32_t pct_depth = 0;
    uint64_t pct_steps =
        0;  // change points within the first this many messages (0: the default, 20,000)
};

// PCT options of `run`, `explore` and `shrink`: sets `scenario`'s priority-ordered delivery and
// the options of `reproduce`; returns what is wrong with them ("" when fine). Depth 0 with steps 0:
// off.
inline constexpr uint32_t kPctDepthMax = 64;
std::string apply_pct_option(uint32_t depth, uint64_t steps, scenarios::Scenario& scenario,
                             scenarios::Reproducer* reproduce);

// Returns the exit code: 0 expectation met, 1 not met, 2 bad input. Throws on internal errors.
int run_command(const RunCommand& command, std::ostream& out, std::ostream& err);

}  // namespace eosim::cli
