#pragma once
// The run's history in JSON, both ways (records and `eosim run --json` share this form): every
// checkpoint and savepoint with its per-subtask figures (scenarios/checkpoint_stats.h), the summary
// over the completed ones and over the failed ones, and the job's status changes, exceptions and
// deployments (scenarios/job_history.h), and back pressure per vertex. Readers name the JSON path
// of what is wrong (RecordError, reports/run_record.h).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/checkpoint_stats.h"
#include "scenarios/job_history.h"
#include "scenarios/run_result.h"

namespace eosim::reports {

nlohmann::json checkpoints_to_json(const std::vector<scenarios::CheckpointStats>& checkpoints);
std::vector<scenarios::CheckpointStats> checkpoints_from_json(const nlohmann::json& j,
                                                              const std::string& path);

nlohmann::json to_json(const scenarios::CheckpointStatsSummary& summary);
scenarios::CheckpointStatsSummary checkpoint_summary_from_json(const nlohmann::json& j,
                                                               const std::string& path);

nlohmann::json status_history_to_json(const std::vector<scenarios::JobStatusChange>& changes);
std::vector<scenarios::JobStatusChange> status_history_from_json(const nlohmann::json& j,
                                                                 const std::string& path);

nlohmann::json exceptions_to_json(const std::vector<scenarios::JobException>& exceptions);
std::vector<scenarios::JobException> exceptions_from_json(const nlohmann::json& j,
                                                          const std::string& path);

nlohmann::json deployments_to_json(const std::vector<scenarios::DeploymentSpan>& deployments);
std::vector<scenarios::DeploymentSpan> deployments_from_json(const nlohmann::json& j,
                                                             const std::string& path);

nlohmann::json back_pressure_to_json(const std::vector<scenarios::VertexBackPressure>& vertices);
std::vector<scenarios::VertexBackPressure> back_pressure_from_json(const nlohmann::json& j,
                                                                   const std::string& path);

}  // namespace eosim::reports
