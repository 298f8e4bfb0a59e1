#include "reports/placement_report.h"

#include <cstdio>
#include <utility>

#include "reports/json_fields.h"
#include "reports/xml_text.h"

namespace eosim::reports {

using nlohmann::json;

namespace {

constexpr size_t kAttemptsShown = 12;  // in text and HTML; JSON has them all

bool same_placement(const scenarios::AttemptPlacement& a, const scenarios::AttemptPlacement& b) {
    if (a.subtasks.size() != b.subtasks.size()) return false;
    for (size_t i = 0; i < a.subtasks.size(); ++i) {
        const engine::SubtaskPlacement& x = a.subtasks[i];
        const engine::SubtaskPlacement& y = b.subtasks[i];
        if (x.vertex != y.vertex || x.subtask != y.subtask || x.task_manager != y.task_manager ||
            x.slot != y.slot)
            return false;
    }
    return true;
}

std::string at_text(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3fs", s);
    return text;
}

// The attempt's TaskManagers, each with its slots: [(TaskManager, ["slot 0: a-0 b-0", ...])].
std::vector<std::pair<std::string, std::vector<std::string>>> by_task_manager(
    const scenarios::AttemptPlacement& placement) {
    std::vector<std::pair<std::string, std::vector<std::string>>> out;
    for (const scenarios::SlotContents& slot : scenarios::slots_of(placement)) {
        if (out.empty() || out.back().first != slot.task_manager)
            out.emplace_back(slot.task_manager, std::vector<std::string>{});
        std::string text = "slot " + std::to_string(slot.slot) + ":";
        for (const std::string& subtask : slot.subtasks) text += " " + subtask;
        out.back().second.push_back(std::move(text));
    }
    return out;
}

// Calls `f(placement, previous)` for the attempts shown (the first and the last kAttemptsShown / 2
// when there are more); `previous` is the attempt before it, or null.
template <typename F>
size_t for_each_shown(const std::vector<scenarios::AttemptPlacement>& placements, F&& f) {
    size_t left_out = 0;
    for (size_t i = 0; i < placements.size(); ++i) {
        if (placements.size() > kAttemptsShown && i >= kAttemptsShown / 2 &&
            i < placements.size() - kAttemptsShown / 2) {
            ++left_out;
            continue;
        }
        f(placements[i], i == 0 ? nullptr : &placements[i - 1]);
    }
    return left_out;
}

}  // namespace

json placements_to_json(const std::vector<scenarios::AttemptPlacement>& placements) {
    json out = json::array();
    for (const scenarios::AttemptPlacement& p : placements) {
        json subtasks = json::array();
        for (const engine::SubtaskPlacement& s : p.subtasks) {
            subtasks.push_back({{"vertex", s.vertex},
                                {"subtask", s.subtask},
                                {"task_manager", s.task_manager},
                                {"slot", s.slot}});
        }
        out.push_back({{"at_s", p.at_s},
                       {"attempt", p.attempt},
                       {"attempt_name", p.attempt_name},
                       {"subtasks", std::move(subtasks)}});
    }
    return out;
}

std::vector<scenarios::AttemptPlacement> placements_from_json(const json& j,
                                                              const std::string& path) {
    if (!j.is_array()) throw RecordError(path + ": expected an array");
    std::vector<scenarios::AttemptPlacement> out;
    for (size_t i = 0; i < j.size(); ++i) {
        const std::string at = path + "/" + std::to_string(i);
        scenarios::AttemptPlacement p;
        p.at_s = optional_field<double>(j[i], "at_s", at, 0);
        p.attempt = optional_field<int64_t>(j[i], "attempt", at, 0);
        p.attempt_name = optional_field<std::string>(j[i], "attempt_name", at, "");
        if (!j[i].contains("subtasks") || !j[i]["subtasks"].is_array())
            throw RecordError(at + "/subtasks: expected an array");
        const json& subtasks = j[i]["subtasks"];
        for (size_t s = 0; s < subtasks.size(); ++s) {
            const std::string sat = at + "/subtasks/" + std::to_string(s);
            p.subtasks.push_back(
                engine::SubtaskPlacement{field<std::string>(subtasks[s], "vertex", sat),
                                         optional_field<int32_t>(subtasks[s], "subtask", sat, 0),
                                         field<std::string>(subtasks[s], "task_manager", sat),
                                         optional_field<int32_t>(subtasks[s], "slot", sat, 0)});
        }
        out.push_back(std::move(p));
    }
    return out;
}

void write_placements(std::ostream& out,
                      const std::vector<scenarios::AttemptPlacement>& placements) {
    if (placements.empty()) return;
    out << "placement         TaskManager and slot of every subtask, per attempt deployed\n";
    const size_t left_out = for_each_shown(placements, [&out](const auto& p, const auto* previous) {
        out << "  " << p.attempt_name << " at " << at_text(p.at_s);
        if (previous != nullptr && same_placement(p, *previous)) {
            out << ": as " << previous->attempt_name << '\n';
            return;
        }
        out << '\n';
        for (const auto& [task_manager, slots] : by_task_manager(p)) {
            out << "    " << task_manager;
            for (const std::string& slot : slots) out << "  " << slot;
            out << '\n';
        }
    });
    if (left_out > 0) out << "  ... " << left_out << " more attempts (--json has them all)\n";
}

void write_placements_html(std::ostream& out,
                           const std::vector<scenarios::AttemptPlacement>& placements) {
    if (placements.empty()) return;
    out << "<h5>Placement (TaskManager and slot of every subtask, per attempt)</h5>\n<table>\n"
           "<tr><th>attempt</th><th>deployed</th><th>TaskManagers and their slots</th></tr>\n";
    const size_t left_out = for_each_shown(placements, [&out](const auto& p, const auto* previous) {
        out << "<tr><td>" << xml_escape(p.attempt_name) << "</td><td class=\"n\">"
            << at_text(p.at_s) << "</td><td>";
        if (previous != nullptr && same_placement(p, *previous)) {
            out << "as " << xml_escape(previous->attempt_name);
        } else {
            for (const auto& [task_manager, slots] : by_task_manager(p)) {
                out << "<b>" << xml_escape(task_manager) << "</b>";
                for (const std::string& slot : slots) out << " &nbsp;" << xml_escape(slot);
                out << "<br>";
            }
        }
        out << "</td></tr>\n";
    });
    out << "</table>\n";
    if (left_out > 0)
        out << "<p class=\"links\">" << left_out
            << " more attempts left out (the run's JSON has them all).</p>\n";
}

}  // namespace eosim::reports
