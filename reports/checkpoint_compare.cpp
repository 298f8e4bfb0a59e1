#include "reports/checkpoint_compare.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "reports/history_text.h"
#include "reports/xml_text.h"

namespace eosim::reports {

namespace {

std::string reasons_text(const std::map<std::string, int64_t>& reasons) {
    std::string text;
    for (const auto& [reason, count] : reasons)
        text += (text.empty() ? "" : ", ") + reason + " " + std::to_string(count);
    return text.empty() ? "-" : text;
}

// The figures of a row, in table order: name, value text.
std::vector<std::pair<std::string, std::string>> cells(const ScenarioCheckpoints& s) {
    return {{"runs", std::to_string(s.runs)},
            {"completed", std::to_string(s.completed)},
            {"failed", std::to_string(s.failed)},
            {"failed by reason", reasons_text(s.failed_by_reason)},
            {"unaligned (completed)", std::to_string(s.unaligned)},
            {"duration p50", ms_text(s.duration_p50_ms)},
            {"duration max", ms_text(s.duration_max_ms)},
            {"start delay max", ms_text(s.start_delay_max_ms)},
            {"alignment max", ms_text(s.alignment_max_ms)},
            {"failed: start delay max", s.failed == 0 ? "-" : ms_text(s.failed_start_delay_max_ms)},
            {"failed: alignment max", s.failed == 0 ? "-" : ms_text(s.failed_alignment_max_ms)},
            {"persisted max", bytes_text(static_cast<double>(s.persisted_bytes_max))},
            {"restarts", std::to_string(s.restarts)}};
}

}  // namespace

std::vector<ScenarioCheckpoints> checkpoints_per_scenario(const std::vector<RunRecord>& records) {
    std::map<std::string, ScenarioCheckpoints> by_name;
    std::map<std::string, std::vector<double>> p50s;
    for (const RunRecord& r : records) {
        if (r.status == RunStatus::error) continue;
        const scenarios::RunFigures& f = r.figures;
        ScenarioCheckpoints& s = by_name[r.scenario];
        s.scenario = r.scenario;
        ++s.runs;
        s.completed += f.checkpoints_completed;
        s.failed += f.checkpoints_aborted;
        for (const auto& [reason, count] : f.checkpoints_aborted_by_reason)
            s.failed_by_reason[reason] += count;
        s.unaligned += f.checkpoints_unaligned;
        if (f.checkpoints_completed > 0)
            p50s[r.scenario].push_back(f.checkpoint_duration_median_ms);
        s.duration_max_ms = std::max(s.duration_max_ms, f.checkpoint_duration_max_ms);
        s.start_delay_max_ms = std::max(s.start_delay_max_ms, f.start_delay_max_ms);
        s.alignment_max_ms = std::max(s.alignment_max_ms, f.alignment_max_ms);
        s.failed_start_delay_max_ms =
            std::max(s.failed_start_delay_max_ms, f.failed_start_delay_max_ms);
        s.failed_alignment_max_ms = std::max(s.failed_alignment_max_ms, f.failed_alignment_max_ms);
        s.persisted_bytes_max = std::max(s.persisted_bytes_max, f.persisted_bytes_max);
        s.restarts += f.restarts;
    }
    std::vector<ScenarioCheckpoints> rows;
    for (auto& [name, s] : by_name) {
        std::vector<double>& values = p50s[name];
        if (!values.empty()) {
            std::sort(values.begin(), values.end());
            s.duration_p50_ms = values[values.size() / 2];
        }
        rows.push_back(std::move(s));
    }
    return rows;
}

void write_checkpoint_table(std::ostream& out, const std::vector<ScenarioCheckpoints>& rows) {
    if (rows.empty()) return;
    size_t name_width = 8;
    for (const ScenarioCheckpoints& s : rows) name_width = std::max(name_width, s.scenario.size());
    char line[512];
    auto row = [&](const std::string& name, const std::vector<std::string>& v) {
        std::snprintf(line, sizeof line, "%-*s %5s %4s %8s %8s %8s %8s %8s %8s %8s %8s\n",
                      static_cast<int>(name_width), name.c_str(), v[0].c_str(), v[1].c_str(),
                      v[2].c_str(), v[3].c_str(), v[4].c_str(), v[5].c_str(), v[6].c_str(),
                      v[7].c_str(), v[8].c_str(), v[9].c_str());
        out << line;
    };
    out << "checkpoints per scenario over its runs (ok: completed; fail: expired, declined, subsumed, failed; delay, align:\n"
           "their maximum start delay and alignment, f.: of the failed ones; persist: the most channel state persisted)\n";
    row("scenario", {"ok", "fail", "dur p50", "dur max", "delay", "align", "f.delay", "f.align",
                     "persist", "restarts"});
    for (const ScenarioCheckpoints& s : rows) {
        row(s.scenario,
            {std::to_string(s.completed), std::to_string(s.failed), ms_text(s.duration_p50_ms),
             ms_text(s.duration_max_ms), ms_text(s.start_delay_max_ms), ms_text(s.alignment_max_ms),
             s.failed == 0 ? "-" : ms_text(s.failed_start_delay_max_ms),
             s.failed == 0 ? "-" : ms_text(s.failed_alignment_max_ms),
             bytes_text(static_cast<double>(s.persisted_bytes_max)), std::to_string(s.restarts)});
    }
}

void write_checkpoint_compare(std::ostream& out, const std::vector<ScenarioCheckpoints>& rows) {
    if (rows.empty()) return;
    std::vector<std::vector<std::pair<std::string, std::string>>> columns;
    size_t label_width = 0;
    std::vector<size_t> widths;
    for (const ScenarioCheckpoints& s : rows) {
        columns.push_back(cells(s));
        size_t width = s.scenario.size();
        for (const auto& [label, value] : columns.back()) {
            label_width = std::max(label_width, label.size());
            width = std::max(width, value.size());
        }
        widths.push_back(width);
    }
    auto pad = [](const std::string& text, size_t width) {
        return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
    };
    // Every column padded but the last (no trailing blanks).
    auto line = [&](const std::string& label, const std::function<std::string(size_t)>& cell) {
        out << pad(label, label_width);
        for (size_t c = 0; c < rows.size(); ++c)
            out << "  " << (c + 1 == rows.size() ? cell(c) : pad(cell(c), widths[c]));
        out << '\n';
    };
    out << "compare: checkpoints side by side\n";
    line("", [&](size_t c) { return rows[c].scenario; });
    for (size_t i = 0; i < columns.front().size(); ++i) {
        line(columns.front()[i].first, [&](size_t c) { return columns[c][i].second; });
    }
}

void write_checkpoint_table_html(std::ostream& out, const std::vector<ScenarioCheckpoints>& rows) {
    if (rows.empty()) return;
    out << "<h3>Checkpoints per scenario</h3>\n<table>\n<tr><th>scenario</th>";
    for (const auto& [label, value] : cells(rows.front()))
        out << "<th>" << xml_escape(label) << "</th>";
    out << "</tr>\n";
    for (const ScenarioCheckpoints& s : rows) {
        out << "<tr" << (s.failed > 0 ? " class=\"bad\"" : "") << "><td>" << xml_escape(s.scenario)
            << "</td>";
        for (const auto& [label, value] : cells(s))
            out << "<td class=\"n\">" << xml_escape(value) << "</td>";
        out << "</tr>\n";
    }
    out << "</table>\n<p class=\"links\">Over each scenario's runs: failed checkpoints are those that expired, were declined or "
           "subsumed, or failed otherwise (their Flink failure reasons counted); start delay and alignment are each "
           "checkpoint's slowest subtask; persisted: the most in-flight data (channel state) one checkpoint persisted.</p>\n";
}

nlohmann::json to_json(const std::vector<ScenarioCheckpoints>& rows) {
    nlohmann::json out = nlohmann::json::array();
    for (const ScenarioCheckpoints& s : rows) {
        out.push_back({{"scenario", s.scenario},
                       {"runs", s.runs},
                       {"completed", s.completed},
                       {"failed", s.failed},
                       {"failed_by_reason", s.failed_by_reason},
                       {"unaligned", s.unaligned},
                       {"duration_p50_ms", s.duration_p50_ms},
                       {"duration_max_ms", s.duration_max_ms},
                       {"start_delay_max_ms", s.start_delay_max_ms},
                       {"alignment_max_ms", s.alignment_max_ms},
                       {"failed_start_delay_max_ms", s.failed_start_delay_max_ms},
                       {"failed_alignment_max_ms", s.failed_alignment_max_ms},
                       {"persisted_bytes_max", s.persisted_bytes_max},
                       {"restarts", s.restarts}});
    }
    return out;
}

}  // namespace eosim::reports
