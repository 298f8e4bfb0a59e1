#pragma once
// A run's rollbacks (oracles/rollback_detector.h: restores older than what an exactly-once sink
// already committed) in every report, as a warning, not a failure (the `no_rollbacks` oracle makes
// one a failure where a scenario lists it): JSON both ways (`rollbacks`, always present, empty when
// none), the text report's lines and the HTML run section's box.
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracles/rollback_detector.h"

namespace eosim::reports {

nlohmann::json rollbacks_to_json(const std::vector<oracles::Rollback>& rollbacks);
// RecordError (reports/run_record.h) naming the JSON path of what is wrong.
std::vector<oracles::Rollback> rollbacks_from_json(const nlohmann::json& j,
                                                   const std::string& path);
// "WARNING     rollback: ..." one line each; nothing without rollbacks.
void write_rollbacks_text(std::ostream& out, const std::vector<oracles::Rollback>& rollbacks);
// A warning box with a table: when, the attempt, what it restored, the newest committed checkpoint
// it rolls back, the records each sink emits again.
void write_rollbacks_html(std::ostream& out, const std::vector<oracles::Rollback>& rollbacks);

}  // namespace eosim::reports
