#include "reports/anomaly_report.h"

#include "reports/history_text.h"
#include "reports/json_fields.h"
#include "reports/run_report.h"
#include "reports/xml_text.h"

namespace eosim::reports {

namespace {

using nlohmann::json;
using scenarios::AnomalyGroup;
using scenarios::AnomalyTable;
using scenarios::TransactionMargin;

std::string joined(const std::vector<std::string>& parts, const char* separator) {
    std::string out;
    for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
    return out;
}

// "150 lost in expired transaction out-0-4 (checkpoint 4), open 1.200s..61.200s"
std::string describe_group(const AnomalyGroup& g) {
    std::string text = std::to_string(g.records) + " " + g.kind +
                       (g.transaction.empty() ? ": " : " in ") + g.where;
    if (!g.transaction.empty()) text += " " + g.transaction;
    if (g.checkpoint >= 0) text += " (checkpoint " + std::to_string(g.checkpoint) + ")";
    if (g.from_s >= 0) text += ", open " + fixed(g.from_s, 3) + "s.." + fixed(g.to_s, 3) + "s";
    return text;
}

std::string margins_headline(const AnomalyTable& t) {
    return std::to_string(t.transactions_measured) + " transactions of Kafka sinks measured; " +
           std::to_string(t.margin_warnings) + " ended within " +
           std::to_string(scenarios::kMarginWarningPercent) + "% of their timeout";
}

json group_to_json(const AnomalyGroup& g) {
    json j = {{"sink", g.sink},
              {"kind", g.kind},
              {"where", g.where},
              {"records", g.records},
              {"examples", g.examples},
              {"faults", g.faults},
              {"deployments", g.deployments}};
    if (!g.transaction.empty()) j["transaction"] = g.transaction;
    if (g.checkpoint >= 0) j["checkpoint"] = g.checkpoint;
    if (g.from_s >= 0) j["open_s"] = {g.from_s, g.to_s};
    return j;
}

AnomalyGroup group_from_json(const json& j, const std::string& path) {
    AnomalyGroup g;
    g.sink = field<std::string>(j, "sink", path);
    g.kind = field<std::string>(j, "kind", path);
    g.where = optional_field<std::string>(j, "where", path, "");
    g.records = field<int64_t>(j, "records", path);
    g.transaction = optional_field<std::string>(j, "transaction", path, "");
    g.checkpoint = optional_field<int64_t>(j, "checkpoint", path, -1);
    const std::vector<double> open = optional_field<std::vector<double>>(j, "open_s", path, {});
    if (open.size() == 2) g.from_s = open[0], g.to_s = open[1];
    g.examples = optional_field<std::vector<std::string>>(j, "examples", path, {});
    g.faults = optional_field<std::vector<std::string>>(j, "faults", path, {});
    g.deployments = optional_field<std::vector<std::string>>(j, "deployments", path, {});
    return g;
}

json margin_to_json(const TransactionMargin& m) {
    json j = {{"sink", m.sink},       {"transaction", m.transaction}, {"outcome", m.outcome},
              {"age_ms", m.age_ms},   {"timeout_ms", m.timeout_ms},   {"margin_ms", m.margin_ms()},
              {"warning", m.warned()}};
    if (m.checkpoint >= 0) j["checkpoint"] = m.checkpoint;
    return j;
}

TransactionMargin margin_from_json(const json& j, const std::string& path) {
    return TransactionMargin{field<std::string>(j, "sink", path),
                             field<std::string>(j, "transaction", path),
                             optional_field<int64_t>(j, "checkpoint", path, -1),
                             field<std::string>(j, "outcome", path),
                             field<double>(j, "age_ms", path),
                             field<double>(j, "timeout_ms", path)};
}

}  // namespace

std::string describe_margin(const TransactionMargin& m) {
    std::string text = m.transaction;
    if (m.checkpoint >= 0) text += " (checkpoint " + std::to_string(m.checkpoint) + ")";
    text += " " + m.outcome + (m.outcome == "open at the end" ? ", " : " ") + ms_text(m.age_ms) +
            " after its first record: margin " + ms_text(m.margin_ms()) + " of " +
            ms_text(m.timeout_ms) + " (" +
            fixed(m.timeout_ms > 0 ? 100 * m.margin_ms() / m.timeout_ms : 0, 0) + "%)";
    return m.warned() ? "WARNING " + text : text;
}

void write_anomalies(std::ostream& out, const AnomalyTable& t) {
    if (t.examined) {
        out << "anomalies   " << t.lost << " lost, " << t.duplicated
            << " duplicated (by sink, transaction and checkpoint, with the faults and deployments while it was open)\n";
        for (const AnomalyGroup& g : t.groups) {
            out << "  " << g.sink << ": " << describe_group(g) << '\n';
            if (!g.deployments.empty())
                out << "      deployments " << joined(g.deployments, ", ") << '\n';
            if (!g.faults.empty()) out << "      faults " << joined(g.faults, "; ") << '\n';
            if (!g.examples.empty()) out << "      e.g. " << joined(g.examples, "; ") << '\n';
        }
        if (t.groups_left_out > 0)
            out << "  ... " << t.groups_left_out << " smaller groups left out\n";
    }
    if (t.transactions_measured == 0) return;
    out << "transaction timeout margins  " << margins_headline(t) << '\n';
    for (const TransactionMargin& m : t.margins) {
        if (!m.warned() && &m != &t.margins.front()) break;  // the warnings, or else the tightest
        out << "  " << m.sink << ": " << describe_margin(m) << '\n';
    }
}

void write_anomalies_html(std::ostream& out, const AnomalyTable& t) {
    auto h = [](const std::string& text) { return xml_escape(text); };
    if (t.examined) {
        out << "<h5>Anomalies: " << t.lost << " lost, " << t.duplicated
            << " duplicated</h5>\n<table class=\"history\">\n"
            << "<tr><th>sink</th><th>kind</th><th>records</th><th>where</th><th>transaction</th><th>checkpoint</th>"
               "<th>open</th><th>deployments</th><th>faults while open</th><th>examples</th></tr>\n";
        for (const AnomalyGroup& g : t.groups) {
            out << "<tr class=\"bad\"><td>" << h(g.sink) << "</td><td>" << h(g.kind)
                << "</td><td class=\"n\">" << g.records << "</td><td>" << h(g.where)
                << "</td><td><code>" << h(g.transaction) << "</code></td><td class=\"n\">"
                << (g.checkpoint >= 0 ? std::to_string(g.checkpoint) : "-")
                << "</td><td class=\"n\">"
                << (g.from_s >= 0 ? fixed(g.from_s, 3) + "s - " + fixed(g.to_s, 3) + "s" : "-")
                << "</td><td>" << h(joined(g.deployments, ", ")) << "</td><td>"
                << h(joined(g.faults, "; ")) << "</td><td>" << h(joined(g.examples, "; "))
                << "</td></tr>\n";
        }
        out << "</table>\n";
        if (t.groups_left_out > 0)
            out << "<p class=\"links\">" << t.groups_left_out << " smaller groups left out.</p>\n";
    }
    if (t.transactions_measured == 0) return;
    out << "<h5>Transaction timeout margins</h5>\n<p class=\"links\">" << h(margins_headline(t))
        << "; the tightest:</p>\n<table class=\"history\">\n<tr><th>sink</th><th>transaction</th><th>checkpoint</th>"
           "<th>outcome</th><th>age at its end</th><th>timeout</th><th>margin</th></tr>\n";
    for (const TransactionMargin& m : t.margins) {
        out << "<tr" << (m.warned() ? " class=\"bad\"" : "") << "><td>" << h(m.sink)
            << "</td><td><code>" << h(m.transaction) << "</code></td><td class=\"n\">"
            << (m.checkpoint >= 0 ? std::to_string(m.checkpoint) : "-") << "</td><td>"
            << h(m.outcome) << "</td><td class=\"n\">" << ms_text(m.age_ms)
            << "</td><td class=\"n\">" << ms_text(m.timeout_ms) << "</td><td class=\"n\">"
            << ms_text(m.margin_ms()) << "</td></tr>\n";
    }
    out << "</table>\n";
}

json to_json(const AnomalyTable& t) {
    json groups = json::array();
    for (const AnomalyGroup& g : t.groups) groups.push_back(group_to_json(g));
    json margins = json::array();
    for (const TransactionMargin& m : t.margins) margins.push_back(margin_to_json(m));
    return {{"examined", t.examined},
            {"lost", t.lost},
            {"duplicated", t.duplicated},
            {"groups", std::move(groups)},
            {"groups_left_out", t.groups_left_out},
            {"transactions_measured", t.transactions_measured},
            {"margin_warning_percent", scenarios::kMarginWarningPercent},
            {"margin_warnings", t.margin_warnings},
            {"margins", std::move(margins)}};
}

AnomalyTable anomalies_from_json(const json& j, const std::string& path) {
    AnomalyTable t;
    t.examined = optional_field<bool>(j, "examined", path, false);
    t.lost = optional_field<int64_t>(j, "lost", path, 0);
    t.duplicated = optional_field<int64_t>(j, "duplicated", path, 0);
    const json& groups = optional_array(j, "groups", path);
    for (size_t i = 0; i < groups.size(); ++i)
        t.groups.push_back(group_from_json(groups[i], path + "/groups/" + std::to_string(i)));
    t.groups_left_out = optional_field<int64_t>(j, "groups_left_out", path, 0);
    t.transactions_measured = optional_field<int64_t>(j, "transactions_measured", path, 0);
    t.margin_warnings = optional_field<int64_t>(j, "margin_warnings", path, 0);
    const json& margins = optional_array(j, "margins", path);
    for (size_t i = 0; i < margins.size(); ++i)
        t.margins.push_back(margin_from_json(margins[i], path + "/margins/" + std::to_string(i)));
    return t;
}

}  // namespace eosim::reports
