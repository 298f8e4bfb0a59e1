#include "reports/history_text.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "reports/run_report.h"

namespace eosim::reports {

namespace {

std::string seconds(double s) { return fixed(s, 3) + "s"; }

std::string column(const std::string& text, int width) {
    char out[96];
    std::snprintf(out, sizeof out, "%*s", width, text.c_str());
    return out;
}

using Format = std::string (*)(double);

void write_spread_row(std::ostream& out, const char* label, const scenarios::StatsSpread& s,
                      Format format) {
    char head[40];
    std::snprintf(head, sizeof head, "    %-20s", label);
    out << head;
    for (double v : {s.min, s.avg, s.max, s.p50, s.p99}) out << column(format(v), 11);
    out << '\n';
}

void write_group(std::ostream& out, const char* title, const scenarios::CheckpointGroupSummary& g) {
    out << "  " << title << " (" << g.count << ")\n";
    if (g.count == 0) return;
    write_spread_row(out, "end to end", g.duration_ms, ms_text);
    write_spread_row(out, "start delay (max)", g.start_delay_ms, ms_text);
    write_spread_row(out, "alignment (max)", g.alignment_ms, ms_text);
    write_spread_row(out, "checkpointed", g.checkpointed_bytes, bytes_text);
    write_spread_row(out, "persisted in-flight", g.persisted_bytes, bytes_text);
}

}  // namespace

std::string ms_text(double ms) {
    char text[32];
    if (ms >= 10'000) {
        std::snprintf(text, sizeof text, "%.1f s", ms / 1e3);
    } else {
        std::snprintf(text, sizeof text, "%.1f ms", ms);
    }
    return text;
}

std::string bytes_text(double bytes) {
    char text[32];
    if (bytes >= 1024 * 1024) {
        std::snprintf(text, sizeof text, "%.1f MB", bytes / (1024 * 1024));
    } else if (bytes >= 10 * 1024) {
        std::snprintf(text, sizeof text, "%.1f KB", bytes / 1024);
    } else {
        std::snprintf(text, sizeof text, "%.0f B", bytes);
    }
    return text;
}

void write_checkpoint_summary(std::ostream& out, const scenarios::CheckpointStatsSummary& summary) {
    if (summary.completed_summary.count == 0 && summary.failed_summary.count == 0) return;
    out << "checkpoint summary" << column("min", 17) << column("avg", 11) << column("max", 11)
        << column("p50", 11) << column("p99", 11)
        << "   (start delay, alignment: per checkpoint its slowest subtask)\n";
    write_group(out, "completed, savepoints included", summary.completed_summary);
    write_group(out, "failed (expired, declined, subsumed, failed)", summary.failed_summary);
}

void write_checkpoint_history(std::ostream& out,
                              const std::vector<scenarios::CheckpointStats>& checkpoints) {
    if (checkpoints.empty()) return;
    constexpr size_t kShown = 40;
    out << "checkpoint history  id, deployment, type, status, triggered, end to end, checkpointed, persisted in-flight,\n"
           "                    start delay and alignment (max), subtasks acknowledged\n";
    for (size_t i = 0; i < checkpoints.size(); ++i) {
        if (i == kShown / 2 && checkpoints.size() > kShown) {
            out << "  ... " << checkpoints.size() - kShown
                << " more (--json and --html have them all)\n";
            i = checkpoints.size() - kShown / 2;
        }
        const scenarios::CheckpointStats& c = checkpoints[i];
        const std::string type = c.type + (c.savepoint() ? "" : ", " + c.alignment);
        char text[256];
        std::snprintf(text, sizeof text,
                      "  %4lld  %-4s %-20s %-11s %10s %10s %10s %10s %9s %9s %4lld",
                      static_cast<long long>(c.id), c.deployment.c_str(), type.c_str(),
                      c.status.c_str(), seconds(c.triggered_s).c_str(),
                      c.duration_ms < 0 ? "-" : ms_text(c.duration_ms).c_str(),
                      bytes_text(static_cast<double>(c.checkpointed_bytes())).c_str(),
                      bytes_text(static_cast<double>(c.channel_state_bytes)).c_str(),
                      ms_text(c.max_start_delay_ms).c_str(), ms_text(c.max_alignment_ms).c_str(),
                      static_cast<long long>(c.acknowledged));
        out << text;
        if (!c.failure_reason.empty()) out << "  " << c.failure_reason << ": " << c.failure;
        out << '\n';
    }
}

void write_savepoints(std::ostream& out,
                      const std::vector<scenarios::CheckpointStats>& checkpoints) {
    bool any = false;
    for (const scenarios::CheckpointStats& c : checkpoints) {
        if (!c.savepoint()) continue;
        if (!any) out << "savepoints\n";
        any = true;
        out << "  " << c.deployment << "  " << c.type << " " << c.id << "  triggered "
            << seconds(c.triggered_s) << "  " << c.status;
        if (c.duration_ms >= 0) out << " after " << ms_text(c.duration_ms);
        if (!c.failure_reason.empty()) out << ": " << c.failure_reason << " (" << c.failure << ")";
        out << '\n';
    }
}

void write_deployments(std::ostream& out,
                       const std::vector<scenarios::DeploymentSpan>& deployments) {
    if (deployments.size() < 2) return;  // one deployment: nothing to tell apart
    out << "deployments\n";
    for (const scenarios::DeploymentSpan& d : deployments) {
        out << "  " << d.name << "  " << seconds(d.begin_s) << " - "
            << (d.end_s < 0 ? std::string("end") : seconds(d.end_s)) << "  "
            << (d.restored_from == 0
                    ? std::string("from scratch")
                    : "restored " + d.restored_kind + " " + std::to_string(d.restored_from))
            << ", " << d.attempts << (d.attempts == 1 ? " attempt" : " attempts") << "; "
            << (d.ended.empty() ? "running at the end" : d.ended) << '\n';
    }
}

void write_status_history(std::ostream& out,
                          const std::vector<scenarios::JobStatusChange>& changes) {
    if (changes.empty()) return;
    constexpr size_t kShown = 40;
    out << "job status\n";
    for (size_t i = 0; i < changes.size(); ++i) {
        if (i == kShown / 2 && changes.size() > kShown) {
            out << "  ... " << changes.size() - kShown << " more (--json has them all)\n";
            i = changes.size() - kShown / 2;
        }
        const scenarios::JobStatusChange& c = changes[i];
        char text[64];
        std::snprintf(text, sizeof text, "  %10s  %-4s %-11s", seconds(c.at_s).c_str(),
                      c.deployment.c_str(), c.status.c_str());
        out << text << c.detail << '\n';
    }
}

void write_exceptions(std::ostream& out, const std::vector<scenarios::JobException>& exceptions) {
    if (exceptions.empty()) return;
    constexpr size_t kShown = 20;
    out << "exceptions\n";
    for (size_t i = 0; i < exceptions.size() && i < kShown; ++i) {
        const scenarios::JobException& e = exceptions[i];
        char text[64];
        std::snprintf(text, sizeof text, "  %10s  %-6s -> %-10s ", seconds(e.at_s).c_str(),
                      e.attempt_name.c_str(), e.status_after.c_str());
        out << text << (e.job_manager ? "(JobManager failover) " : "") << e.reason << '\n';
        if (!e.root_cause.empty()) out << "              root cause: " << e.root_cause << '\n';
    }
    if (exceptions.size() > kShown)
        out << "  ... " << exceptions.size() - kShown << " more (--json has them all)\n";
}

void write_uncompleted_restores(std::ostream& out,
                                const std::vector<scenarios::CheckpointStats>& checkpoints) {
    for (const scenarios::CheckpointStats& c : checkpoints) {
        if (!c.restored_uncompleted) continue;
        out << "warning: " << c.deployment << " " << c.type << " " << c.id
            << " was restored though no JobManager completed it (the one completing it was lost; the next found its metadata)";
        if (!c.failure.empty()) out << "; its history says " << c.status << ": " << c.failure;
        out << '\n';
    }
}

std::string percent_text(double share) {
    char text[16];
    std::snprintf(text, sizeof text, "%.0f%%", share * 100);
    return text;
}

void write_back_pressure(std::ostream& out,
                         const std::vector<scenarios::VertexBackPressure>& vertices) {
    if (vertices.empty()) return;
    size_t width = 6;
    for (const scenarios::VertexBackPressure& v : vertices)
        width = std::max(width, v.vertex.size());
    out << "back pressure     share of time busy / backpressured / idle, per vertex (Flink's level)\n";
    for (const scenarios::VertexBackPressure& v : vertices) {
        char text[160];
        std::snprintf(text, sizeof text, "  %-*s  %5s / %5s / %5s  %s\n", static_cast<int>(width),
                      v.vertex.c_str(), percent_text(v.busy).c_str(),
                      percent_text(v.backpressured).c_str(), percent_text(v.idle).c_str(),
                      v.level());
        out << text;
    }
}

}  // namespace eosim::reports
