#include "reports/sensitivity_table.h"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <set>

#include "reports/xml_text.h"

namespace eosim::reports {

std::string TwinResult::verdict() const {
    if (skipped) return "skipped";
    if (!not_applicable.empty()) return "not applicable";
    if (caught > 0) return "caught";
    return errors > 0 ? "ERRORS" : "NOT CAUGHT";
}

scenarios::Reproducer TwinResult::reproducer(uint64_t seed) const {
    scenarios::Reproducer r;
    r.file = file;
    r.twin = twin;
    r.seed = seed;
    return r;
}

std::string TwinResult::reproduce() const {
    return first_caught_seed ? reproducer(*first_caught_seed).text() : "";
}

std::string TwinResult::by_text() const {
    std::string text;
    for (const auto& [oracle, count] : by)
        text += (text.empty() ? "" : ", ") + oracle + " " + std::to_string(count);
    return text;
}

size_t SensitivityTable::scenarios() const {
    std::set<std::string> names;
    for (const TwinResult& t : twins) names.insert(t.scenario);
    return names.size();
}

size_t SensitivityTable::blind() const {
    return static_cast<size_t>(
        std::count_if(twins.begin(), twins.end(), [](const TwinResult& t) { return t.blind(); }));
}

size_t SensitivityTable::skipped_or_not_applicable() const {
    return static_cast<size_t>(std::count_if(twins.begin(), twins.end(), [](const TwinResult& t) {
        return t.skipped || !t.not_applicable.empty();
    }));
}

void write_sensitivity_text(std::ostream& out, const SensitivityTable& table) {
    char head[200];
    std::snprintf(
        head, sizeof head,
        "sensitivity: %zu scenarios that expect to pass, %zu known-bad twins, %zu runs in %.1f s\n\n",
        table.scenarios(), table.twins.size(), table.runs, table.wall_seconds);
    out << head;
    size_t scenario_width = 8;
    size_t twin_width = 4;
    for (const TwinResult& t : table.twins) {
        scenario_width = std::max(scenario_width, t.scenario.size());
        twin_width = std::max(twin_width, t.twin.size());
    }
    const int sw = static_cast<int>(scenario_width) + 2;
    const int tw = static_cast<int>(twin_width) + 2;
    out << std::left << std::setw(sw) << "scenario" << std::setw(tw) << "twin" << std::setw(12)
        << "caught"
        << "by\n";
    for (const TwinResult& t : table.twins) {
        out << std::left << std::setw(sw) << t.scenario << std::setw(tw) << t.twin;
        if (t.skipped) {
            out << std::setw(12) << "skipped"
                << "the scenario says: " << t.why << '\n';
            continue;
        }
        if (!t.not_applicable.empty()) {
            out << std::setw(12) << "n/a"
                << "the twin cannot run with the same faults: " << t.not_applicable << '\n';
            continue;
        }
        out << std::setw(12) << (std::to_string(t.caught) + "/" + std::to_string(t.seeds));
        if (t.caught == 0)
            out << (t.errors > 0 ? "ERRORS" : "NOT CAUGHT");
        else
            out << t.by_text();
        if (t.errors > 0)
            out << "  (" << t.errors << " runs failed to run: " << t.first_error << ")";
        out << '\n';
    }
    out << '\n';
    const size_t blind = table.blind();
    const size_t skipped = table.skipped_or_not_applicable();
    if (blind == 0) {
        out << "every twin that applies was caught on some seed"
            << (skipped > 0 ? " (" + std::to_string(skipped) +
                                  " skipped or not applicable, with the reason)"
                            : "")
            << '\n';
    } else {
        out << blind
            << " twin(s) NOT CAUGHT: their scenarios cannot tell that bug class from a correct run; sharpen them "
            << "(faults aimed where the twin differs) or say why with \"sensitivity\": {\"skip\", \"why\" or \"reasons\"}\n";
    }
}

nlohmann::json to_json(const SensitivityTable& table) {
    nlohmann::json rows = nlohmann::json::array();
    for (const TwinResult& t : table.twins) {
        nlohmann::json row = {{"scenario", t.scenario}, {"file", t.file},
                              {"twin", t.twin},         {"summary", t.summary},
                              {"verdict", t.verdict()}, {"seeds", t.seeds},
                              {"caught", t.caught},     {"by", t.by},
                              {"errors", t.errors}};
        if (t.skipped) row["why"] = t.why;
        if (!t.not_applicable.empty()) row["why"] = t.not_applicable;
        if (t.errors > 0) row["first_error"] = t.first_error;
        if (const std::string line = t.reproduce(); !line.empty()) row["reproduce"] = line;
        rows.push_back(std::move(row));
    }
    return rows;
}

void write_sensitivity_html(std::ostream& out, const SensitivityTable& table) {
    const size_t blind = table.blind();
    out << "<h2 id=\"sensitivity\">Sensitivity: could these scenarios have failed?</h2>\n"
        << "<p class=\"links\">Every scenario that expects to pass, run again as each of its known-bad twins (the same "
           "job, inputs and faults with one component broken: at-least-once checkpointing, a sink without its "
           "exactly-once mechanism) over the same seeds. A twin caught on no seed is NOT CAUGHT: the scenario cannot "
           "tell that bug class from a correct run. "
        << table.runs << " twin runs.</p>\n";
    out << "<p class=\"verdict "
        << (blind == 0 ? "ok\">Every twin that applies was caught on some seed"
                       : "bad\">" + std::to_string(blind) + " twin(s) NOT CAUGHT")
        << ".</p>\n";
    out << "<table class=\"sensitivity\">\n<tr><th>scenario</th><th>twin</th><th>caught</th><th>by</th><th>reproduce or reason</th></tr>\n";
    for (const TwinResult& t : table.twins) {
        out << "<tr" << (t.blind() ? " class=\"bad\"" : "") << "><td>" << xml_escape(t.scenario)
            << "</td><td title=\"" << xml_escape(t.summary) << "\"><code>" << xml_escape(t.twin)
            << "</code></td>";
        if (t.skipped || !t.not_applicable.empty()) {
            out << "<td>" << (t.skipped ? "skipped" : "n/a") << "</td><td></td><td>"
                << xml_escape(t.skipped ? t.why : t.not_applicable) << "</td></tr>\n";
            continue;
        }
        out << "<td class=\"n\">" << (t.caught > 0 ? "" : "<span class=\"fail\">") << t.caught
            << "/" << t.seeds << (t.caught > 0 ? "" : " NOT CAUGHT</span>") << "</td><td>"
            << xml_escape(t.by_text()) << "</td><td><code>"
            << xml_escape(t.errors > 0 ? t.first_error : t.reproduce()) << "</code></td></tr>\n";
    }
    out << "</table>\n";
}

}  // namespace eosim::reports
