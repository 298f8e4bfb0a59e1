#include "reports/timeline_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>

#include "reports/xml_text.h"

namespace eosim::reports {

namespace {

enum class Shape { band, bar, tick, circle, cross, diamond, triangle, square, line };

struct Style {
    const char* name;
    const char* colour;
    Shape mark_shape;  // how an instant of this style is drawn
    const char* legend;
};

// Every style, in legend order.
constexpr Style kStyles[] = {
    {"fault-crash", "#d62728", Shape::line, "crash (until restart)"},
    {"fault-pause", "#ff7f0e", Shape::line, "pause"},
    {"fault-partition", "#9467bd", Shape::line, "partition"},
    {"fault-slow_link", "#8c564b", Shape::line, "slow link"},
    {"fault-message_loss", "#393b79", Shape::line, "message loss"},
    {"fault-storage_failure", "#7f7f7f", Shape::line, "storage failure"},
    {"fault-storage_slow", "#bcbd22", Shape::line, "slow storage"},
    {"fault-broker_unavailable", "#e377c2", Shape::line, "broker unavailable"},
    {"fault-kafka_write_failure", "#17becf", Shape::line, "Kafka write failure"},
    {"fault-transaction_abort", "#e377c2", Shape::line, "broker aborts transactions"},
    {"fault-system_unavailable", "#c49c94", Shape::line, "outside system unavailable"},
    {"fault-system_write_errors", "#9edae5", Shape::line, "outside system write errors"},
    {"fault-bulk_partial_failure", "#dbdb8d", Shape::line, "bulk items fail"},
    {"fault-kafka_commit_errors", "#6b6ecf", Shape::line, "Kafka commits fail (retriable)"},
    {"fault-kafka_commit_outcome_unknown", "#ce6dbd", Shape::line, "Kafka commit answers lost"},
    {"fault-kafka_produce_ack_lost", "#a55194", Shape::line, "Kafka produce answers lost"},
    {"fault-system_call_races", "#bcbd22", Shape::line, "writes race"},
    {"fault-skipped", "#aaaaaa", Shape::line, "fault skipped"},
    {"checkpoint-completed", "#2ca02c", Shape::circle, "checkpoint completed"},
    {"checkpoint-aborted", "#d62728", Shape::cross, "checkpoint aborted"},
    {"checkpoint-abandoned", "#bbbbbb", Shape::circle, "checkpoint dropped by a failover"},
    {"checkpoint-pending", "#dddddd", Shape::circle, "checkpoint unfinished at the end"},
    {"failover", "#ff7f0e", Shape::triangle, "failover"},
    {"restore", "#1f77b4", Shape::diamond, "restore"},
    {"job-finished", "#2ca02c", Shape::square, "job finished"},
    {"job-suspended", "#8e6bbf", Shape::square, "job suspended (JobManager lost leadership)"},
    {"deployment", "#3b6fc4", Shape::line, "deployment (v1, v2, ...)"},
    {"job-failed", "#d62728", Shape::square, "job failed"},
    {"txn-committed", "#74c476", Shape::circle, "transaction committed"},
    {"txn-precommitted", "#08519c", Shape::tick, "pre-commit"},
    {"txn-aborted", "#fb6a4a", Shape::cross, "transaction aborted"},
    {"txn-lost", "#67000d", Shape::cross, "transaction lost"},
    {"txn-open", "#bbbbbb", Shape::circle, "transaction open at the end"},
    {"txn-abandoned", "#dddddd", Shape::circle, "transaction abandoned"},
    {"txn-unknown", "#eeeeee", Shape::circle, "transaction end left out of the record"},
    {"oracle-failed", "#d62728", Shape::line, "oracle violated"},
    {"oracle-expected", "#e6a000", Shape::line, "expected violation"},
    {"run-error", "#d62728", Shape::line, "run error"},
    {"watermark", "#9467bd", Shape::line, "watermark (a vertex's lowest subtask)"},
    {"other", "#555555", Shape::circle, "other"},
};

const Style& style_of(const std::string& name) {
    for (const Style& s : kStyles) {
        if (name == s.name) return s;
    }
    return kStyles[std::size(kStyles) - 1];
}

constexpr int kAxisHeight = 26;
constexpr int kRowHeight = 12;
constexpr int kBarHeight = 9;
constexpr int kLanePadding = 5;
constexpr int kLegendRowHeight = 18;

std::string num(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", value);
    return text;
}

// A round step (1, 2 or 5 x 10^k ns) giving between 5 and 12 ticks.
int64_t tick_step_ns(int64_t end_ns) {
    int64_t step = 1;
    while (true) {
        for (int64_t m : {1, 2, 5}) {
            if (end_ns / (step * m) <= 10) return step * m;
        }
        step *= 10;
    }
}

std::string tick_label(int64_t ns, int64_t step_ns) {
    char text[32];
    if (step_ns >= 1'000'000'000) {
        std::snprintf(text, sizeof text, "%llds", static_cast<long long>(ns / 1'000'000'000));
    } else if (step_ns >= 1'000'000) {
        std::snprintf(text, sizeof text, "%.3gs", static_cast<double>(ns) / 1e9);
    } else {
        std::snprintf(text, sizeof text, "%lldus", static_cast<long long>(ns / 1000));
    }
    return text;
}

class SvgWriter {
public:
    SvgWriter(const TimelineModel& model, const TimelineSvgOptions& options)
        : model_(model), options_(options) {
        int y = kAxisHeight;
        for (const TimelineLane& lane : model_.lanes) {
            lane_top_.push_back(y);
            y += lane_height(lane);
        }
        plot_bottom_ = y;
        for (const TimelineBar& b : model_.bars) used_.insert(b.style);
        for (const TimelineMark& m : model_.marks) used_.insert(m.style);
    }

    std::string write() {
        const int legend_rows = legend(false);
        const int height = plot_bottom_ + 14 + legend_rows * kLegendRowHeight;
        out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\""
             << options_.width_px << "\" height=\"" << height << "\" viewBox=\"0 0 "
             << options_.width_px << ' ' << height
             << "\" font-family=\"sans-serif\" font-size=\"11\">\n";
        out_ << "<rect x=\"0\" y=\"0\" width=\"" << options_.width_px << "\" height=\"" << height
             << "\" fill=\"#ffffff\"/>\n";
        lanes();
        axis();
        backdrops();
        for (const TimelineBar& b : model_.bars) bar(b);
        for (const TimelineMark& m : model_.marks) mark(m);
        legend(true);
        out_ << "</svg>\n";
        return out_.str();
    }

private:
    static int lane_height(const TimelineLane& lane) {
        return 2 * kLanePadding + lane.rows * kRowHeight;
    }

    double x(int64_t ns) const {
        const double plot_width = options_.width_px - options_.label_width_px - 16;
        return options_.label_width_px +
               plot_width * static_cast<double>(std::clamp<int64_t>(ns, 0, model_.end_ns)) /
                   static_cast<double>(std::max<int64_t>(model_.end_ns, 1));
    }
    double right() const { return x(model_.end_ns); }
    double row_y(const TimelineBar& b) const {
        return lane_top_[b.lane] + kLanePadding + b.row * kRowHeight;
    }
    double lane_middle(size_t lane) const {
        return lane_top_[lane] + lane_height(model_.lanes[lane]) / 2.0;
    }

    void lanes() {
        for (size_t i = 0; i < model_.lanes.size(); ++i) {
            const TimelineLane& lane = model_.lanes[i];
            const bool first_of_group = i == 0 || model_.lanes[i - 1].group != lane.group;
            out_ << "<rect x=\"0\" y=\"" << lane_top_[i] << "\" width=\"" << options_.width_px
                 << "\" height=\"" << lane_height(lane) << "\" fill=\""
                 << (i % 2 == 0 ? "#f7f7f7" : "#ffffff") << "\"/>\n";
            if (first_of_group && i != 0) {
                out_ << "<line x1=\"0\" x2=\"" << options_.width_px << "\" y1=\"" << lane_top_[i]
                     << "\" y2=\"" << lane_top_[i]
                     << "\" stroke=\"#999999\" stroke-width=\"0.6\"/>\n";
            }
            out_ << "<text x=\"" << options_.label_width_px - 8 << "\" y=\""
                 << num(lane_middle(i) + 4) << "\" text-anchor=\"end\" fill=\"#333333\">"
                 << xml_escape(lane.label) << "</text>\n";
        }
    }

    void axis() {
        const int64_t step = tick_step_ns(std::max<int64_t>(model_.end_ns, 1));
        for (int64_t t = 0; t <= model_.end_ns; t += step) {
            out_ << "<line x1=\"" << num(x(t)) << "\" x2=\"" << num(x(t)) << "\" y1=\""
                 << kAxisHeight - 4 << "\" y2=\"" << plot_bottom_
                 << "\" stroke=\"#dddddd\" stroke-width=\"0.6\"/>\n";
            out_ << "<text x=\"" << num(x(t)) << "\" y=\"" << kAxisHeight - 8
                 << "\" text-anchor=\"middle\" fill=\"#555555\">" << tick_label(t, step)
                 << "</text>\n";
        }
        out_ << "<text x=\"8\" y=\"" << kAxisHeight - 8
             << "\" fill=\"#555555\">virtual time</text>\n";
    }

    // Faults shaded faintly across every lane.
    void backdrops() {
        for (const TimelineBar& b : model_.bars) {
            if (b.style.rfind("fault-", 0) != 0) continue;
            out_ << "<rect x=\"" << num(x(b.start_ns)) << "\" y=\"" << kAxisHeight << "\" width=\""
                 << num(std::max(1.0, x(b.end_ns) - x(b.start_ns))) << "\" height=\""
                 << plot_bottom_ - kAxisHeight << "\" fill=\"" << style_of(b.style).colour
                 << "\" fill-opacity=\"0.07\"/>\n";
        }
    }

    void bar(const TimelineBar& b) {
        const Style& s = style_of(b.style);
        const double x0 = x(b.start_ns);
        const double width = std::max(2.0, x(b.end_ns) - x0);
        const bool band = b.style.rfind("fault-", 0) == 0;
        out_ << "<rect x=\"" << num(x0) << "\" y=\"" << num(row_y(b) + (band ? 0 : 1))
             << "\" width=\"" << num(width) << "\" height=\""
             << (band ? kRowHeight - 1 : kBarHeight) << "\" rx=\"" << (band ? 1 : 2) << "\" fill=\""
             << s.colour << "\"" << (band ? " fill-opacity=\"0.75\"" : "");
        if (b.open_end) out_ << " stroke=\"#555555\" stroke-dasharray=\"3,2\" stroke-width=\"0.8\"";
        out_ << "><title>" << xml_escape(b.label) << "</title></rect>\n";
    }

    void mark(const TimelineMark& m) {
        const Style& s = style_of(m.style);
        const double cx = x(m.at_ns);
        const double cy = lane_middle(m.lane);
        const std::string title = "<title>" + xml_escape(m.label) + "</title>";
        const std::string c = s.colour;
        switch (s.mark_shape) {
            case Shape::line:
                if (m.style.rfind("oracle-", 0) == 0 || m.style == "run-error") {
                    out_ << "<line x1=\"" << num(cx) << "\" x2=\"" << num(cx) << "\" y1=\""
                         << kAxisHeight << "\" y2=\"" << plot_bottom_ << "\" stroke=\"" << c
                         << "\" stroke-width=\"2\"/>\n";
                    out_ << "<circle cx=\"" << num(cx) << "\" cy=\"" << num(cy)
                         << "\" r=\"5\" fill=\"" << c << "\">" << title << "</circle>\n";
                    // The oracle's name (the label up to its first blank), left of the marker.
                    out_ << "<text x=\"" << num(cx - 9) << "\" y=\"" << num(cy + 4)
                         << "\" text-anchor=\"end\" fill=\"" << c << "\" font-weight=\"bold\">"
                         << xml_escape(m.label.substr(0, m.label.find(' '))) << "</text>\n";
                } else {
                    out_ << "<path d=\"M" << num(cx) << ' ' << num(cy + 6) << " V" << num(cy - 6)
                         << " l5 3 -5 3\" fill=\"" << c << "\" stroke=\"" << c
                         << "\" stroke-width=\"1.5\">" << title << "</path>\n";
                }
                break;
            case Shape::tick:
                out_ << "<rect x=\"" << num(cx - 0.75) << "\" y=\"" << num(cy - 6)
                     << "\" width=\"1.5\" height=\"12\" fill=\"" << c << "\">" << title
                     << "</rect>\n";
                break;
            case Shape::circle:
                out_ << "<circle cx=\"" << num(cx) << "\" cy=\"" << num(cy) << "\" r=\"3\" fill=\""
                     << c << "\" stroke=\"#ffffff\" stroke-width=\"0.5\">" << title
                     << "</circle>\n";
                break;
            case Shape::cross:
                out_ << "<path d=\"M" << num(cx - 4) << ' ' << num(cy - 4) << " l8 8 M"
                     << num(cx + 4) << ' ' << num(cy - 4) << " l-8 8\" stroke=\"" << c
                     << "\" stroke-width=\"2\">" << title << "</path>\n";
                break;
            case Shape::diamond:
                out_ << "<path d=\"M" << num(cx) << ' ' << num(cy - 6)
                     << " l6 6 -6 6 -6 -6 z\" fill=\"" << c << "\">" << title << "</path>\n";
                break;
            case Shape::triangle:
                out_ << "<path d=\"M" << num(cx - 6) << ' ' << num(cy - 6)
                     << " h12 l-6 11 z\" fill=\"" << c << "\">" << title << "</path>\n";
                break;
            case Shape::square:
                out_ << "<rect x=\"" << num(cx - 5) << "\" y=\"" << num(cy - 5)
                     << "\" width=\"10\" height=\"10\" fill=\"" << c << "\">" << title
                     << "</rect>\n";
                break;
            case Shape::band:
            case Shape::bar: break;
        }
    }

    // Draws the legend of the styles in use (when `draw`); returns its number of rows.
    int legend(bool draw) {
        const double left = 8;
        const double right_edge = options_.width_px - 8;
        double lx = left;
        int row = 0;
        for (const Style& s : kStyles) {
            if (used_.count(s.name) == 0) continue;
            const double item_width = 26 + 6.2 * static_cast<double>(std::string(s.legend).size());
            if (lx + item_width > right_edge && lx > left) {
                lx = left;
                ++row;
            }
            if (draw) {
                const double ly = plot_bottom_ + 12 + row * kLegendRowHeight;
                out_ << "<rect x=\"" << num(lx) << "\" y=\"" << num(ly)
                     << "\" width=\"14\" height=\"9\" rx=\"2\" fill=\"" << s.colour << "\"/>";
                out_ << "<text x=\"" << num(lx + 18) << "\" y=\"" << num(ly + 8.5)
                     << "\" fill=\"#333333\">" << s.legend << "</text>\n";
            }
            lx += item_width;
        }
        return used_.empty() ? 0 : row + 1;
    }

    const TimelineModel& model_;
    const TimelineSvgOptions& options_;
    std::vector<int> lane_top_;
    int plot_bottom_ = kAxisHeight;
    std::set<std::string> used_;
    std::ostringstream out_;
};

}  // namespace

std::string timeline_svg(const TimelineModel& model, const TimelineSvgOptions& options) {
    return SvgWriter(model, options).write();
}

}  // namespace eosim::reports
