#pragma once
// Checkpoints per scenario over a suite's runs -- the columns a Flink user compares first
// (completed, failed and why, end-to-end duration p50 and max, the slowest start delay and
// alignment of the completed and of the failed ones, the most in-flight data persisted, restarts)
// -- as a table with a row per scenario (printed under the suite summary, in the HTML report and in
// summary.json) and as `--compare`: the scenarios side by side, a column each, a figure per row.
// Computed from the records' figures alone, so shards and merges give the same table.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/run_record.h"

namespace eosim::reports {

struct ScenarioCheckpoints {
    std::string scenario;
    int64_t runs = 0;
    int64_t completed = 0;  // over the runs
    int64_t failed = 0;
    std::map<std::string, int64_t> failed_by_reason;  // Flink's CheckpointFailureReason -> count
    int64_t unaligned = 0;                            // completed ones some subtask took unaligned
    double duration_p50_ms = 0;     // the median over the runs of each run's p50 (completed)
    double duration_max_ms = 0;     // completed
    double start_delay_max_ms = 0;  // completed
    double alignment_max_ms = 0;    // completed
    double failed_start_delay_max_ms = 0;
    double failed_alignment_max_ms = 0;
    int64_t persisted_bytes_max = 0;  // channel state of any one checkpoint
    int64_t restarts = 0;
};

// One row per scenario, sorted by name; runs that did not complete are left out.
std::vector<ScenarioCheckpoints> checkpoints_per_scenario(const std::vector<RunRecord>& records);

void write_checkpoint_table(std::ostream& out, const std::vector<ScenarioCheckpoints>& rows);
void write_checkpoint_compare(std::ostream& out, const std::vector<ScenarioCheckpoints>& rows);
void write_checkpoint_table_html(std::ostream& out, const std::vector<ScenarioCheckpoints>& rows);
nlohmann::json to_json(const std::vector<ScenarioCheckpoints>& rows);

}  // namespace eosim::reports
