#pragma once
// The run's history in the text report of `eosim run` (reports/run_report.h): Flink's checkpoint
// Summary over the completed and over the failed checkpoints (min, avg, max, p50, p99 of the
// end-to-end duration, start delay, alignment, checkpointed and persisted bytes), its History (per
// checkpoint), the savepoints
// by name, the deployments (v1, v2, ...), the job's status history and its exceptions with their
// probable root causes, and back pressure per vertex.
#include <ostream>
#include <vector>

#include "scenarios/checkpoint_stats.h"
#include "scenarios/job_history.h"
#include "scenarios/run_result.h"

namespace eosim::reports {

void write_checkpoint_summary(std::ostream& out, const scenarios::CheckpointStatsSummary& summary);
// Per checkpoint, as Flink's History tab (the first and last 20 of a long run).
void write_checkpoint_history(std::ostream& out,
                              const std::vector<scenarios::CheckpointStats>& checkpoints);
void write_savepoints(std::ostream& out,
                      const std::vector<scenarios::CheckpointStats>& checkpoints);
void write_deployments(std::ostream& out,
                       const std::vector<scenarios::DeploymentSpan>& deployments);
void write_status_history(std::ostream& out,
                          const std::vector<scenarios::JobStatusChange>& changes);
void write_exceptions(std::ostream& out, const std::vector<scenarios::JobException>& exceptions);
// A warning per checkpoint restored although no JobManager completed it (nothing when none was).
void write_uncompleted_restores(std::ostream& out,
                                const std::vector<scenarios::CheckpointStats>& checkpoints);
void write_back_pressure(std::ostream& out,
                         const std::vector<scenarios::VertexBackPressure>& vertices);
// "12%".
std::string percent_text(double share);

// "1.2 ms", "3.4 s" (one decimal); "12.3 KB" for bytes.
std::string ms_text(double ms);
std::string bytes_text(double bytes);

}  // namespace eosim::reports
