#include "reports/checkpoint_panel_svg.h"

#include <algorithm>
#include <cstdio>

#include "reports/xml_text.h"

namespace eosim::reports {

namespace {
std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", v);
    return text;
}
const char* colour(const scenarios::CheckpointStats& c) {
    if (c.failed()) return "#c8352e";
    if (c.status != "completed") return "#999999";
    return c.unaligned ? "#e08a2c" : "#3b6fc4";
}
}  // namespace

std::string checkpoint_panel_svg(const std::vector<scenarios::CheckpointStats>& checkpoints) {
    if (checkpoints.empty()) return "";
    constexpr double kWidth = 900, kLeft = 70, kRight = 10, kChart = 70, kGap = 28;
    double end_s = 0, max_duration = 1, max_bytes = 1;
    for (const auto& c : checkpoints) {
        end_s = std::max(end_s, c.triggered_s + std::max(0.0, c.duration_ms) / 1e3);
        max_duration = std::max(max_duration, c.duration_ms);
        max_bytes = std::max(max_bytes,
                             static_cast<double>(c.operator_state_bytes + c.channel_state_bytes));
    }
    end_s = std::max(end_s, 0.001);
    const double plot = kWidth - kLeft - kRight;
    const double height = 20 + kChart + kGap + kChart + 30;
    const double bar =
        std::max(2.0, std::min(12.0, plot / static_cast<double>(checkpoints.size()) * 0.6));
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + number(kWidth) +
                      "\" height=\"" + number(height) +
                      "\" font-family=\"sans-serif\" font-size=\"11\">\n";
    const double top1 = 20, top2 = top1 + kChart + kGap;
    svg += "<text x=\"4\" y=\"14\">checkpoints: duration (max " + number(max_duration) +
           " ms) and bytes persisted (max " + number(max_bytes) + ")</text>\n";
    svg += "<text x=\"4\" y=\"" + number(top1 + kChart / 2) + "\">duration</text>\n";
    svg += "<text x=\"4\" y=\"" + number(top2 + kChart / 2) + "\">bytes</text>\n";
    for (double top : {top1, top2}) {
        svg += "<line x1=\"" + number(kLeft) + "\" y1=\"" + number(top + kChart) + "\" x2=\"" +
               number(kWidth - kRight) + "\" y2=\"" + number(top + kChart) +
               "\" stroke=\"#888\"/>\n";
    }
    for (const auto& c : checkpoints) {
        const double x = kLeft + c.triggered_s / end_s * plot - bar / 2;
        const double d = c.duration_ms < 0 ? kChart * 0.05
                                           : std::max(1.0, c.duration_ms / max_duration * kChart);
        std::string title =
            c.deployment + " " + c.type + " " + std::to_string(c.id) + " at " +
            number(c.triggered_s) + " s: " + c.status + ", " + c.alignment + ", " +
            number(c.duration_ms) + " ms, start delay " + number(c.max_start_delay_ms) +
            " ms, alignment " + number(c.max_alignment_ms) + " ms, " +
            std::to_string(c.operator_state_bytes) + " B operator state, " +
            std::to_string(c.channel_state_bytes) + " B channel state" +
            (c.failure.empty() ? "" : " (" + c.failure_reason + ": " + c.failure + ")");
        const std::string escaped = xml_escape(title);
        svg += "<rect x=\"" + number(x) + "\" y=\"" + number(top1 + kChart - d) + "\" width=\"" +
               number(bar) + "\" height=\"" + number(d) + "\" fill=\"" + colour(c) + "\"><title>" +
               escaped + "</title></rect>\n";
        const double op = static_cast<double>(c.operator_state_bytes) / max_bytes * kChart;
        const double ch = static_cast<double>(c.channel_state_bytes) / max_bytes * kChart;
        svg += "<rect x=\"" + number(x) + "\" y=\"" + number(top2 + kChart - op) + "\" width=\"" +
               number(bar) + "\" height=\"" + number(op) + "\" fill=\"#7a7a7a\"><title>" + escaped +
               "</title></rect>\n";
        if (ch > 0) {
            svg += "<rect x=\"" + number(x) + "\" y=\"" + number(top2 + kChart - op - ch) +
                   "\" width=\"" + number(bar) + "\" height=\"" + number(ch) +
                   "\" fill=\"#e08a2c\"><title>" + escaped + "</title></rect>\n";
        }
    }
    const double legend = top2 + kChart + 20;
    const struct {
        const char* fill;
        const char* text;
    } keys[] = {{"#3b6fc4", "aligned"},
                {"#e08a2c", "unaligned / channel state"},
                {"#c8352e", "failed (expired, declined, subsumed)"},
                {"#7a7a7a", "operator state"}};
    double lx = kLeft;
    for (const auto& k : keys) {
        svg += "<rect x=\"" + number(lx) + "\" y=\"" + number(legend - 9) +
               "\" width=\"10\" height=\"10\" fill=\"" + k.fill + "\"/>";
        svg += "<text x=\"" + number(lx + 14) + "\" y=\"" + number(legend) + "\">" + k.text +
               "</text>\n";
        lx += 40 + 7.0 * static_cast<double>(std::string(k.text).size());
    }
    svg += "<text x=\"" + number(kWidth - kRight - 90) + "\" y=\"" + number(legend) + "\">x: 0.." +
           number(end_s) + " s</text>\n</svg>\n";
    return svg;
}

}  // namespace eosim::reports
