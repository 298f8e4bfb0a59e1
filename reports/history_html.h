#pragma once
// The run's history in a suite's HTML report (reports/html_report.h), as Flink's web UI shows it:
// the job's status timeline (deployments v1, v2, ... as named spans, savepoints marked, each
// status as a coloured band) with the status changes and exceptions below it, and the Checkpoints
// tab: Flink's Summary over the completed and over the failed checkpoints, and the History table
// (every checkpoint and savepoint) whose rows open (HTML <details>, no script) onto the per-subtask
// figures.
#include <ostream>

#include "reports/run_record.h"

namespace eosim::reports {

void write_job_history_html(std::ostream& out, const RunRecord& record);
void write_checkpoint_history_html(std::ostream& out, const RunRecord& record);
// Back pressure per vertex: a bar each, busy / backpressured / idle.
void write_back_pressure_html(std::ostream& out, const RunRecord& record);

}  // namespace eosim::reports
