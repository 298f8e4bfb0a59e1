#pragma once
// A run as Chrome trace events (the JSON "Trace Event Format"), which Perfetto
// (https://ui.perfetto.dev) and chrome://tracing open: one process for the run, one thread per
// lane of the timeline (`TimelineModel`), a complete event ("X") per bar and an instant event
// ("i") per mark. Timestamps are virtual time in microseconds. Run metadata (scenario, seed,
// verdicts, reproduce command) goes into "metadata".
#include <nlohmann/json.hpp>

#include "reports/run_record.h"

namespace eosim::reports {

nlohmann::json chrome_trace(const RunRecord& record);

}  // namespace eosim::reports
