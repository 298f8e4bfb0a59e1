#include "reports/junit_report.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "reports/run_report.h"
#include "reports/xml_text.h"

namespace eosim::reports {

namespace {

// The first line, at most 300 characters: for the message attribute.
std::string one_line(const std::string& text) {
    std::string line = text.substr(0, text.find('\n'));
    if (line.size() > 300) line = line.substr(0, 297) + "...";
    return line;
}

std::string failure_text(const RunRecord& r) {
    std::ostringstream out;
    out << "scenario:   " << r.scenario << " (" << r.file << ")\n";
    out << "seed:       " << r.seed << '\n';
    out << "expected:   " << describe_expectation(r.expect) << '\n';
    out << "outcome:    " << r.reason << '\n';
    if (!r.verdicts.empty()) {
        out << "oracles:\n";
        for (const scenarios::OracleVerdict& v : r.verdicts) {
            out << "  " << (v.passed ? "PASS " : "FAIL ") << v.oracle << ": " << v.message << '\n';
        }
    }
    if (!r.faults.empty()) {
        out << "faults fired:\n";
        for (const FaultRecord& f : r.faults) {
            char at[32];
            std::snprintf(at, sizeof at, "%.3fs", static_cast<double>(f.at_ns) / 1e9);
            const bool says_so = f.action.find("skipped") != std::string::npos;
            out << "  " << at << ' ' << f.kind << ": " << f.action
                << (f.skipped && !says_so ? " (skipped)" : "") << '\n';
        }
    }
    if (!r.trace_hash.empty()) out << "trace hash: " << r.trace_hash << '\n';
    if (!r.state_hash.empty()) out << "state hash: " << r.state_hash << '\n';
    if (!r.stderr_tail.empty())
        out << "standard error (end):\n"
            << r.stderr_tail << (r.stderr_tail.back() == '\n' ? "" : "\n");
    out << "reproduce:  " << r.reproduce << '\n';
    return out.str();
}

struct Counts {
    size_t tests = 0;
    size_t failures = 0;
    size_t errors = 0;
    double seconds = 0;
};

Counts count(const std::vector<const RunRecord*>& runs) {
    Counts c;
    for (const RunRecord* r : runs) {
        ++c.tests;
        if (r->status == RunStatus::failed) ++c.failures;
        if (r->status == RunStatus::error) ++c.errors;
        c.seconds += r->wall_seconds;
    }
    return c;
}

void write_testcase(std::ostream& out, const std::string& class_name, const RunRecord& r) {
    out << "    <testcase name=\"seed " << r.seed << "\" classname=\"" << xml_escape(class_name)
        << "\" time=\"" << fixed(r.wall_seconds, 3) << "\"";
    const bool has_faults = r.figures.faults_planned > 0;
    if (r.status == RunStatus::passed && !has_faults) {
        out << "/>\n";
        return;
    }
    out << ">\n";
    if (has_faults) {  // every planned fault accounted for (scenarios/fault_accounting.h)
        const scenarios::FaultTally t{r.figures.faults_planned, r.figures.faults_fired,
                                      r.figures.faults_without_effect, r.figures.faults_not_fired};
        out << "      <properties><property name=\"faults\" value=\""
            << xml_escape(describe_fault_tally(t)) << "\"/></properties>\n";
    }
    if (r.status == RunStatus::passed) {
        out << "    </testcase>\n";
        return;
    }
    const char* element = r.status == RunStatus::error ? "error" : "failure";
    std::string type = r.status == RunStatus::error ? "run-error" : "expectation";
    for (const scenarios::OracleVerdict& v : r.verdicts) {
        if (!v.passed && (r.expect.pass || v.oracle != r.expect.violation)) {
            type = v.oracle;
            break;
        }
    }
    out << "      <" << element << " message=\"" << xml_escape(one_line(r.reason)) << "\" type=\""
        << xml_escape(type) << "\">" << xml_escape(failure_text(r)) << "</" << element << ">\n";
    out << "    </testcase>\n";
}

// The extra testcase of a scenario with "sometimes" expectations; "" for none.
std::string sometimes_testcase(const std::string& scenario, const SuiteSummary* summary,
                               Counts& counts) {
    if (summary == nullptr) return "";
    for (const ScenarioSummary& s : summary->scenarios) {
        if (s.scenario != scenario || s.sometimes_runs.empty()) continue;
        std::ostringstream out;
        ++counts.tests;
        out << "    <testcase name=\"sometimes\" classname=\"" << xml_escape("eosim." + scenario)
            << "\" time=\"0.000\"";
        if (s.sometimes_missing.empty()) {
            out << "/>\n";
            return out.str();
        }
        ++counts.failures;
        std::string missing;
        for (const std::string& combination : s.sometimes_missing)
            missing += (missing.empty() ? "" : ", ") + combination;
        std::string text =
            "coverage combinations the scenario expects in some run, and in how many of its " +
            std::to_string(s.runs) + " runs they happened:\n";
        for (const auto& [combination, runs] : s.sometimes_runs)
            text += "  " + combination + ": " + std::to_string(runs) + "\n";
        out << ">\n      <failure message=\"" << xml_escape("never happened in any run: " + missing)
            << "\" type=\"sometimes\">" << xml_escape(text) << "</failure>\n    </testcase>\n";
        return out.str();
    }
    return "";
}

}  // namespace

void write_junit(std::ostream& out, const std::string& suite_name,
                 const std::vector<RunRecord>& records, const SuiteSummary* summary) {
    std::map<std::string, std::vector<const RunRecord*>> by_scenario;
    std::vector<const RunRecord*> all;
    for (const RunRecord& r : records) {
        by_scenario[r.scenario].push_back(&r);
        all.push_back(&r);
    }
    std::map<std::string, std::string> extra;
    std::map<std::string, Counts> extra_counts;
    for (const auto& [scenario, runs] : by_scenario)
        extra[scenario] = sometimes_testcase(scenario, summary, extra_counts[scenario]);
    Counts total = count(all);
    for (const auto& [scenario, c] : extra_counts) {
        total.tests += c.tests;
        total.failures += c.failures;
    }
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out << "<testsuites name=\"" << xml_escape(suite_name) << "\" tests=\"" << total.tests
        << "\" failures=\"" << total.failures << "\" errors=\"" << total.errors << "\" time=\""
        << fixed(total.seconds, 3) << "\">\n";
    for (const auto& [scenario, runs] : by_scenario) {
        Counts c = count(runs);
        c.tests += extra_counts[scenario].tests;
        c.failures += extra_counts[scenario].failures;
        out << "  <testsuite name=\"" << xml_escape(scenario) << "\" tests=\"" << c.tests
            << "\" failures=\"" << c.failures << "\" errors=\"" << c.errors
            << "\" skipped=\"0\" time=\"" << fixed(c.seconds, 3) << "\">\n";
        for (const RunRecord* r : runs) write_testcase(out, "eosim." + scenario, *r);
        out << extra[scenario];
        out << "  </testsuite>\n";
    }
    out << "</testsuites>\n";
}

}  // namespace eosim::reports
