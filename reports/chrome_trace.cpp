#include "reports/chrome_trace.h"

#include "reports/timeline_model.h"
#include "reports/xml_text.h"

namespace eosim::reports {

namespace {

using nlohmann::json;

double micros(int64_t ns) { return static_cast<double>(ns) / 1000.0; }

// The Trace Event Format's reserved colour names, by the style's family.
const char* colour_name(const std::string& style) {
    if (style.rfind("fault-", 0) == 0) return "terrible";
    if (style == "checkpoint-completed" || style == "txn-committed" || style == "job-finished")
        return "good";
    if (style == "checkpoint-aborted" || style == "txn-aborted" || style == "txn-lost" ||
        style == "job-failed" || style == "oracle-failed" || style == "run-error") {
        return "bad";
    }
    if (style == "txn-precommitted") return "rail_response";
    return "generic_work";
}

}  // namespace

json chrome_trace(const RunRecord& record) {
    const TimelineModel model = build_timeline_model(record);
    constexpr int kPid = 1;
    json events = json::array();
    events.push_back(
        {{"ph", "M"},
         {"pid", kPid},
         {"tid", 0},
         {"name", "process_name"},
         {"args",
          {{"name", valid_utf8(record.scenario + " seed " + std::to_string(record.seed))}}}});
    for (size_t i = 0; i < model.lanes.size(); ++i) {
        const int tid = static_cast<int>(i) + 1;
        events.push_back({{"ph", "M"},
                          {"pid", kPid},
                          {"tid", tid},
                          {"name", "thread_name"},
                          {"args", {{"name", valid_utf8(model.lanes[i].label)}}}});
        events.push_back({{"ph", "M"},
                          {"pid", kPid},
                          {"tid", tid},
                          {"name", "thread_sort_index"},
                          {"args", {{"sort_index", tid}}}});
    }
    for (const TimelineBar& b : model.bars) {
        events.push_back(
            {{"ph", "X"},
             {"pid", kPid},
             {"tid", static_cast<int>(b.lane) + 1},
             {"name", b.style},
             {"cat", model.lanes[b.lane].group},
             {"ts", micros(b.start_ns)},
             {"dur", micros(b.end_ns - b.start_ns)},
             {"cname", colour_name(b.style)},
             {"args", {{"detail", valid_utf8(b.label)}, {"open_at_end", b.open_end}}}});
    }
    for (const TimelineMark& m : model.marks) {
        events.push_back({{"ph", "i"},
                          {"s", "t"},
                          {"pid", kPid},
                          {"tid", static_cast<int>(m.lane) + 1},
                          {"name", m.style},
                          {"cat", model.lanes[m.lane].group},
                          {"ts", micros(m.at_ns)},
                          {"cname", colour_name(m.style)},
                          {"args", {{"detail", valid_utf8(m.label)}}}});
    }
    json verdicts = json::array();
    for (const scenarios::OracleVerdict& v : record.verdicts) {
        verdicts.push_back(
            {{"oracle", v.oracle}, {"passed", v.passed}, {"message", valid_utf8(v.message)}});
    }
    return json{{"traceEvents", std::move(events)},
                {"displayTimeUnit", "ms"},
                {"metadata",
                 {{"scenario", valid_utf8(record.scenario)},
                  {"seed", record.seed},
                  {"status", to_string(record.status)},
                  {"trace_hash", record.trace_hash},
                  {"verdicts", std::move(verdicts)},
                  {"reproduce", valid_utf8(record.reproduce)},
                  {"time", "virtual time of the simulation, in microseconds"}}}};
}

}  // namespace eosim::reports
