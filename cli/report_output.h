#pragma once
// The outputs of a suite or a merge, from its sorted records: the summary table (stdout), the JUnit
// file, and the report folder (index.html, summary.json, and runs/<scenario>.seed-<N>.json plus
// .trace.json for every run the report shows).
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "reports/run_record.h"
#include "reports/suite_summary.h"

namespace eosim::cli {

struct ReportOutputs {
    std::string suite_name;
    std::string junit_path;   // "" for none
    std::string report_dir;   // "" for none
    std::vector<std::string> facts;     // lines for the HTML report's head
    std::vector<std::string> warnings;  // shown in the HTML report and printed
};

// Writes what `outputs` asks for and prints the summary, the failing runs and where every file
// went. Returns "" or what could not be written.
std::string write_outputs(const ReportOutputs& outputs, const std::vector<reports::RunRecord>& sorted_records,
                          std::ostream& out);

// Sorted by scenario name, then seed.
void sort_records(std::vector<reports::RunRecord>& records);

}  // namespace eosim::cli
