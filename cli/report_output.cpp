#include "cli/report_output.h"

#include <algorithm>
#include <sstream>

#include "cli/files.h"
#include "reports/checkpoint_compare.h"
#include "reports/chrome_trace.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "scenarios/coverage.h"

namespace eosim::cli {

namespace {

constexpr size_t kFailuresListed = 20;

std::string dump(const nlohmann::json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Removes run files of an earlier report in the same folder, so the folder shows this suite only.
void clear_old_run_files(const std::filesystem::path& runs) {
    std::error_code error;
    if (!std::filesystem::is_directory(runs, error)) return;
    for (const auto& entry : std::filesystem::directory_iterator(runs, error)) {
        const std::string name = entry.path().filename().string();
        if (name.find(".seed-") != std::string::npos && entry.path().extension() == ".json") {
            std::filesystem::remove(entry.path(), error);
        }
    }
}

std::string write_report_dir(const ReportOutputs& outputs,
                             const std::vector<reports::RunRecord>& records,
                             const reports::SuiteSummary& summary) {
    const std::filesystem::path dir = outputs.report_dir;
    clear_old_run_files(dir / "runs");
    for (const reports::RunRecord& r : records) {
        if (!reports::shown_in_report(r)) continue;
        const std::filesystem::path stem = dir / reports::run_file_stem(r);
        std::string error =
            write_file_atomically(stem.string() + ".json", dump(reports::to_json(r)));
        if (error.empty() && r.has_timeline) {
            error = write_file_atomically(
                stem.string() + ".trace.json",
                reports::chrome_trace(r).dump(-1, ' ', false,
                                              nlohmann::json::error_handler_t::replace));
        }
        if (!error.empty()) return error;
    }
    nlohmann::json summary_json = reports::to_json(summary);
    summary_json["checkpoints"] = reports::to_json(reports::checkpoints_per_scenario(records));
    if (std::string error = write_file_atomically(dir / "summary.json", dump(summary_json));
        !error.empty()) {
        return error;
    }
    if (outputs.sensitivity) {
        if (std::string error = write_file_atomically(dir / "sensitivity.json",
                                                      dump(reports::to_json(*outputs.sensitivity)));
            !error.empty()) {
            return error;
        }
    }
    reports::HtmlReport html;
    html.title = "eosim suite " + outputs.suite_name;
    html.facts = outputs.facts;
    html.warnings = outputs.warnings;
    html.summary = summary;
    html.records = records;
    if (outputs.sensitivity) html.sensitivity = &*outputs.sensitivity;
    std::ostringstream page;
    reports::write_html_report(page, html);
    return write_file_atomically(dir / "index.html", page.str());
}

}  // namespace

void sort_records(std::vector<reports::RunRecord>& records) {
    std::sort(records.begin(), records.end(),
              [](const reports::RunRecord& a, const reports::RunRecord& b) {
                  return a.scenario != b.scenario ? a.scenario < b.scenario : a.seed < b.seed;
              });
}

std::string write_outputs(const ReportOutputs& outputs,
                          const std::vector<reports::RunRecord>& records, std::ostream& out,
                          bool& all_met) {
    const reports::SuiteSummary summary =
        reports::summarize(records, outputs.check_sometimes ? &outputs.sometimes : nullptr);
    all_met = summary.all_met();
    out << '\n';
    reports::write_summary_table(out, summary);
    const std::vector<reports::ScenarioCheckpoints> checkpoints =
        reports::checkpoints_per_scenario(records);
    out << '\n';
    reports::write_checkpoint_table(out, checkpoints);
    if (outputs.compare) {
        out << '\n';
        reports::write_checkpoint_compare(out, checkpoints);
    }
    if (outputs.print_coverage) {
        scenarios::CoverageSummary coverage;
        for (const reports::RunRecord& r : records) coverage.add_run(r.coverage);
        out << '\n' << scenarios::coverage_table(coverage);
    }
    size_t listed = 0;
    for (const reports::RunRecord& r : records) {
        if (r.status == reports::RunStatus::passed) continue;
        if (listed == 0) out << "\nruns that did not meet their expectation:\n";
        if (++listed > kFailuresListed) continue;
        out << "  " << (r.status == reports::RunStatus::error ? "ERROR  " : "FAILED ") << r.scenario
            << " seed " << r.seed << ": " << r.reason << "\n         reproduce: " << r.reproduce
            << '\n';
    }
    if (listed > kFailuresListed)
        out << "  ... and " << listed - kFailuresListed << " more (see the report)\n";
    if (outputs.sensitivity) {
        out << '\n';
        reports::write_sensitivity_text(out, *outputs.sensitivity);
        if (outputs.sensitivity->blind() > 0) all_met = false;
    }

    if (!outputs.junit_path.empty()) {
        std::ostringstream xml;
        reports::write_junit(xml, outputs.suite_name, records, &summary);
        if (std::string error = write_file_atomically(outputs.junit_path, xml.str());
            !error.empty())
            return error;
        out << "JUnit:   " << outputs.junit_path << '\n';
    }
    if (!outputs.report_dir.empty()) {
        if (std::string error = write_report_dir(outputs, records, summary); !error.empty())
            return error;
        out << "report:  " << (std::filesystem::path(outputs.report_dir) / "index.html").string()
            << '\n';
    }
    return "";
}

}  // namespace eosim::cli
