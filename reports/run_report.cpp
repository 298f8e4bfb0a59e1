#include "reports/run_report.h"

#include <cstdio>
#include <stdexcept>

#include "reports/anomaly_report.h"
#include "reports/history_text.h"
#include "reports/placement_report.h"
#include "reports/rollbacks_report.h"
#include "scenarios/fault_json.h"
#include "scenarios/random_faults.h"

namespace eosim::reports {

namespace {

// "12.345s" with integer arithmetic.
std::string format_time_ns(int64_t ns) {
    char text[48];
    std::snprintf(text, sizeof text, "%lld.%03llds", static_cast<long long>(ns / 1'000'000'000),
                  static_cast<long long>((ns / 1'000'000) % 1000));
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
        std::snprintf(text, sizeof text, "  %s  %-22s", verdict.passed ? "PASS" : "FAIL",
                      verdict.oracle.c_str());
        out << text << verdict.message << '\n';
    }
}

void write_figures(std::ostream& out, const scenarios::RunFigures& f) {
    out << "figures\n";
    write_row(out, "events", std::to_string(f.events));
    write_row(out, "virtual time", fixed(f.virtual_seconds, 3) + " s");
    std::string wall = fixed(f.wall_seconds, 3) + " s";
    if (f.wall_seconds > 0)
        wall += " (" + fixed(f.virtual_seconds / f.wall_seconds, 0) + "x real time)";
    write_row(out, "wall time", wall);
    std::string checkpoints = std::to_string(f.checkpoints_completed) + " completed, " +
                              std::to_string(f.checkpoints_aborted) + " aborted";
    std::string reasons;
    for (const auto& [reason, count] : f.checkpoints_aborted_by_reason) {
        reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(count);
    }
    if (!reasons.empty()) checkpoints += " (" + reasons + ")";
    write_row(out, "checkpoints", checkpoints);
    write_row(out, "checkpoint files",
              std::to_string(f.checkpoint_files_discarded) + " files / " +
                  std::to_string(f.checkpoint_bytes_discarded) + " bytes discarded; " +
                  std::to_string(f.checkpoint_files_unretained) + " files / " +
                  std::to_string(f.checkpoint_bytes_unretained) + " bytes left unretained; " +
                  std::to_string(f.checkpoint_files_retained) + " files / " +
                  std::to_string(f.checkpoint_bytes_retained) + " bytes retained");
    if (f.shared_bytes_referenced > 0) {
        write_row(out, "incremental state",
                  std::to_string(f.shared_bytes_uploaded) + " bytes uploaded of " +
                      std::to_string(f.shared_bytes_referenced) +
                      " bytes referred to by the completed checkpoints (" +
                      fixed(100.0 * static_cast<double>(f.shared_bytes_uploaded) /
                                static_cast<double>(f.shared_bytes_referenced),
                            1) +
                      "%)");
    }
    if (f.checkpoints_completed > 0) {
        write_row(out, "unaligned",
                  std::to_string(f.checkpoints_unaligned) +
                      " of the completed checkpoints (checkpoint summary below)");
    }
    write_row(out, "restarts",
              std::to_string(f.restarts) +
                  (f.failovers > f.restarts ? " (" + std::to_string(f.failovers) + " failovers: " +
                                                  std::to_string(f.failovers - f.restarts) +
                                                  " retried a restart whose deployment never ran)"
                                            : ""));
    if (f.jobmanager_failovers > 0) {
        write_row(
            out, "JM failovers",
            std::to_string(f.jobmanager_failovers) +
                " (the JobManager running the job lost, a new one recovered it: not in restarts; exceptions below)");
    }
    if (f.savepoints_completed > 0 || f.savepoints_stored > 0) {
        write_row(out, "savepoints",
                  std::to_string(f.savepoints_completed) + " completed; " +
                      std::to_string(f.savepoints_stored) + " in storage at the end (" +
                      std::to_string(f.savepoint_files) + " files, " +
                      std::to_string(f.savepoint_files_missing) + " referenced files missing)");
    }
    write_row(out, "transactions",
              std::to_string(f.transactions_committed) + " committed, " +
                  std::to_string(f.transactions_aborted) + " aborted, " +
                  std::to_string(f.fenced_calls) + " calls fenced (" +
                  std::to_string(f.fenced_writes) + " of them writes)");
    if (f.commit_errors > 0 || f.commit_outcomes_unknown > 0 || f.transactions_lost > 0) {
        write_row(out, "commits",
                  std::to_string(f.commit_errors) + " failed retriably, " +
                      std::to_string(f.commit_outcomes_unknown) +
                      " applied with the answer lost, " + std::to_string(f.transactions_lost) +
                      " transactions lost (likely data loss)");
    }
    if (f.leaderships > 0) {
        write_row(out, "leadership",
                  std::to_string(f.leaderships) + " granted, " +
                      std::to_string(f.sessions_expired) + " sessions expired; " +
                      std::to_string(f.checkpoints_stored) + " checkpoints stored, " +
                      std::to_string(f.store_refusals) + " store writes refused; " +
                      std::to_string(f.fenced_messages) + " JobManager messages fenced, " +
                      std::to_string(f.deployments_refused) + " deployments refused");
    }
    write_row(out, "faults injected", std::to_string(f.faults_injected));
    if (f.faults_planned > 0) {
        write_row(out, "faults planned",
                  describe_fault_tally({f.faults_planned, f.faults_fired, f.faults_without_effect,
                                        f.faults_not_fired}));
    }
    std::string records = std::to_string(f.records_in) +
                          (f.source_table_rows > 0 ? " change events in" : " in") + ", " +
                          std::to_string(f.records_out) + " out";
    if (f.source_table_rows > 0)
        records +=
            "; the source table holds " + std::to_string(f.source_table_rows) + " rows at the end";
    if (f.source_table_rows == 0 && f.records_read != f.records_in) {
        records += "; sources read " + std::to_string(f.records_read) +
                   " (replays after restores included)";
    }
    write_row(out, "records", records);
    if (f.outside_calls > 0) {
        write_row(out, "outside systems",
                  std::to_string(f.outside_calls) + " calls, " +
                      std::to_string(f.outside_calls_failed) + " failed, " +
                      std::to_string(f.absorbed_duplicates) +
                      " duplicates absorbed (writes that changed nothing)");
    }
}

// The faults drawn from faults.random for this seed: every drawn parameter, in plan order.
void write_fault_draw(std::ostream& out, const scenarios::Scenario& scenario,
                      const scenarios::RunResult& result) {
    if (!result.fault_draw) return;
    out << "faults drawn  " << scenarios::describe_draw(*result.fault_draw) << '\n';
    size_t index = scenario.faults.size();
    for (const sim::FaultSpec& fault : result.fault_draw->faults) {
        out << "  #" << index++ << "  " << scenarios::describe_fault(fault) << '\n';
    }
}

// Every planned fault: fired (what it hit), without effect, never fired (why).
void write_fault_accounts(std::ostream& out, const scenarios::RunResult& result) {
    if (result.fault_accounts.empty()) return;
    out << "faults accounted for\n";
    for (const scenarios::FaultAccount& a : result.fault_accounts)
        out << "  " << describe_fault_account(a) << '\n';
}

void write_coverage(std::ostream& out, const scenarios::RunResult& result) {
    if (result.coverage.empty()) return;
    out << "coverage   ";
    for (const auto& [combination, hits] : result.coverage)
        out << ' ' << combination << " x" << hits;
    out << '\n';
}

void write_faults(std::ostream& out, const scenarios::RunResult& result) {
    if (result.faults.empty()) return;
    out << "faults fired\n";
    for (const sim::FiredFault& fault : result.faults) {
        char text[80];
        std::snprintf(text, sizeof text, "  %10s  %-19s ", format_time_ns(fault.at.ns).c_str(),
                      to_string(fault.kind));
        out << text << fault.action << '\n';
    }
}

}  // namespace

std::string fixed(double value, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string hex64(uint64_t value) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
    return text;
}

std::string describe_expectation(const scenarios::Expectation& expect) {
    if (!expect.job_failure.empty()) {
        return "the job fails with \"" + expect.job_failure + "\"" +
               (expect.pass ? "" : ", and " + expect.violation + " fires");
    }
    if (expect.pass) return "pass";
    return std::string("violation of ") + expect.violation +
           (expect.every_seed ? "" : " (on some seeds)");
}

void write_run_report(std::ostream& out, const scenarios::Scenario& scenario,
                      const scenarios::RunResult& result, const std::string& reproduce) {
    out << "scenario    " << result.scenario;
    if (!scenario.source.empty()) out << "  (" << scenario.source.string() << ")";
    out << '\n';
    out << "seed        " << result.seed << '\n';
    out << "job         " << (result.job_finished ? "finished" : "did not finish");
    if (!result.cut.empty())
        out << ": " << result.cut;  // said first: the verdicts below are of a cut run
    out << '\n';
    write_verdicts(out, result);
    out << "expected    " << describe_expectation(scenario.expect) << '\n';
    out << "outcome     " << (result.expectation_met ? "expectation met" : "EXPECTATION NOT MET");
    if (!result.expectation_message.empty()) out << ": " << result.expectation_message;
    out << '\n';
    write_rollbacks_text(out, result.rollbacks);
    out << "trace hash  " << hex64(result.trace_hash) << "  state hash  "
        << hex64(result.state_hash) << '\n';
    write_anomalies(out, result.anomalies);
    write_figures(out, result.figures);
    write_checkpoint_summary(out, result.checkpoint_summary);
    write_checkpoint_history(out, result.checkpoints);
    write_savepoints(out, result.checkpoints);
    write_deployments(out, result.deployments);
    write_status_history(out, result.status_history);
    write_exceptions(out, result.exceptions);
    write_uncompleted_restores(out, result.checkpoints);
    write_back_pressure(out, result.back_pressure);
    write_placements(out, result.placements);
    write_fault_draw(out, scenario, result);
    for (const std::string& line : result.deployments_drawn)
        out << "deployment drawn  " << line << '\n';
    write_faults(out, result);
    write_fault_accounts(out, result);
    write_coverage(out, result);
    out << "reproduce   " << reproduce << '\n';
}

std::string describe_fault_tally(const scenarios::FaultTally& t) {
    return std::to_string(t.planned) + " planned: " + std::to_string(t.fired) + " fired, " +
           std::to_string(t.without_effect) + " without effect, " + std::to_string(t.not_fired) +
           " never fired";
}

std::string describe_fault_account(const scenarios::FaultAccount& a) {
    const char* outcome = a.outcome == scenarios::FaultOutcome::fired       ? "fired         "
                          : a.outcome == scenarios::FaultOutcome::no_effect ? "WITHOUT EFFECT"
                                                                            : "NEVER FIRED   ";
    std::string text = std::to_string(a.plan_index);
    text.insert(text.begin(), '#');
    if (a.drawn) text += " (drawn)";
    text.append("  ")
        .append(outcome)
        .append("  ")
        .append(a.kind)
        .append(" ")
        .append(a.trigger)
        .append(": ")
        .append(a.detail);
    return text;
}

nlohmann::json fault_accounts_to_json(const std::vector<scenarios::FaultAccount>& accounts) {
    nlohmann::json out = nlohmann::json::array();
    for (const scenarios::FaultAccount& a : accounts) {
        nlohmann::json j = {{"plan_index", a.plan_index},
                            {"drawn", a.drawn},
                            {"kind", a.kind},
                            {"trigger", a.trigger},
                            {"outcome", to_string(a.outcome)},
                            {"hits", a.hits},
                            {"detail", a.detail}};
        if (a.at_ns >= 0) {
            j["at_ns"] = a.at_ns;
            j["nodes"] = a.nodes;
        }
        out.push_back(std::move(j));
    }
    return out;
}

std::vector<scenarios::FaultAccount> fault_accounts_from_json(const nlohmann::json& j) {
    std::vector<scenarios::FaultAccount> out;
    if (!j.is_array()) throw std::invalid_argument("/fault_accounts: expected an array");
    for (size_t i = 0; i < j.size(); ++i) {
        const nlohmann::json& e = j[i];
        const std::string path = "/fault_accounts/" + std::to_string(i);
        try {
            scenarios::FaultAccount a;
            a.plan_index = e.at("plan_index").get<size_t>();
            a.drawn = e.value("drawn", false);
            a.kind = e.at("kind").get<std::string>();
            a.trigger = e.value("trigger", std::string());
            const std::string outcome = e.at("outcome").get<std::string>();
            bool known = false;
            for (auto o : {scenarios::FaultOutcome::fired, scenarios::FaultOutcome::no_effect,
                           scenarios::FaultOutcome::not_fired}) {
                if (outcome == to_string(o)) {
                    a.outcome = o;
                    known = true;
                }
            }
            if (!known)
                throw std::invalid_argument(
                    path + "/outcome: expected fired, no_effect or not_fired, found \"" + outcome +
                    "\"");
            a.hits = e.value("hits", int64_t{0});
            a.detail = e.value("detail", std::string());
            a.at_ns = e.value("at_ns", int64_t{-1});
            a.nodes = e.value("nodes", std::vector<std::string>{});
            out.push_back(std::move(a));
        } catch (const nlohmann::json::exception& error) {
            throw std::invalid_argument(path + ": " + error.what());
        }
    }
    return out;
}

nlohmann::json to_json(const scenarios::Expectation& expect) {
    nlohmann::json j = {{"pass", expect.pass}};
    if (!expect.pass) j["violation"] = expect.violation;
    if (!expect.pass && !expect.every_seed) j["every_seed"] = false;
    if (!expect.job_failure.empty()) j["job_failure"] = expect.job_failure;
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
        {"shared_bytes_uploaded", f.shared_bytes_uploaded},
        {"shared_bytes_referenced", f.shared_bytes_referenced},
        {"restarts", f.restarts},
        {"failovers", f.failovers},
        {"jobmanager_failovers", f.jobmanager_failovers},
        {"savepoints_completed", f.savepoints_completed},
        {"savepoints_stored", f.savepoints_stored},
        {"savepoint_files", f.savepoint_files},
        {"savepoint_files_missing", f.savepoint_files_missing},
        {"transactions_committed", f.transactions_committed},
        {"transactions_aborted", f.transactions_aborted},
        {"fenced_calls", f.fenced_calls},
        {"commit_errors", f.commit_errors},
        {"commit_outcomes_unknown", f.commit_outcomes_unknown},
        {"transactions_lost", f.transactions_lost},
        {"fenced_writes", f.fenced_writes},
        {"faults_injected", f.faults_injected},
        {"faults_planned", f.faults_planned},
        {"faults_fired", f.faults_fired},
        {"faults_without_effect", f.faults_without_effect},
        {"faults_not_fired", f.faults_not_fired},
        {"leaderships", f.leaderships},
        {"checkpoints_stored", f.checkpoints_stored},
        {"store_refusals", f.store_refusals},
        {"fenced_messages", f.fenced_messages},
        {"deployments_refused", f.deployments_refused},
        {"sessions_expired", f.sessions_expired},
        {"records_in", f.records_in},
        {"records_out", f.records_out},
        {"records_read", f.records_read},
        {"source_table_rows", f.source_table_rows},
        {"outside_calls", f.outside_calls},
        {"outside_calls_failed", f.outside_calls_failed},
        {"absorbed_duplicates", f.absorbed_duplicates},
        {"checkpoints_unaligned", f.checkpoints_unaligned},
        {"checkpoint_duration_median_ms", f.checkpoint_duration_median_ms},
        {"checkpoint_duration_p99_ms", f.checkpoint_duration_p99_ms},
        {"checkpoint_duration_max_ms", f.checkpoint_duration_max_ms},
        {"alignment_median_ms", f.alignment_median_ms},
        {"alignment_max_ms", f.alignment_max_ms},
        {"checkpoint_bytes_median", f.checkpoint_bytes_median},
        {"channel_state_bytes_median", f.channel_state_bytes_median},
        {"checkpoints_failed", f.checkpoints_failed},
        {"failed_alignment_max_ms", f.failed_alignment_max_ms},
        {"failed_start_delay_max_ms", f.failed_start_delay_max_ms},
        {"start_delay_max_ms", f.start_delay_max_ms},
        {"persisted_bytes_max", f.persisted_bytes_max},
    };
}

nlohmann::json to_json(const scenarios::RunResult& result) {
    using nlohmann::json;
    json verdicts = json::array();
    for (const scenarios::OracleVerdict& v : result.verdicts) {
        verdicts.push_back({{"oracle", v.oracle}, {"passed", v.passed}, {"message", v.message}});
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
        json e = {{"at_ns", event.at_ns},
                  {"lane", event.lane},
                  {"what", event.what},
                  {"detail", event.detail}};
        if (event.end_ns >= 0) e["end_ns"] = event.end_ns;
        timeline.push_back(std::move(e));
    }
    return json{
        {"scenario", result.scenario},
        {"seed", result.seed},
        {"trace_hash", hex64(result.trace_hash)},
        {"state_hash", hex64(result.state_hash)},
        {"job_finished", result.job_finished},
        {"verdicts", std::move(verdicts)},
        {"expectation_met", result.expectation_met},
        {"expectation_message", result.expectation_message},
        {"figures", to_json(result.figures)},
        {"checkpoints", checkpoints_to_json(result.checkpoints)},
        {"checkpoint_summary", to_json(result.checkpoint_summary)},
        {"status_history", status_history_to_json(result.status_history)},
        {"exceptions", exceptions_to_json(result.exceptions)},
        {"deployments", deployments_to_json(result.deployments)},
        {"back_pressure", back_pressure_to_json(result.back_pressure)},
        {"rollbacks", rollbacks_to_json(result.rollbacks)},
        {"anomalies", to_json(result.anomalies)},
        {"placements", placements_to_json(result.placements)},
        {"faults", std::move(faults)},
        {"fault_accounts", fault_accounts_to_json(result.fault_accounts)},
        {"timeline", std::move(timeline)},
    };
}

}  // namespace eosim::reports
