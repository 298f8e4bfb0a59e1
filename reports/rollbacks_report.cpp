#include "reports/rollbacks_report.h"

#include <cstdio>

#include "reports/json_fields.h"
#include "reports/xml_text.h"

namespace eosim::reports {

using nlohmann::json;

json rollbacks_to_json(const std::vector<oracles::Rollback>& rollbacks) {
    json out = json::array();
    for (const oracles::Rollback& r : rollbacks) {
        json sinks = json::array();
        for (const oracles::RolledBackSink& s : r.sinks) {
            sinks.push_back({{"sink", s.sink},
                             {"rolled_back_checkpoint", s.checkpoint},
                             {"rolled_back_deployment", s.deployment},
                             {"records_re_emitted", s.records_re_emitted}});
        }
        out.push_back({{"at_s", r.at_s},
                       {"deployment", r.deployment},
                       {"attempt", r.attempt},
                       {"restored", r.restored},
                       {"restored_checkpoint", r.restored_checkpoint},
                       {"rolled_back_checkpoint", r.rolled_back_checkpoint},
                       {"rolled_back_deployment", r.rolled_back_deployment},
                       {"records_re_emitted", r.records_re_emitted()},
                       {"sinks", std::move(sinks)}});
    }
    return out;
}

std::vector<oracles::Rollback> rollbacks_from_json(const json& j, const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<oracles::Rollback> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        oracles::Rollback r;
        r.at_s = field<double>(j[i], "at_s", at);
        r.deployment = field<std::string>(j[i], "deployment", at);
        r.attempt = field<std::string>(j[i], "attempt", at);
        r.restored = field<std::string>(j[i], "restored", at);
        r.restored_checkpoint = field<int64_t>(j[i], "restored_checkpoint", at);
        r.rolled_back_checkpoint = field<int64_t>(j[i], "rolled_back_checkpoint", at);
        r.rolled_back_deployment = field<std::string>(j[i], "rolled_back_deployment", at);
        const json& sinks = optional_array(j[i], "sinks", at);
        for (size_t k = 0; k < sinks.size(); ++k) {
            const std::string sink_at = at + "/sinks/" + std::to_string(k);
            r.sinks.push_back({field<std::string>(sinks[k], "sink", sink_at),
                               field<int64_t>(sinks[k], "rolled_back_checkpoint", sink_at),
                               field<std::string>(sinks[k], "rolled_back_deployment", sink_at),
                               field<int64_t>(sinks[k], "records_re_emitted", sink_at)});
        }
        out.push_back(std::move(r));
    }
    return out;
}

void write_rollbacks_text(std::ostream& out, const std::vector<oracles::Rollback>& rollbacks) {
    for (const oracles::Rollback& r : rollbacks)
        out << "WARNING     rollback: " << r.describe() << '\n';
}

void write_rollbacks_html(std::ostream& out, const std::vector<oracles::Rollback>& rollbacks) {
    if (rollbacks.empty()) return;
    out << "<div class=\"warning\"><b>Warning: " << rollbacks.size()
        << (rollbacks.size() == 1 ? " rollback" : " rollbacks")
        << "</b> (a restore older than what an exactly-once sink already committed: the sink commits that output again; "
           "a failure only where the scenario lists <code>no_rollbacks</code>)\n<table>\n<tr><th>at</th><th>attempt</th>"
           "<th>restored</th><th>rolls back (committed)</th><th>records re-emitted</th></tr>\n";
    for (const oracles::Rollback& r : rollbacks) {
        char at[32];
        std::snprintf(at, sizeof at, "%.3fs", r.at_s);
        out << "<tr><td class=\"n\">" << at << "</td><td>" << xml_escape(r.attempt) << "</td><td>"
            << xml_escape(r.restored) << "</td><td>checkpoint " << r.rolled_back_checkpoint << " ("
            << xml_escape(r.rolled_back_deployment) << ")</td><td>";
        for (size_t i = 0; i < r.sinks.size(); ++i) {
            out << (i == 0 ? "" : ", ") << xml_escape(r.sinks[i].sink) << ": "
                << r.sinks[i].records_re_emitted;
        }
        out << "</td></tr>\n";
    }
    out << "</table></div>\n";
}

}  // namespace eosim::reports
