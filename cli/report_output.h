#pragma once
// The outputs of a suite or a merge, from its sorted records: the summary table and the checkpoints
// per scenario (stdout; with `compare` also side by side, reports/checkpoint_compare.h), the JUnit
// file, and the report folder (index.html, summary.json, and runs/<scenario>.seed-<N>.json plus
// .trace.json for every run the report shows).
#include <filesystem>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reports/run_record.h"
#include "reports/sensitivity_table.h"
#include "reports/suite_summary.h"

namespace eosim::cli {

struct ReportOutputs {
    std::string suite_name;
    std::string junit_path;          // "" for none
    std::string report_dir;          // "" for none
    std::vector<std::string> facts;  // lines for the HTML report's head
    std::vector<std::string>
        warnings;  // shown in the HTML report (the caller prints them on stderr)
    // Per scenario, the coverage combinations some run must hit; checked when `check_sometimes`.
    std::map<std::string, std::vector<std::string>> sometimes;
    bool check_sometimes = true;
    bool print_coverage = false;  // print the table of every coverage combination the runs hit
    // The sensitivity check's table (suite --sensitivity): printed, in the HTML report and in
    // sensitivity.json; a twin NOT CAUGHT makes the outputs not met.
    std::optional<reports::SensitivityTable> sensitivity;
    bool compare = false;  // also print the checkpoints of the scenarios side by side (--compare)
};

// Writes what `outputs` asks for and prints the summary, the failing runs and where every file
// went. Returns "" or what could not be written; `all_met` says whether every run met its
// expectation and every checked "sometimes" combination happened.
std::string write_outputs(const ReportOutputs& outputs,
                          const std::vector<reports::RunRecord>& sorted_records, std::ostream& out,
                          bool& all_met);

// Sorted by scenario name, then seed.
void sort_records(std::vector<reports::RunRecord>& records);

}  // namespace eosim::cli
