#include "cli/points_command.h"

#include <algorithm>
#include <optional>

#include "cli/exit_codes.h"
#include "scenarios/point_reach.h"
#include "scenarios/scenario.h"

namespace eosim::cli {

int points_command(const PointsCommand& command, std::ostream& out, std::ostream& err) {
    std::optional<scenarios::Scenario> scenario;
    if (!command.file.empty()) {
        try {
            scenario = scenarios::load_scenario(command.file);
        } catch (const scenarios::ScenarioError& error) {
            err << "error: " << error.what() << '\n';
            return kExitBadInput;
        }
    }
    size_t width = 5;
    for (const scenarios::PointAnnouncer& a : scenarios::point_announcers())
        width = std::max(width, a.point.size());
    auto pad = [](std::string_view text, size_t to) {
        return std::string(text) + std::string(to > text.size() ? to - text.size() : 0, ' ');
    };
    out << pad("point", width) << "  " << pad("process", 11) << "  announced by";
    if (scenario) out << "; in " << command.file;
    out << '\n';
    size_t reachable = 0;
    for (const scenarios::PointAnnouncer& a : scenarios::point_announcers()) {
        out << pad(a.point, width) << "  " << pad(a.process, 11) << "  " << a.component;
        if (scenario) {
            const auto why = scenarios::unreachable_reason(*scenario, a.point);
            if (!why) ++reachable;
            out << "\n"
                << pad("", width + 15)
                << (why ? "not in this job: " + *why : std::string("this job announces it"));
        }
        out << '\n';
    }
    if (scenario) {
        out << reachable << " of " << scenarios::point_announcers().size()
            << " points can be announced in this job (the loader refuses a fault at any other)\n";
    }
    return kExitMet;
}

}  // namespace eosim::cli
