// Event time: the input valve (min over active channels, idle channels left out, never backwards,
// all idle), the source's per-split bounded-out-of-orderness watermarks with idleness, the input
// producer's event timestamps, and whole jobs: the watermark reaching a sink is monotone and ends
// at kMaxWatermark, and a restored task starts at its checkpointed watermark.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "engine/connectors/split_watermarks.h"
#include "engine/runtime/watermark_valve.h"
#include "engine/vocabulary/run_observer.h"
#include "sim/external/input_producer.h"
#include "tests/engine/scenario_fixtures.h"
#include "tests/external/external_test_world.h"

namespace eosim::engine::test {
namespace {

using sim::Duration;
using sim::Time;

void require_passed(const scenarios::RunResult& result) {
    for (const auto& verdict : result.verdicts) {
        INFO(verdict.oracle << ": " << verdict.message);
        REQUIRE(verdict.passed);
    }
    REQUIRE(result.job_finished);
}

TEST_CASE("watermark valve: the minimum over active channels, never backwards", "[event_time]") {
    WatermarkValve valve(3);
    CHECK_FALSE(
        valve.watermark_received(0, 100).watermark);  // channels 1 and 2 have sent nothing yet
    CHECK_FALSE(valve.watermark_received(1, 50).watermark);
    CHECK(valve.watermark_received(2, 70).watermark == std::optional<int64_t>(50));
    CHECK(valve.watermark_received(1, 90).watermark == std::optional<int64_t>(70));
    CHECK_FALSE(
        valve.watermark_received(1, 80).watermark);  // a channel going backwards changes nothing
    CHECK_FALSE(valve.watermark_received(2, 60).watermark);
    CHECK(valve.current() == 70);
    CHECK(valve.watermark_received(2, 200).watermark == std::optional<int64_t>(90));
}

TEST_CASE("watermark valve: idle channels are left out, and all idle turns the output idle",
          "[event_time]") {
    WatermarkValve valve(2);
    valve.watermark_received(0, 10);
    CHECK(valve.watermark_received(1, 20).watermark == std::optional<int64_t>(10));
    // Channel 0 idles: the minimum is channel 1's alone.
    const auto idle0 = valve.status_received(0, true);
    CHECK(idle0.watermark == std::optional<int64_t>(20));
    CHECK_FALSE(idle0.idle);
    CHECK_FALSE(
        valve.watermark_received(0, 15).watermark);  // an idle channel's watermark is ignored
    const auto idle1 = valve.status_received(1, true);
    CHECK(idle1.idle == std::optional<bool>(true));
    CHECK_FALSE(idle1.watermark);
    CHECK(valve.idle());
    // Channel 0 resumes behind the output: active again, but it joins the minimum only once caught
    // up.
    const auto active0 = valve.status_received(0, false);
    CHECK(active0.idle == std::optional<bool>(false));
    CHECK_FALSE(valve.watermark_received(0, 18).watermark);
    CHECK(valve.current() == 20);
    CHECK(valve.watermark_received(0, 25).watermark == std::optional<int64_t>(25));
}

TEST_CASE("watermark valve: a restored watermark is a floor", "[event_time]") {
    WatermarkValve valve(2);
    valve.restore(500);
    CHECK_FALSE(valve.watermark_received(0, 400).watermark);
    CHECK_FALSE(valve.watermark_received(1, 450).watermark);
    CHECK_FALSE(valve.watermark_received(0, 600).watermark);  // channel 1 is still behind the floor
    CHECK(valve.watermark_received(1, 550).watermark == std::optional<int64_t>(550));
}

TEST_CASE(
    "split watermarks: per split max - bound - 1, minimum over splits, idleness, finished splits",
    "[event_time]") {
    WatermarkSpec spec;
    spec.out_of_orderness = Duration::millis(100);
    spec.idle_timeout = Duration::seconds(1);
    SplitWatermarks w(spec);
    const Time t0 = Time::zero();
    w.add_split(0, kMinWatermark, t0);
    w.add_split(1, kMinWatermark, t0);
    CHECK(w.current(t0).watermark == kMinWatermark);
    w.record_read(0, 1000, t0);
    CHECK(w.current(t0).watermark == kMinWatermark);  // split 1 has no record yet
    w.record_read(1, 700, t0);
    CHECK(w.current(t0).watermark == 599);
    w.record_read(1, 650, t0 + Duration::millis(10));  // out of order: the max stays
    CHECK(w.current(t0 + Duration::millis(10)).watermark == 599);
    // Split 0 hears nothing for a second: idle, the watermark is split 1's.
    w.record_read(1, 1500, t0 + Duration::millis(1200));
    const auto later = w.current(t0 + Duration::millis(1200));
    CHECK(later.watermark == 1399);
    CHECK_FALSE(later.idle);
    CHECK(w.current(t0 + Duration::millis(2300)).idle);  // both idle
    // A record makes split 0 active again.
    w.record_read(0, 1100, t0 + Duration::millis(2300));
    CHECK(w.current(t0 + Duration::millis(2300)).watermark == 999);
    w.split_finished(0);
    CHECK(w.current(t0 + Duration::millis(2300)).idle);  // split 1 is idle, split 0 finished
    CHECK(w.max_timestamp(0) == 1100);
}

TEST_CASE("input producer: event timestamps within the bound, the late share about late_by behind",
          "[event_time]") {
    eosim::test::ExternalTestWorld w;
    const sim::NodeId broker = w.add_node("kafka");
    sim::external::KafkaCluster kafka(w.world.scheduler(), w.world.network(), broker, {});
    kafka.create_topic("input", 1);  // one partition: record i is appended at i ms (1000 a second)
    sim::external::InputProducerSpec spec;
    spec.topic = "input";
    spec.records = 4000;
    spec.rate_per_second = 1000;
    spec.event_time = sim::external::EventTimeSpec{Duration::millis(150), 10, Duration::seconds(3)};
    const sim::external::InputProducer producer(w.world.scheduler(), kafka, spec,
                                                w.world.prng("input"));
    spec.event_time.reset();
    const sim::external::InputProducer plain(w.world.scheduler(), kafka, spec,
                                             w.world.prng("input"));
    int64_t late = 0;
    const auto& records = producer.partitions()[0];
    REQUIRE(records.size() == 4000);
    for (size_t i = 0; i < records.size(); ++i) {
        CHECK(plain.partitions()[0][i].timestamp ==
              static_cast<int64_t>(i));  // without event_time: the append time
        const int64_t behind = static_cast<int64_t>(i) - records[i].timestamp;
        if (behind > 150) {
            ++late;
            CHECK(behind >= 3000);
            CHECK(behind <= 3150);
        } else {
            CHECK(behind >= 0);
        }
    }
    CHECK(late > 300);  // 10% of 4000, give or take
    CHECK(late < 500);
}

// Records every watermark advance a task reports, per (attempt, vertex, subtask), in order.
struct WatermarkLog final : RunObserver {
    struct Advance {
        Time at;
        int64_t watermark;
    };
    std::map<std::tuple<int64_t, std::string, int32_t>, std::vector<Advance>> advances;
    std::map<int64_t, int64_t> restored_from;  // attempt -> checkpoint id
    void watermark_advanced(Time t, int64_t attempt, const std::string& vertex, int32_t subtask,
                            int64_t watermark) override {
        advances[{attempt, vertex, subtask}].push_back(Advance{t, watermark});
    }
    void restore_started(Time, int64_t attempt, int64_t checkpoint_id,
                         const SourceOffsets&) override {
        restored_from[attempt] = checkpoint_id;
    }
};

scenarios::Scenario event_time_count(int64_t records) {
    scenarios::Scenario s = count_scenario(records, 2);
    s.job.vertices[0].watermarks = WatermarkSpec{Duration::millis(100), std::nullopt};
    s.inputs[0].event_time =
        sim::external::EventTimeSpec{Duration::millis(80), 0, Duration::zero()};
    return s;
}

TEST_CASE("event time job: the watermark reaching the sink is monotone and ends at kMaxWatermark",
          "[event_time]") {
    WatermarkLog log;
    scenarios::RunOptions options;
    options.seed = 3;
    options.observer = &log;
    const scenarios::RunResult result = scenarios::run_scenario(event_time_count(1500), options);
    require_passed(result);
    REQUIRE(result.job_finished);
    for (int32_t subtask = 0; subtask < 2; ++subtask) {
        const auto& sink = log.advances[{1, "sink", subtask}];
        REQUIRE(sink.size() > 3);
        for (size_t i = 1; i < sink.size(); ++i) CHECK(sink[i].watermark > sink[i - 1].watermark);
        CHECK(sink.back().watermark == kMaxWatermark);
        // The watermark moved with the input (about 1.5 s of event time), not only at the end.
        CHECK(sink[sink.size() - 2].watermark > 1000);
    }
    // Same seed, same trace hash.
    CHECK(scenarios::run_scenario(event_time_count(1500), options).trace_hash == result.trace_hash);
}

TEST_CASE(
    "event time job: a restored task starts at its checkpointed watermark, before any source sends one",
    "[event_time]") {
    int64_t restores_checked = 0;
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        scenarios::Scenario s = event_time_count(3000);
        s.faults = {crash_at("tm1", Duration::millis(1700 + 200 * static_cast<int64_t>(seed)),
                             Duration::millis(500))};
        WatermarkLog log;
        scenarios::RunOptions options;
        options.seed = seed;
        options.observer = &log;
        const scenarios::RunResult result = scenarios::run_scenario(s, options);
        INFO("seed " << seed);
        require_passed(result);
        for (const auto& [attempt, checkpoint] : log.restored_from) {
            if (checkpoint == 0) continue;
            Time first_source = Time::never();
            for (int32_t subtask = 0; subtask < 2; ++subtask) {
                const auto& source = log.advances[{attempt, "source", subtask}];
                if (!source.empty()) first_source = std::min(first_source, source.front().at);
            }
            for (int32_t subtask = 0; subtask < 2; ++subtask) {
                const auto& count = log.advances[{attempt, "count", subtask}];
                REQUIRE_FALSE(count.empty());
                // The restored watermark is reported at restore, before any source of the attempt
                // sent one, and is no more than what the subtask had reached before the crash.
                CHECK(count.front().at < first_source);
                CHECK(count.front().watermark > 0);
                const auto& before = log.advances[{attempt - 1, "count", subtask}];
                REQUIRE_FALSE(before.empty());
                CHECK(count.front().watermark <= before.back().watermark);
                ++restores_checked;
            }
        }
    }
    CHECK(restores_checked >= 4);
}

}  // namespace
}  // namespace eosim::engine::test
