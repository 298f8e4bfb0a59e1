#include "reports/history_html.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "reports/history_text.h"
#include "reports/xml_text.h"

namespace eosim::reports {

namespace {

std::string h(const std::string& text) { return xml_escape(text); }

std::string num(double v, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    return text;
}

const char* status_colour(const std::string& status) {
    if (status == "RUNNING") return "#4caf50";
    if (status == "RESTARTING") return "#f0a030";
    if (status == "FAILING" || status == "FAILED") return "#c8352e";
    if (status == "SUSPENDED") return "#8e6bbf";
    if (status == "FINISHED") return "#9e9e9e";
    return "#cfd8dc";  // CREATED
}

// The status band: deployments as named spans on top, each status from its change to the next.
std::string status_timeline_svg(const RunRecord& r) {
    constexpr double kWidth = 900, kLeft = 70, kRight = 10;
    const double plot = kWidth - kLeft - kRight;
    const double end_s = std::max(r.figures.virtual_seconds, 0.001);
    auto x = [&](double s) { return kLeft + std::clamp(s / end_s, 0.0, 1.0) * plot; };
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth, 0) +
                      "\" height=\"104\" font-family=\"sans-serif\" font-size=\"11\">\n";
    svg += "<text x=\"4\" y=\"24\">deployment</text><text x=\"4\" y=\"54\">job status</text>\n";
    for (const scenarios::DeploymentSpan& d : r.deployments) {
        const double x0 = x(d.begin_s), x1 = x(d.end_s < 0 ? end_s : d.end_s);
        const std::string title = d.name + ": " + num(d.begin_s, 3) + "s - " +
                                  (d.end_s < 0 ? "end" : num(d.end_s, 3) + "s") + ", " +
                                  (d.restored_from == 0 ? "from scratch"
                                                        : "restored " + d.restored_kind + " " +
                                                              std::to_string(d.restored_from)) +
                                  "; " + (d.ended.empty() ? "running at the end" : d.ended);
        svg += "<rect x=\"" + num(x0, 1) + "\" y=\"12\" width=\"" + num(std::max(1.0, x1 - x0), 1) +
               "\" height=\"18\" fill=\"#dfe8f6\" stroke=\"#3b6fc4\"><title>" + h(title) +
               "</title></rect>";
        svg += "<text x=\"" + num(x0 + 4, 1) + "\" y=\"25\">" +
               h(d.name + (d.ended.empty() ? "" : ": " + d.ended)) + "</text>\n";
    }
    for (size_t i = 0; i < r.status_history.size(); ++i) {
        const scenarios::JobStatusChange& c = r.status_history[i];
        const double next = i + 1 < r.status_history.size() ? r.status_history[i + 1].at_s : end_s;
        const double x0 = x(c.at_s), x1 = x(next);
        svg += "<rect x=\"" + num(x0, 1) + "\" y=\"42\" width=\"" + num(std::max(1.0, x1 - x0), 1) +
               "\" height=\"18\" fill=\"" + status_colour(c.status) + "\"><title>" +
               h(num(c.at_s, 3) + "s " + c.deployment + " " + c.status + ": " + c.detail) +
               "</title></rect>\n";
    }
    for (const scenarios::CheckpointStats& c : r.checkpoints) {
        if (!c.savepoint()) continue;
        const double sx = x(c.triggered_s + std::max(0.0, c.duration_ms) / 1e3);
        svg += "<path d=\"M" + num(sx, 1) + " 62 l-5 9 h10 z\" fill=\"" +
               (c.failed() ? "#c8352e" : "#333") + "\"><title>" +
               h(c.deployment + " " + c.type + " " + std::to_string(c.id) + ": " + c.status) +
               "</title></path>\n";
    }
    double lx = kLeft;
    for (const char* status :
         {"CREATED", "RUNNING", "RESTARTING", "FAILED", "SUSPENDED", "FINISHED"}) {
        svg += "<rect x=\"" + num(lx, 1) + "\" y=\"84\" width=\"10\" height=\"10\" fill=\"" +
               status_colour(status) + "\"/><text x=\"" + num(lx + 14, 1) + "\" y=\"93\">" +
               status + "</text>";
        lx += 30 + 7.0 * static_cast<double>(std::string(status).size());
    }
    svg += "<path d=\"M" + num(lx + 5, 1) + " 84 l-5 9 h10 z\" fill=\"#333\"/><text x=\"" +
           num(lx + 14, 1) + "\" y=\"93\">savepoint</text>";
    svg += "<text x=\"" + num(kWidth - kRight - 90, 1) + "\" y=\"93\">x: 0.." + num(end_s, 1) +
           " s</text>\n</svg>\n";
    return svg;
}

void write_summary_rows(std::ostream& out, const char* group,
                        const scenarios::CheckpointGroupSummary& g) {
    struct Row {
        const char* name;
        const scenarios::StatsSpread* spread;
        bool bytes;
    };
    const Row rows[] = {{"end to end duration", &g.duration_ms, false},
                        {"start delay (slowest subtask)", &g.start_delay_ms, false},
                        {"alignment (slowest subtask)", &g.alignment_ms, false},
                        {"checkpointed data size", &g.checkpointed_bytes, true},
                        {"persisted in-flight data", &g.persisted_bytes, true}};
    bool first = true;
    for (const Row& row : rows) {
        out << "<tr>";
        if (first) out << "<th rowspan=\"5\">" << group << " (" << g.count << ")</th>";
        first = false;
        out << "<td>" << row.name << "</td>";
        for (double v : {row.spread->min, row.spread->avg, row.spread->max, row.spread->p50,
                         row.spread->p99}) {
            out << "<td class=\"n\">"
                << (g.count == 0 ? "-"
                    : row.bytes  ? bytes_text(v)
                                 : ms_text(v))
                << "</td>";
        }
        out << "</tr>\n";
    }
}

void write_subtasks(std::ostream& out, const scenarios::CheckpointStats& c) {
    out << "<details><summary>" << c.tasks.size() << " subtasks</summary>\n<table class=\"sub\">\n"
        << "<tr><th>subtask</th><th>start delay</th><th>alignment</th><th>sync</th><th>async</th><th>operator state</th>"
           "<th>channel state</th><th>unaligned</th></tr>\n";
    for (const scenarios::CheckpointTaskStats& t : c.tasks) {
        out << "<tr><td>" << h(t.vertex) << "-" << t.subtask << "</td><td class=\"n\">"
            << ms_text(t.start_delay_ms) << "</td><td class=\"n\">" << ms_text(t.alignment_ms)
            << "</td><td class=\"n\">" << ms_text(t.sync_ms) << "</td><td class=\"n\">"
            << (t.async_ms < 0 ? std::string("not acknowledged") : ms_text(t.async_ms))
            << "</td><td class=\"n\">" << bytes_text(static_cast<double>(t.operator_state_bytes))
            << "</td><td class=\"n\">" << bytes_text(static_cast<double>(t.channel_state_bytes))
            << "</td><td>" << (t.unaligned ? "yes" : "") << "</td></tr>\n";
    }
    out << "</table></details>";
}

}  // namespace

void write_job_history_html(std::ostream& out, const RunRecord& r) {
    if (r.status_history.empty()) return;
    out << "<h5>Job status and deployments</h5>\n<div class=\"svgbox\">\n"
        << status_timeline_svg(r) << "</div>\n";
    out << "<div class=\"columns\">\n<table>\n<tr><th>at</th><th>deployment</th><th>status</th><th>why</th></tr>\n";
    for (const scenarios::JobStatusChange& c : r.status_history) {
        out << "<tr><td class=\"n\">" << num(c.at_s, 3) << "s</td><td>" << h(c.deployment)
            << "</td><td><span class=\"js\" style=\"background:" << status_colour(c.status)
            << "\"></span>" << c.status << "</td><td>" << h(c.detail) << "</td></tr>\n";
    }
    out << "</table>\n";
    if (!r.exceptions.empty()) {
        out << "<table>\n<tr><th>at</th><th>attempt</th><th>then</th><th>exception</th><th>root cause (probable)</th></tr>\n";
        for (const scenarios::JobException& e : r.exceptions) {
            out << "<tr><td class=\"n\">" << num(e.at_s, 3) << "s</td><td>" << h(e.attempt_name)
                << "</td><td>" << h(e.status_after) << "</td><td>"
                << (e.job_manager ? "JobManager failover: " : "") << h(e.reason) << "</td><td>"
                << h(e.root_cause.empty() ? "-" : e.root_cause) << "</td></tr>\n";
        }
        out << "</table>\n";
    }
    out << "</div>\n";
}

void write_checkpoint_history_html(std::ostream& out, const RunRecord& r) {
    const scenarios::CheckpointStatsSummary& s = r.checkpoint_summary;
    if (r.checkpoints.empty() && s.completed_summary.count == 0 && s.failed_summary.count == 0)
        return;
    out << "<h5>Checkpoints: summary</h5>\n<table>\n<tr><th></th><th></th><th>min</th><th>avg</th><th>max</th><th>p50</th>"
           "<th>p99</th></tr>\n";
    write_summary_rows(out, "completed", s.completed_summary);
    write_summary_rows(out, "failed", s.failed_summary);
    out << "</table>\n";
    if (r.checkpoints.empty()) return;
    out << "<h5>Checkpoints: history</h5>\n<table class=\"history\">\n<tr><th>id</th><th>deployment</th><th>type</th>"
           "<th>status</th><th>triggered</th><th>end to end</th><th>checkpointed</th><th>persisted in-flight</th>"
           "<th>start delay (max)</th><th>alignment (max)</th><th>subtasks acknowledged</th><th>subtasks that reported</th></tr>\n";
    for (const scenarios::CheckpointStats& c : r.checkpoints) {
        out << "<tr" << (c.failed() ? " class=\"bad\"" : "") << "><td class=\"n\">" << c.id
            << "</td><td>" << h(c.deployment) << "</td><td>" << h(c.type)
            << (c.savepoint() ? "" : ", " + c.alignment) << "</td><td>" << h(c.status);
        if (!c.failure_reason.empty())
            out << ": <code>" << h(c.failure_reason) << "</code> " << h(c.failure);
        if (c.restored_uncompleted) out << " <b>restored, though no JobManager completed it</b>";
        out << "</td><td class=\"n\">" << num(c.triggered_s, 3) << "s</td><td class=\"n\">"
            << (c.duration_ms < 0 ? std::string("-") : ms_text(c.duration_ms))
            << "</td><td class=\"n\">" << bytes_text(static_cast<double>(c.checkpointed_bytes()))
            << "</td><td class=\"n\">" << bytes_text(static_cast<double>(c.channel_state_bytes))
            << "</td><td class=\"n\">" << ms_text(c.max_start_delay_ms) << "</td><td class=\"n\">"
            << ms_text(c.max_alignment_ms) << "</td><td class=\"n\">" << c.acknowledged
            << "</td><td>";
        if (!c.tasks.empty()) write_subtasks(out, c);
        out << "</td></tr>\n";
    }
    out << "</table>\n";
}

void write_back_pressure_html(std::ostream& out, const RunRecord& r) {
    if (r.back_pressure.empty()) return;
    out << "<h5>Back pressure (share of time per vertex)</h5>\n<table>\n<tr><th>vertex</th><th>level</th><th>busy</th>"
           "<th>backpressured</th><th>idle</th><th></th></tr>\n";
    for (const scenarios::VertexBackPressure& v : r.back_pressure) {
        const std::string level = v.level();
        out << "<tr" << (level == "HIGH" ? " class=\"bad\"" : "") << "><td>" << h(v.vertex)
            << "</td><td>" << level << "</td><td class=\"n\">" << percent_text(v.busy)
            << "</td><td class=\"n\">" << percent_text(v.backpressured) << "</td><td class=\"n\">"
            << percent_text(v.idle) << "</td><td><svg width=\"300\" height=\"12\">"
            << "<rect x=\"0\" y=\"0\" width=\"" << num(300 * v.busy, 1)
            << "\" height=\"12\" fill=\"#3b6fc4\"/>"
            << "<rect x=\"" << num(300 * v.busy, 1) << "\" y=\"0\" width=\""
            << num(300 * v.backpressured, 1) << "\" height=\"12\" fill=\"#c8352e\"/><rect x=\""
            << num(300 * (v.busy + v.backpressured), 1) << "\" y=\"0\" width=\""
            << num(300 * v.idle, 1) << "\" height=\"12\" fill=\"#dddddd\"/></svg></td></tr>\n";
    }
    out << "</table>\n<p class=\"links\">busy (blue): processing; backpressured (red): its output full (more buffers queued "
           "than the channel has credits), not processing; idle (grey): waiting for input. Sampled every 10 ms of virtual "
           "time. Level as Flink's: OK up to 10% backpressured, LOW up to 50%, HIGH above.</p>\n";
}

}  // namespace eosim::reports
