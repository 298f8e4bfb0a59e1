// A thinned timeline stays true: faults, failovers, checkpoints and every transaction's begin and
// end are kept; watermark spans are merged first (each line stays whole); the record says how much
// was left out; and a transaction is drawn open at the end only when the run ended with it open.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "reports/run_record.h"
#include "reports/timeline_model.h"

namespace eosim::reports {
namespace {

constexpr int64_t kMs = 1'000'000;

// About a 243 s run: 480 checkpoints, 4 sink subtasks' transactions, 3 failovers, and two
// vertices' watermark lines of a span per 100 ms.
RunRecord long_run() {
    RunRecord r;
    r.scenario = "long";
    r.status = RunStatus::passed;
    r.has_timeline = true;
    r.figures.virtual_seconds = 243;
    for (int64_t w = 0; w < 2430; ++w) {
        for (const char* lane : {"watermark window", "watermark source"}) {
            r.timeline.push_back({w * 100 * kMs, (w + 1) * 100 * kMs, lane, "watermark",
                                  "watermark: " + std::to_string(w)});
        }
    }
    for (int64_t c = 1; c <= 480; ++c) {
        const int64_t at = c * 500 * kMs;
        r.timeline.push_back(
            {at, -1, "checkpoints", "checkpoint.triggered", "checkpoint " + std::to_string(c)});
        for (int s = 0; s < 4; ++s) {
            const std::string id = "sink-" + std::to_string(s) + "-" + std::to_string(c);
            r.timeline.push_back({at - 400 * kMs, -1, "transactions", "txn.begun", id});
            r.timeline.push_back({at + 10 * kMs, -1, "transactions", "txn.precommitted", id});
            r.timeline.push_back({at + 60 * kMs, -1, "transactions", "txn.committed", id});
        }
        r.timeline.push_back({at + 50 * kMs, -1, "checkpoints", "checkpoint.completed",
                              "checkpoint " + std::to_string(c)});
        if (c % 150 == 0)
            r.timeline.push_back(
                {at + 70 * kMs, -1, "job", "failover", "attempt " + std::to_string(c / 150 + 1)});
    }
    std::stable_sort(r.timeline.begin(), r.timeline.end(),
                     [](const scenarios::TimelineEvent& a, const scenarios::TimelineEvent& b) {
                         return a.at_ns < b.at_ns;
                     });
    return r;
}

size_t count_style(const TimelineModel& m, const std::string& style) {
    return static_cast<size_t>(
        std::count_if(m.bars.begin(), m.bars.end(),
                      [&](const TimelineBar& b) { return b.style == style; }) +
        std::count_if(m.marks.begin(), m.marks.end(),
                      [&](const TimelineMark& k) { return k.style == style; }));
}

TEST_CASE(
    "timeline thinning: every essential event kept, watermark lines merged and whole, the cut counted",
    "[reports][timeline]") {
    RunRecord r = long_run();
    const size_t before = r.timeline.size();
    const auto essential =
        std::count_if(r.timeline.begin(), r.timeline.end(), essential_timeline_event);
    bound_record(r);
    CHECK(r.timeline_events_cut > 0);
    CHECK(static_cast<size_t>(r.timeline_events_cut) + r.timeline.size() == before);
    CHECK(std::count_if(r.timeline.begin(), r.timeline.end(), essential_timeline_event) ==
          essential);
    CHECK(r.timeline_essential_cut == 0);
    for (const char* lane : {"watermark window", "watermark source"}) {
        int64_t start = -1;
        int64_t end = -1;
        for (const scenarios::TimelineEvent& e : r.timeline) {
            if (e.lane != lane) continue;
            if (start < 0) start = e.at_ns;
            CHECK(e.at_ns == std::max<int64_t>(end, 0));  // contiguous: merged spans leave no gap
            end = e.end_ns;
        }
        CHECK(start == 0);
        CHECK(end == 2430 * 100 * kMs);
    }
    const TimelineModel m = build_timeline_model(r);
    CHECK(count_style(m, "txn-committed") == 480 * 4);
    CHECK(count_style(m, "txn-open") ==
          0);  // the old cut drew every transaction after ~50 s as open
    CHECK(count_style(m, "failover") == 3);
    CHECK(count_style(m, "checkpoint-completed") >= 480);
}

TEST_CASE(
    "timeline thinning: past the essential bound the latest ends are unknown, never drawn as open",
    "[reports][timeline]") {
    RunRecord r = long_run();
    const ThinnedTimeline thinned = thin_timeline(
        r.timeline, 1000, 605);  // mid-checkpoint: 4 begins kept, their commits left out
    CHECK(thinned.essential_left_out > 0);
    r.timeline_events_cut = thinned.left_out;
    CHECK(count_style(build_timeline_model(r), "txn-open") >
          0);  // without saying so, cut ends read as open
    r.timeline_essential_cut = thinned.essential_left_out;
    const TimelineModel m = build_timeline_model(r);
    CHECK(count_style(m, "txn-open") == 0);
    CHECK(count_style(m, "txn-unknown") > 0);
    const RunRecord back = run_record_from_json(to_json(r));
    CHECK(back.timeline_essential_cut == thinned.essential_left_out);
}

}  // namespace
}  // namespace eosim::reports
