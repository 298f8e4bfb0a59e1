#include "reports/run_report.h"

#include "scenarios/fault_json.h"
#include "scenarios/random_faults.h"

#include <cstdio>

namespace eosim::reports {

namespace {

// "12.345s" with integer arithmetic.
std::string format_time_ns(int64_t ns) {
    char text[48];
    std::snprintf(text, sizeof text, "%lld.%03llds", static_cast<long long>(ns / 1'000'000'000),
                  static_cast<long long>((ns / 1'000'000) % 1000));
    return text;
}

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

void write_row(std::ostream& out, const char* label, const std::string& value) {
    char text[32];
    std::snprintf(text, sizeof text, "  %-18s", label);
    out << text << value << '\n';
}

void write_verdicts(std::ostream& out, const scenarios::RunResult& result) {
    out << "oracles\n";
    if (result.verdicts.empty()) out << "  (none)\n";
    for (const scenarios::OracleVerdict& verdict : result.verdicts) {
        char text[64];
        std::snprintf(text, sizeof text, "  %s  %-22s", verdict.passed ? "PASS" : "FAIL", to_string(verdict.oracle));
        out << text << verdict.message << '\n';
    }
}

void write_figures(std::ostream& out, const scenarios::RunFigures& f) {
    out << "figures\n";
    write_row(out, "events", std::to_string(f.events));
    write_row(out, "virtual time", fixed(f.virtual_seconds, 3) + " s");
    std::string wall = fixed(f.wall_seconds, 3) + " s";
    if (f.wall_seconds > 0) wall += " (" + fixed(f.virtual_seconds / f.wall_seconds, 0) + "x real time)";
    write_row(out, "wall time", wall);
    std::string checkpoints = std::to_string(f.checkpoints_completed) + " completed, " + std::to_string(f.checkpoints_aborted) + " aborted";
    std::string reasons;
    for (const auto& [reason, count] : f.checkpoints_aborted_by_reason) {
        reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(count);
    }
    if (!reasons.empty()) checkpoints += " (" + reasons + ")";
    write_row(out, "checkpoints", checkpoints);
    write_row(out, "checkpoint files",
              std::to_string(f.checkpoint_files_discarded) + " files / " + std::to_string(f.checkpoint_bytes_discarded) +
                  " bytes discarded; " + std::to_string(f.checkpoint_files_unretained) + " files / " +
                  std::to_string(f.checkpoint_bytes_unretained) + " bytes left unretained; " +
                  std::to_string(f.checkpoint_files_retained) + " files / " + std::to_string(f.checkpoint_bytes_retained) +
                  " bytes retained");
    write_row(out, "restarts", std::to_string(f.restarts));
    write_row(out, "transactions",
              std::to_string(f.transactions_committed) + " committed, " + std::to_string(f.transactions_aborted) +
                  " aborted, " + std::to_string(f.fenced_calls) + " calls fenced");
    write_row(out, "faults injected", std::to_string(f.faults_injected));
    write_row(out, "records", std::to_string(f.records_in) + " in, " + std::to_string(f.records_out) + " out");
    if (f.outside_calls > 0) {
        write_row(out, "outside systems",
                  std::to_string(f.outside_calls) + " calls, " + std::to_string(f.outside_calls_failed) + " failed, " +
                      std::to_string(f.absorbed_duplicates) + " duplicates absorbed (writes that changed nothing)");
    }
}

// The faults drawn from faults.random for this seed: every drawn parameter, in plan order.
void write_fault_draw(std::ostream& out, const scenarios::Scenario& scenario, const scenarios::RunResult& result) {
    if (!result.fault_draw) return;
    out << "faults drawn  " << scenarios::describe_draw(*result.fault_draw) << '\n';
    size_t index = scenario.faults.size();
    for (const sim::FaultSpec& fault : result.fault_draw->faults) {
        out << "  #" << index++ << "  " << scenarios::describe_fault(fault) << '\n';
    }
}

void write_coverage(std::ostream& out, const scenarios::RunResult& result) {
    if (result.coverage.empty()) return;
    out << "coverage   ";
    for (const auto& [combination, hits] : result.coverage) out << ' ' << combination << " x" << hits;
    out << '\n';
}

void write_faults(std::ostream& out, const scenarios::RunResult& result) {
    if (result.faults.empty()) return;
    out << "faults fired\n";
    for (const sim::FiredFault& fault : result.faults) {
        char text[80];
        std::snprintf(text, sizeof text, "  %10s  %-19s ", format_time_ns(fault.at.ns).c_str(), to_string(fault.kind));
        out << text << fault.action << '\n';
    }
}

}  // namespace

std::string hex64(uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

std::string describe_expectation(const scenarios::Expectation& expect) {
    if (expect.pass) return "pass";
    return std::string("violation of ") + to_string(expect.violation) + (expect.every_seed ? "" : " (on some seeds)");
}

void write_run_report(std::ostream& out, const scenarios::Scenario& scenario, const scenarios::RunResult& result,
                      const std::string& reproduce) {
    out << "scenario    " << result.scenario;
    if (!scenario.source.empty()) out << "  (" << scenario.source.string() << ")";
    out << '\n';
    out << "seed        " << result.seed << '\n';
    out << "job         " << (result.job_finished ? "finished" : "did not finish");
    if (!result.cut.empty()) out << ": " << result.cut;  // said first: the verdicts below are of a cut run
    out << '\n';
    write_verdicts(out, result);
    out << "expected    " << describe_expectation(scenario.expect) << '\n';
    out << "outcome     " << (result.expectation_met ? "expectation met" : "EXPECTATION NOT MET");
    if (!result.expectation_message.empty()) out << ": " << result.expectation_message;
    out << '\n';
    out << "trace hash  " << hex64(result.trace_hash) << '\n';
    write_figures(out, result.figures);
    write_fault_draw(out, scenario, result);
    write_faults(out, result);
    write_coverage(out, result);
    out << "reproduce   " << reproduce << '\n';
}

nlohmann::json to_json(const scenarios::Expectation& expect) {
    nlohmann::json j = {{"pass", expect.pass}};
    if (!expect.pass) j["violation"] = to_string(expect.violation);
    if (!expect.pass && !expect.every_seed) j["every_seed"] = false;
    return j;
}

nlohmann::json to_json(const scenarios::RunFigures& f) {
    return nlohmann::json{
        {"events", f.events},
        {"virtual_seconds", f.virtual_seconds},
        {"wall_seconds", f.wall_seconds},
        {"checkpoints_completed", f.checkpoints_completed},
        {"checkpoints_aborted", f.checkpoints_aborted},
        {"checkpoints_aborted_by_reason", f.checkpoints_aborted_by_reason},
        {"checkpoint_files_discarded", f.checkpoint_files_discarded},
        {"checkpoint_bytes_discarded", f.checkpoint_bytes_discarded},
        {"checkpoint_files_unretained", f.checkpoint_files_unretained},
        {"checkpoint_bytes_unretained", f.checkpoint_bytes_unretained},
        {"checkpoint_files_retained", f.checkpoint_files_retained},
        {"checkpoint_bytes_retained", f.checkpoint_bytes_retained},
        {"restarts", f.restarts},
        {"transactions_committed", f.transactions_committed},
        {"transactions_aborted", f.transactions_aborted},
        {"fenced_calls", f.fenced_calls},
        {"faults_injected", f.faults_injected},
        {"records_in", f.records_in},
        {"records_out", f.records_out},
        {"outside_calls", f.outside_calls},
        {"outside_calls_failed", f.outside_calls_failed},
        {"absorbed_duplicates", f.absorbed_duplicates},
    };
}

nlohmann::json to_json(const scenarios::RunResult& result) {
    using nlohmann::json;
    json verdicts = json::array();
    for (const scenarios::OracleVerdict& v : result.verdicts) {
        verdicts.push_back({{"oracle", to_string(v.oracle)}, {"passed", v.passed}, {"message", v.message}});
    }
    json faults = json::array();
    for (const sim::FiredFault& fault : result.faults) {
        faults.push_back({{"at_ns", fault.at.ns},
                          {"kind", to_string(fault.kind)},
                          {"plan_index", fault.plan_index},
                          {"nodes", fault.nodes},
                          {"action", fault.action},
                          {"skipped", fault.skipped}});
    }
    json timeline = json::array();
    for (const scenarios::TimelineEvent& event : result.timeline) {
        json e = {{"at_ns", event.at_ns}, {"lane", event.lane}, {"what", event.what}, {"detail", event.detail}};
        if (event.end_ns >= 0) e["end_ns"] = event.end_ns;
        timeline.push_back(std::move(e));
    }
    return json{
        {"scenario", result.scenario},
        {"seed", result.seed},
        {"trace_hash", hex64(result.trace_hash)},
        {"job_finished", result.job_finished},
        {"verdicts", std::move(verdicts)},
        {"expectation_met", result.expectation_met},
        {"expectation_message", result.expectation_message},
        {"figures", to_json(result.figures)},
        {"faults", std::move(faults)},
        {"timeline", std::move(timeline)},
    };
}

}  // namespace eosim::reports
