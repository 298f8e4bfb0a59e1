#include "reports/html_report.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "reports/anomaly_report.h"
#include "reports/checkpoint_compare.h"
#include "reports/checkpoint_panel_svg.h"
#include "reports/history_html.h"
#include "reports/placement_report.h"
#include "reports/rollbacks_report.h"
#include "reports/run_report.h"
#include "reports/timeline_model.h"
#include "reports/timeline_svg.h"
#include "reports/xml_text.h"
#include "sim/time.h"

namespace eosim::reports {

namespace {

constexpr const char* kStyle = R"css(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px 32px; color: #222; max-width: 1340px; }
h1 { font-size: 22px; margin: 0 0 6px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 22px 0 6px; }
.verdict { font-size: 16px; font-weight: 600; padding: 8px 12px; border-radius: 4px; display: inline-block; }
.verdict.ok { background: #e5f5e0; color: #1b5e20; }
.verdict.bad { background: #fde0dd; color: #a50f15; }
.warning { background: #fff3cd; color: #7a5b00; padding: 6px 10px; border-radius: 4px; }
ul.facts { color: #555; margin: 8px 0; padding-left: 18px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.bad td { background: #fff0ee; }
tr.total td { font-weight: 600; background: #fafafa; }
.pass { color: #1b7e26; font-weight: 600; }
.expected { color: #8a5300; font-weight: 600; }
.fail { color: #b71c1c; font-weight: 600; }
.error { color: #fff; background: #b71c1c; padding: 0 4px; border-radius: 3px; font-weight: 600; }
code, pre { font-family: "SFMono-Regular", Consolas, "Liberation Mono", monospace; font-size: 12px; }
pre { background: #f6f6f6; padding: 6px 8px; overflow-x: auto; white-space: pre-wrap; }
section.run { border: 1px solid #ddd; border-radius: 4px; padding: 8px 14px 12px; margin: 12px 0; }
section.run.failed, section.run.error { border-color: #e57373; }
section.run h4 { margin: 4px 0 8px; font-size: 15px; }
.columns { display: flex; gap: 18px; flex-wrap: wrap; align-items: flex-start; margin-bottom: 8px; }
.svgbox { overflow-x: auto; border: 1px solid #eee; }
.links { font-size: 13px; color: #555; }
.cut { font-size: 13px; background: #fff4d6; padding: 4px; }
h5 { font-size: 14px; margin: 14px 0 6px; }
span.js { display: inline-block; width: 10px; height: 10px; margin-right: 5px; }
table.history details summary { cursor: pointer; color: #3b6fc4; }
table.sub { margin: 4px 0; }
table.history td.n, table.sub td.n { white-space: nowrap; }
)css";

std::string h(const std::string& text) { return xml_escape(text); }

std::string anchor(const RunRecord& r) { return "run-" + run_file_stem(r).substr(5); }

// A run's status in a word; a negative control that met its expectation says what it found
// instead of PASSED (run_outcome), never in green.
std::string status_badge(const RunRecord& r) {
    if (r.status == RunStatus::passed && run_outcome(r) != "PASSED")
        return "<span class=\"expected\">" + h(run_outcome(r)) + "</span>";
    switch (r.status) {
        case RunStatus::passed: return "<span class=\"pass\">PASSED</span>";
        case RunStatus::failed: return "<span class=\"fail\">FAILED</span>";
        case RunStatus::error: return "<span class=\"error\">ERROR</span>";
    }
    return "";
}

void write_summary(std::ostream& out, const SuiteSummary& summary) {
    out << "<table class=\"summary\">\n<tr><th>scenario</th><th>expect</th><th>seeds</th><th>runs</th><th>passed</th>"
           "<th>failed</th><th>errors</th><th>expected violations found</th><th>result</th>"
           "<th>faults planned / fired / without effect</th><th>wall time</th></tr>\n";
    for (const ScenarioSummary& s : summary.scenarios) {
        const std::string result = scenario_result(s, summary.sometimes_checked);
        out << "<tr" << (result != "ok" ? " class=\"bad\"" : "") << "><td>" << h(s.scenario)
            << "</td><td>" << h(s.expectation) << "</td><td>" << h(seed_ranges(s.seeds))
            << "</td><td class=\"n\">" << s.runs << "</td><td class=\"n\">" << s.passed
            << "</td><td class=\"n\">" << s.failed << "</td><td class=\"n\">" << s.errors
            << "</td><td class=\"n\">"
            << (s.expects_violation ? std::to_string(s.violations_found) : "-") << "</td><td>"
            << h(result) << "</td><td class=\"n\">" << faults_text(s.faults)
            << "</td><td class=\"n\">" << fixed(s.wall_seconds, 1) << "s</td></tr>\n";
    }
    const ScenarioSummary& t = summary.total;
    out << "<tr class=\"total\"><td>total</td><td></td><td></td><td class=\"n\">" << t.runs
        << "</td><td class=\"n\">" << t.passed << "</td><td class=\"n\">" << t.failed
        << "</td><td class=\"n\">" << t.errors << "</td><td class=\"n\">" << t.violations_found
        << "</td><td></td><td class=\"n\">" << faults_text(t.faults) << "</td><td class=\"n\">"
        << fixed(t.wall_seconds, 1) << "s</td></tr>\n</table>\n";
    out << "<p class=\"links\">passed: the run met its scenario's expectation (for a negative control: the expected "
           "oracle fired, and no other, or on a seed that did not reach the bug, none); result: NOT FOUND for a negative "
           "control whose violation appeared in none of its runs; errors: runs that crashed, hung or ran out of memory; faults: the planned "
           "faults of the runs, those that fired and hit something, and those that fired without effect (the rest "
           "never fired; each run's table says why); wall time: the runs' own wall time, added up.</p>\n";
}

// Per scenario: the coverage combinations its runs hit (scenarios/coverage.h), with those it
// expects "sometimes" marked, and those never hit.
void write_suite_coverage(std::ostream& out, const SuiteSummary& summary,
                          const std::vector<RunRecord>& records) {
    struct Count {
        int64_t hits = 0;
        int64_t runs = 0;
    };
    std::map<std::string, std::map<std::string, Count>> by_scenario;
    for (const RunRecord& r : records) {
        for (const auto& [combination, hits] : r.coverage) {
            Count& c = by_scenario[r.scenario][combination];
            c.hits += hits;
            c.runs += 1;
        }
    }
    bool any = false;
    for (const ScenarioSummary& s : summary.scenarios)
        any = any || !s.sometimes_runs.empty() || by_scenario.count(s.scenario) != 0;
    if (!any) return;
    out << "<h2>Coverage</h2>\n<p class=\"links\">Fault x protocol-phase combinations (scenarios/coverage.h). A "
           "combination a scenario expects <em>sometimes</em> must happen in at least one of its runs"
        << (summary.sometimes_checked ? ""
                                      : " (not checked here: this is one shard; the merge checks)")
        << "; runs: the runs in which it happened; hits: how often, in all runs together.</p>\n";
    auto row = [&out](const std::string& scenario, const std::string& combination, const Count& c,
                      const char* verdict, bool bad) {
        out << "<tr" << (bad ? " class=\"bad\"" : "") << "><td>" << h(scenario) << "</td><td>"
            << h(combination) << "</td><td class=\"n\">" << c.runs << "</td><td class=\"n\">"
            << c.hits << "</td><td>" << verdict << "</td></tr>\n";
    };
    const char* header =
        "<tr><th>scenario</th><th>combination</th><th>runs</th><th>hits</th><th></th></tr>\n";
    bool any_expected = false;
    for (const ScenarioSummary& s : summary.scenarios)
        any_expected = any_expected || !s.sometimes_runs.empty();
    if (any_expected) {
        out << "<table class=\"coverage\">\n" << header;
        for (const ScenarioSummary& s : summary.scenarios) {
            for (const auto& [combination, runs] : s.sometimes_runs) {
                const Count c = by_scenario[s.scenario][combination];
                const bool never = c.runs == 0;
                row(s.scenario, combination, c,
                    never ? "<span class=\"fail\">NEVER HIT</span>"
                          : "<span class=\"pass\">sometimes: ok</span>",
                    never);
            }
        }
        out << "</table>\n";
    }
    size_t combinations = 0;
    for (const auto& [scenario, rows] : by_scenario) combinations += rows.size();
    out << "<details><summary>Every combination the runs hit (" << combinations
        << ")</summary>\n<table class=\"coverage\">\n"
        << header;
    for (const auto& [scenario, rows] : by_scenario) {
        for (const auto& [combination, c] : rows) row(scenario, combination, c, "", false);
    }
    out << "</table>\n</details>\n";
}

void write_links(std::ostream& out, const RunRecord& r, bool run_files) {
    out << "<p class=\"links\">reproduce: <code>" << h(r.reproduce) << "</code>";
    if (run_files) {
        out << " &#183; <a href=\"" << h(run_file_stem(r)) << ".json\">run JSON</a>";
        if (r.has_timeline) {
            out << " &#183; <a href=\"" << h(run_file_stem(r))
                << ".trace.json\">Chrome trace</a> (open in ui.perfetto.dev or chrome://tracing)";
        }
    }
    out << "</p>\n";
}

void write_failing_table(std::ostream& out, const std::vector<const RunRecord*>& failing,
                         const std::map<const RunRecord*, bool>& drawn, bool run_files) {
    out << "<table class=\"failing\">\n<tr><th>scenario</th><th>seed</th><th>status</th><th>reason</th>"
           "<th>reproduce</th><th>details</th></tr>\n";
    for (const RunRecord* r : failing) {
        out << "<tr><td>" << h(r->scenario) << "</td><td class=\"n\">" << r->seed << "</td><td>"
            << status_badge(*r) << "</td><td>" << h(r->reason) << "</td><td><code>"
            << h(r->reproduce) << "</code></td><td>";
        if (drawn.count(r) != 0) out << "<a href=\"#" << h(anchor(*r)) << "\">timeline</a> ";
        if (run_files) out << "<a href=\"" << h(run_file_stem(*r)) << ".json\">JSON</a>";
        out << "</td></tr>\n";
    }
    out << "</table>\n";
}

void write_run_tables(std::ostream& out, const RunRecord& r) {
    out << "<div class=\"columns\">\n<table>\n";
    out << "<tr><th>expected</th><td>" << h(describe_expectation(r.expect)) << "</td></tr>\n";
    out << "<tr><th>outcome</th><td>" << h(r.expectation_message) << "</td></tr>\n";
    out << "<tr><th>job</th><td>" << (r.job_finished ? "finished" : "did not finish")
        << "</td></tr>\n";
    if (!r.trace_hash.empty())
        out << "<tr><th>trace hash</th><td><code>" << h(r.trace_hash) << "</code></td></tr>\n";
    if (!r.state_hash.empty())
        out << "<tr><th>state hash</th><td><code>" << h(r.state_hash) << "</code></td></tr>\n";
    const scenarios::RunFigures& f = r.figures;
    out << "<tr><th>virtual time</th><td>" << fixed(f.virtual_seconds, 3) << " s (" << f.events
        << " events, " << fixed(r.wall_seconds, 3) << " s wall)</td></tr>\n";
    out << "<tr><th>checkpoints</th><td>" << f.checkpoints_completed << " completed, "
        << f.checkpoints_aborted << " aborted; " << f.restarts << " restarts";
    if (f.jobmanager_failovers > 0)
        out << "; " << f.jobmanager_failovers << " JobManager failovers";
    out << "</td></tr>\n";
    if (!f.checkpoints_aborted_by_reason.empty()) {
        out << "<tr><th>aborted by reason</th><td>";
        const char* separator = "";
        for (const auto& [reason, count] : f.checkpoints_aborted_by_reason) {
            out << separator << h(reason) << " " << count;
            separator = ", ";
        }
        out << "</td></tr>\n";
    }
    out << "<tr><th>checkpoint files</th><td>" << f.checkpoint_files_discarded << " files / "
        << f.checkpoint_bytes_discarded << " bytes discarded; " << f.checkpoint_files_unretained
        << " files / " << f.checkpoint_bytes_unretained << " bytes left unretained; "
        << f.checkpoint_files_retained << " files / " << f.checkpoint_bytes_retained
        << " bytes retained</td></tr>\n";
    out << "<tr><th>transactions</th><td>" << f.transactions_committed << " committed, "
        << f.transactions_aborted << " aborted</td></tr>\n";
    out << "<tr><th>records</th><td>" << f.records_in
        << (f.source_table_rows > 0 ? " change events in, " : " in, ") << f.records_out
        << " out</td></tr>\n";
    if (f.outside_calls > 0) {
        out << "<tr><th>outside systems</th><td>" << f.outside_calls << " calls, "
            << f.outside_calls_failed << " failed, " << f.absorbed_duplicates
            << " duplicates absorbed (writes that changed nothing)</td></tr>\n";
    }
    if (!r.fault_draw.empty())
        out << "<tr><th>random faults</th><td>" << h(r.fault_draw) << "</td></tr>\n";
    out << "</table>\n";
    if (!r.verdicts.empty()) {
        out << "<table>\n<tr><th>oracle</th><th>verdict</th><th>message</th></tr>\n";
        for (const scenarios::OracleVerdict& v : r.verdicts) {
            out << "<tr><td>" << v.oracle << "</td><td>"
                << (v.passed ? "<span class=\"pass\">pass</span>"
                             : "<span class=\"fail\">violated</span>")
                << "</td><td>" << h(v.message) << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    if (!r.fault_accounts
             .empty()) {  // every planned fault accounted for (scenarios/fault_accounting.h)
        const scenarios::FaultTally t{f.faults_planned, f.faults_fired, f.faults_without_effect,
                                      f.faults_not_fired};
        out << "<table>\n<tr><th>#</th><th>planned fault</th><th>outcome</th><th>"
            << h(describe_fault_tally(t)) << "</th></tr>\n";
        for (const scenarios::FaultAccount& a : r.fault_accounts) {
            const bool good = a.outcome == scenarios::FaultOutcome::fired;
            out << "<tr" << (good ? "" : " class=\"bad\"") << "><td class=\"n\">" << a.plan_index
                << (a.drawn ? " (drawn)" : "") << "</td><td>" << h(a.kind + " " + a.trigger)
                << "</td><td>"
                << (good ? "<span class=\"pass\">fired</span>"
                    : a.outcome == scenarios::FaultOutcome::no_effect
                        ? "<span class=\"fail\">without effect</span>"
                        : "<span class=\"fail\">never fired</span>")
                << "</td><td>" << h(a.detail) << "</td></tr>\n";
        }
        if (static_cast<int64_t>(r.fault_accounts.size()) < f.faults_planned) {
            out << "<tr><td colspan=\"4\">("
                << f.faults_planned - static_cast<int64_t>(r.fault_accounts.size())
                << " more not kept in the record; `reproduce` lists them all)</td></tr>\n";
        }
        out << "</table>\n";
    }
    if (!r.faults.empty()) {
        out << "<table>\n<tr><th>at</th><th>fault</th><th>what it did</th></tr>\n";
        for (const FaultRecord& fault : r.faults) {
            out << "<tr><td class=\"n\">" << sim::seconds_text(fault.at_ns) << "</td><td>"
                << h(fault.kind) << "</td><td>" << h(fault.action)
                << (fault.skipped && fault.action.find("skipped") == std::string::npos
                        ? " (skipped)"
                        : "")
                << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    out << "</div>\n";
}

void write_run_section(std::ostream& out, const RunRecord& r, bool run_files) {
    const char* css = r.status == RunStatus::passed
                          ? "passed"
                          : (r.status == RunStatus::failed ? "failed" : "error");
    out << "<section class=\"run " << css << "\" id=\"" << h(anchor(r)) << "\">\n";
    out << "<h4>" << h(r.scenario) << ", seed " << r.seed << ": " << status_badge(r);
    if (!r.reason.empty()) out << " " << h(r.reason);
    out << "</h4>\n";
    write_rollbacks_html(out, r.rollbacks);
    write_run_tables(out, r);
    write_anomalies_html(out, r.anomalies);
    if (r.has_timeline) {
        if (r.timeline_events_cut > 0) {
            out << "<p class=\"cut\">This timeline was thinned: " << r.timeline_events_cut << " of "
                << r.timeline_events_cut + static_cast<int64_t>(r.timeline.size())
                << " events left out (watermark spans merged first, then pre-commit marks and connector events). "
                << (r.timeline_essential_cut > 0
                        ? "It was still too long: its latest faults, failovers, checkpoints and "
                          "transaction ends are cut too, and what they would close is drawn as unknown. "
                        : "Every fault, failover, checkpoint and transaction begin and end is drawn. ")
                << "The whole timeline: <code>" << h(r.reproduce) << " --json</code>.</p>\n";
        }
        out << "<div class=\"svgbox\">\n" << timeline_svg(build_timeline_model(r)) << "</div>\n";
        write_job_history_html(out, r);
        if (!r.checkpoints.empty())
            out << "<div class=\"svgbox\">\n" << checkpoint_panel_svg(r.checkpoints) << "</div>\n";
        write_checkpoint_history_html(out, r);
        write_back_pressure_html(out, r);
        write_placements_html(out, r.placements);
    } else if (r.status == RunStatus::error && !r.stderr_tail.empty()) {
        out << "<p>The run did not complete; the end of its standard error:</p>\n<pre>"
            << h(r.stderr_tail) << "</pre>\n";
    }
    write_links(out, r, run_files);
    out << "</section>\n";
}

}  // namespace

bool shown_in_report(const RunRecord& record) {
    return record.status != RunStatus::passed || record.has_timeline;
}

std::string run_file_stem(const RunRecord& record) {
    std::string name;
    for (char c : record.scenario) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        name += plain ? c : '_';
    }
    return "runs/" + name + ".seed-" + std::to_string(record.seed);
}

void write_html_report(std::ostream& out, const HtmlReport& report) {
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>"
        << h(report.title) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
    out << "<h1>" << h(report.title) << "</h1>\n";
    const ScenarioSummary& total = report.summary.total;
    size_t never = 0;
    for (const ScenarioSummary& s : report.summary.scenarios) never += s.sometimes_missing.size();
    if (report.summary.all_met() && report.warnings.empty()) {
        out << "<p class=\"verdict ok\">All " << total.runs
            << " runs met their expectations.</p>\n";
    } else if (total.failed > 0) {
        out << "<p class=\"verdict bad\">" << total.failed << " of " << total.runs
            << " runs did not meet their expectations"
            << (total.errors > 0 ? " (" + std::to_string(total.errors) + " did not complete)" : "")
            << (never > 0 ? "; " + std::to_string(never) +
                                " expected coverage combination(s) never happened"
                          : "")
            << ".</p>\n";
    } else if (never > 0) {
        out << "<p class=\"verdict bad\">All " << total.runs << " runs met their expectations, but "
            << never
            << " coverage combination(s) a scenario expects sometimes never happened (see Coverage).</p>\n";
    } else {
        out << "<p class=\"verdict bad\">All " << total.runs
            << " runs met their expectations, but the results are "
            << "incomplete (see below).</p>\n";
    }
    for (const std::string& warning : report.warnings)
        out << "<p class=\"warning\">" << h(warning) << "</p>\n";
    if (!report.facts.empty()) {
        out << "<ul class=\"facts\">\n";
        for (const std::string& fact : report.facts) out << "<li>" << h(fact) << "</li>\n";
        out << "</ul>\n";
    }
    out << "<h2>Summary</h2>\n";
    write_summary(out, report.summary);
    write_checkpoint_table_html(out, checkpoints_per_scenario(report.records));
    if (report.sensitivity != nullptr) write_sensitivity_html(out, *report.sensitivity);

    // Which runs get drawn: per scenario, failing runs first, then the others that carry a
    // timeline.
    std::map<std::string, std::vector<const RunRecord*>> drawn_by_scenario;
    std::map<const RunRecord*, bool> drawn;
    std::vector<const RunRecord*> failing;
    for (const RunRecord& r : report.records) {
        if (r.status != RunStatus::passed) failing.push_back(&r);
    }
    for (int pass = 0; pass < 2; ++pass) {
        for (const RunRecord& r : report.records) {
            const bool failed = r.status != RunStatus::passed;
            if ((pass == 0) != failed || !shown_in_report(r)) continue;
            auto& list = drawn_by_scenario[r.scenario];
            if (list.size() >= report.max_drawn_per_scenario) continue;
            list.push_back(&r);
            drawn[&r] = true;
        }
    }
    if (!failing.empty()) {
        out << "<h2>Runs that did not meet their expectation</h2>\n";
        write_failing_table(out, failing, drawn, report.run_files);
    }
    write_suite_coverage(out, report.summary, report.records);
    out << "<h2>Timelines</h2>\n<p class=\"links\">x: virtual time. Faults are bands on the lane of the node or "
           "resource they hit, shaded faintly across every lane; checkpoints and transactions are bars from trigger "
           "(begin) to completion (commit) or abort; hover over any shape for details.</p>\n";
    // Scenarios with failing runs first, then the others; by name within each.
    std::vector<std::pair<std::string, std::vector<const RunRecord*>>> ordered(
        drawn_by_scenario.begin(), drawn_by_scenario.end());
    std::stable_partition(ordered.begin(), ordered.end(), [](const auto& entry) {
        return std::any_of(entry.second.begin(), entry.second.end(),
                           [](const RunRecord* r) { return r->status != RunStatus::passed; });
    });
    for (const auto& [scenario, runs] : ordered) {
        out << "<h3>" << h(scenario) << "</h3>\n";
        std::vector<const RunRecord*> sorted = runs;
        std::stable_sort(sorted.begin(), sorted.end(),
                         [](const RunRecord* a, const RunRecord* b) { return a->seed < b->seed; });
        for (const RunRecord* r : sorted) write_run_section(out, *r, report.run_files);
    }
    out << "</body>\n</html>\n";
}

}  // namespace eosim::reports
