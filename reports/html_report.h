#pragma once
// A suite's report as one self-contained HTML page (inline CSS and SVG; no script, no network, so
// it opens from disk and renders anywhere): a verdict line, the summary table, the runs that did
// not meet their expectation with the command that reproduces each, and a section per drawn run
// with its verdicts, figures, faults and its timeline (timeline_svg.h).
//
// Which runs are drawn: every run whose record carries a timeline (suites keep it for failing runs
// and for the first seed of each scenario), at most `max_drawn_per_scenario` per scenario (failing
// runs first); the other failing runs are listed with links to their JSON.
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "reports/run_record.h"
#include "reports/sensitivity_table.h"
#include "reports/suite_summary.h"

namespace eosim::reports {

struct HtmlReport {
    std::string title;                  // "eosim suite default"
    std::vector<std::string> facts;     // lines under the title: command, jobs, shards, wall time
    std::vector<std::string> warnings;  // e.g. runs of the plan without a result
    SuiteSummary summary;
    std::vector<RunRecord> records;  // sorted by scenario, then seed
    bool run_files = true;  // shown runs have <run_file_stem>.json and .trace.json next to the page
    size_t max_drawn_per_scenario = 10;
    const SensitivityTable* sensitivity =
        nullptr;  // suite --sensitivity: its section after the summary
};

// Whether a run gets its own section, files and timeline in a report: it did not pass, or its
// record carries a timeline.
bool shown_in_report(const RunRecord& record);

// "runs/<scenario>.seed-<N>": where a shown run's files go, relative to the report's folder.
std::string run_file_stem(const RunRecord& record);

void write_html_report(std::ostream& out, const HtmlReport& report);

}  // namespace eosim::reports
