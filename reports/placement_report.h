#pragma once
// Where every attempt ran (scenarios/placement_history.h), in the three forms of a run's report:
// JSON both ways (one object per subtask, so a record reads back exactly), text for `eosim run`
// (per attempt, one line per TaskManager with its slots; an attempt placed as the one before says
// so in one line), and an HTML table (a row per attempt, a cell per TaskManager).
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/placement_history.h"

namespace eosim::reports {

nlohmann::json placements_to_json(const std::vector<scenarios::AttemptPlacement>& placements);
std::vector<scenarios::AttemptPlacement> placements_from_json(const nlohmann::json& j,
                                                              const std::string& path);

void write_placements(std::ostream& out,
                      const std::vector<scenarios::AttemptPlacement>& placements);
void write_placements_html(std::ostream& out,
                           const std::vector<scenarios::AttemptPlacement>& placements);

}  // namespace eosim::reports
