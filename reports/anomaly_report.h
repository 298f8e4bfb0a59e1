#pragma once
// The anomaly table of a run (scenarios/anomalies.h) as the reports show it: text for `eosim run`,
// JSON for run records and `--json` (and back, for `suite --merge` and the HTML of results files),
// and HTML for the run's section of a report.
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/anomalies.h"

namespace eosim::reports {

// Nothing when the run's records were not examined and no Kafka transaction was measured.
void write_anomalies(std::ostream& out, const scenarios::AnomalyTable& table);
void write_anomalies_html(std::ostream& out, const scenarios::AnomalyTable& table);

nlohmann::json to_json(const scenarios::AnomalyTable& table);
// Throws RecordError (reports/run_record.h) naming `path` when `j` is not what to_json writes.
scenarios::AnomalyTable anomalies_from_json(const nlohmann::json& j, const std::string& path);

// "out-0-4 (checkpoint 4) committed 12.0 s after its first record: margin 48.0 s of 60.0 s (80%)".
std::string describe_margin(const scenarios::TransactionMargin& margin);

}  // namespace eosim::reports
