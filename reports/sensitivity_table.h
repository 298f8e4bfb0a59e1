#pragma once
// The sensitivity check's results (cli/sensitivity_check.h runs it; `eosim sensitivity`, `eosim
// suite --sensitivity`): per pass-expecting scenario x known-bad twin (scenarios/sensitivity.h),
// on how many seeds an oracle caught the twin and which, or why it did not run. As text (the
// table the commands print), JSON (sensitivity.json) and an HTML section of the suite report.
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/reproducer.h"

namespace eosim::reports {

struct TwinResult {
    std::string scenario;
    std::string file;
    std::string twin;
    std::string summary;   // what the twin breaks
    size_t seeds = 0;      // seeds it ran on
    bool skipped = false;  // the scenario lists it in "sensitivity": {"skip"}
    std::string why;       // the scenario's reason, when skipped
    std::string
        not_applicable;  // why the twin cannot run as the same scenario (the loader's error)
    int64_t caught = 0;  // seeds on which some oracle fired
    std::map<std::string, int64_t> by;  // oracle -> seeds it fired on
    int64_t errors = 0;                 // runs that did not complete (crash, timeout, garbage)
    std::string first_error;
    std::optional<uint64_t> first_caught_seed;

    // "caught", "NOT CAUGHT", "skipped", "not applicable" or "ERRORS".
    std::string verdict() const;
    bool blind() const { return !skipped && not_applicable.empty() && caught == 0; }
    // The twin's run with `seed` (what a sensitivity worker runs, with --json).
    scenarios::Reproducer reproducer(uint64_t seed) const;
    // "eosim run FILE --twin NAME --seed N" for the first seed that caught it ("" when none did).
    std::string reproduce() const;
    // "exactly_once_output 12, visibility 3".
    std::string by_text() const;
};

struct SensitivityTable {
    std::vector<TwinResult> twins;  // by scenario (the plan's order), then twin
    size_t runs = 0;                // twin runs made
    double wall_seconds = 0;

    size_t scenarios() const;
    size_t blind() const;  // twins NOT CAUGHT (or only errors)
    size_t skipped_or_not_applicable() const;
};

// The head line, the table and the verdict line, as `eosim sensitivity` prints them.
void write_sensitivity_text(std::ostream& out, const SensitivityTable& table);
nlohmann::json to_json(const SensitivityTable& table);
// An HTML section (<h2>Sensitivity</h2> and its table), for the suite report.
void write_sensitivity_html(std::ostream& out, const SensitivityTable& table);

}  // namespace eosim::reports
