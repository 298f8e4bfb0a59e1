#pragma once
// A run's timeline laid out for drawing: lanes (a node, the network, storage, Kafka, checkpoints,
// the job, one per sink subtask's transactions, the oracles), bars (spans: a fault's effect, a
// checkpoint from trigger to completion, a transaction from begin to commit) and marks (instants:
// a failover, a restore, a pre-commit, the moment an oracle's verdict was given). The SVG timeline
// and the Chrome trace are both drawn from this, so they show the same thing.
//
// Built from a `RunRecord`: its fired faults (with the end of their effect) and its timeline
// events. Bars in one lane that overlap go to separate rows of that lane. Deterministic: the same
// record gives the same model.
//
// Not here: pixels, colours, or file formats (timeline_svg.h, chrome_trace.h).
#include <cstdint>
#include <string>
#include <vector>

#include "reports/run_record.h"

namespace eosim::reports {

struct TimelineLane {
    std::string label;  // "tm1", "network", "checkpoints", "txn sink-0", ...
    std::string group;  // "faults", "checkpoints", "job", "transactions", "oracles", "other"
    int rows = 1;
};

struct TimelineBar {
    size_t lane = 0;
    int row = 0;
    int64_t start_ns = 0;
    int64_t end_ns = 0;
    bool open_end = false;  // it had not ended when the run did
    std::string style;      // "fault-crash", "checkpoint-completed", "txn-committed", ...
    std::string label;      // for a tooltip
};

struct TimelineMark {
    size_t lane = 0;
    int64_t at_ns = 0;
    std::string
        style;  // "failover", "restore", "job-finished", "txn-precommitted", "oracle-failed", ...
    std::string label;
};

struct TimelineModel {
    std::vector<TimelineLane> lanes;
    std::vector<TimelineBar> bars;
    std::vector<TimelineMark> marks;
    int64_t end_ns = 0;  // the end of the time axis: the end of the run (at least 1 ms)
};

TimelineModel build_timeline_model(const RunRecord& record);

}  // namespace eosim::reports
