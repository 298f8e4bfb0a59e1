// scenarios/random_faults.h: the generator of random fault schedules. The same seed draws the same
// schedule and different seeds different ones; every drawn fault's effect ends by quiet_after and
// time-triggered ones fire inside the window; swarm mode switches on a non-empty subset of the
// configured kinds; counts stay in range; and a drawn schedule written as JSON
// (scenarios/fault_json.h) loads back as the same faults.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "scenarios/fault_json.h"
#include "scenarios/random_faults.h"
#include "scenarios/scenario.h"
#include "tests/temp_dir.h"

namespace eosim::scenarios {
namespace {

using eosim::testing::TempDir;

using sim::Duration;
using sim::FaultKind;
using sim::Time;

RandomFaultKind kind_with_nodes(FaultKind kind, std::vector<std::string> nodes) {
    RandomFaultKind k;
    k.kind = kind;
    k.nodes = std::move(nodes);
    return k;
}

// Every kind, as the loader's defaults would leave them for a world of two TaskManagers.
RandomFaults every_kind(RandomMode mode) {
    RandomFaults r;
    r.mode = mode;
    r.count_min = 3;
    r.count_max = 12;
    r.window_from = Duration::seconds(1);
    r.window_to = Duration::seconds(8);
    r.quiet_after = Duration::seconds(10);
    r.task_manager_nodes = {"tm0", "tm1"};
    r.kinds.push_back(kind_with_nodes(FaultKind::crash, {"jobmanager", "tm0", "tm1"}));
    r.kinds.back().restart_delay = {Duration::zero(), Duration::seconds(4)};
    r.kinds.push_back(kind_with_nodes(FaultKind::pause, {"tm0", "tm1"}));
    r.kinds.push_back(kind_with_nodes(FaultKind::partition, {"jobmanager", "tm0", "tm1"}));
    r.kinds.push_back(kind_with_nodes(FaultKind::slow_link, {"jobmanager", "tm0", "tm1", "kafka"}));
    for (FaultKind k :
         {FaultKind::storage_failure, FaultKind::storage_slow, FaultKind::broker_unavailable,
          FaultKind::kafka_write_failure, FaultKind::transaction_abort}) {
        r.kinds.push_back(kind_with_nodes(k, {}));
    }
    RandomFaultKind loss = kind_with_nodes(FaultKind::message_loss, {});
    loss.messages = {"checkpoint.notify_complete", "checkpoint.acknowledge"};
    loss.ratio = {sim::Ratio{1, 4}, sim::Ratio{1, 1}};
    r.kinds.push_back(loss);
    for (RandomFaultKind& k : r.kinds)
        k.duration = {Duration::millis(100),
                      Duration::seconds(12)};  // longer than the window allows
    r.point_triggers.ratio = sim::Ratio{1, 3};
    r.point_triggers.points = {"sink.precommitted", "checkpoint.completed", "task.restoring",
                               "failover.started"};
    r.point_triggers.max_occurrence = 10;
    return r;
}

FaultDraw draw_faults(const RandomFaults& spec, uint64_t seed) {
    sim::Prng prng = sim::Prng(seed).fork("faults");
    return draw_random_faults(spec, prng);
}

std::string dump(const std::vector<sim::FaultSpec>& faults) {
    return faults_to_json(faults).dump();
}

Duration effect_of(const sim::FaultSpec& f) {
    if (f.kind == FaultKind::crash) return f.restart_delay;
    if (f.kind == FaultKind::transaction_abort) return Duration::zero();
    return f.duration;
}

TEST_CASE("random faults: the same seed draws the same schedule, other seeds other ones",
          "[random_faults]") {
    for (RandomMode mode : {RandomMode::swarm, RandomMode::fixed}) {
        const RandomFaults spec = every_kind(mode);
        std::set<std::string> distinct;
        for (uint64_t seed = 1; seed <= 20; ++seed) {
            const FaultDraw a = draw_faults(spec, seed);
            const FaultDraw b = draw_faults(spec, seed);
            CHECK(dump(a.faults) == dump(b.faults));
            CHECK(a.kinds_on == b.kinds_on);
            CHECK(a.weights == b.weights);
            CHECK(a.prng_draws == b.prng_draws);
            distinct.insert(dump(a.faults));
        }
        CHECK(distinct.size() == 20);
    }
}

TEST_CASE("random faults: drawing uses only the stream it is given", "[random_faults]") {
    // The runner forks "faults" from the root seed: another stream of the same root is untouched.
    const sim::Prng root(42);
    sim::Prng network = root.fork("network");
    const uint64_t expected = network.next();
    sim::Prng faults = root.fork("faults");
    draw_random_faults(every_kind(RandomMode::swarm), faults);
    sim::Prng network_again = root.fork("network");
    CHECK(network_again.next() == expected);
}

TEST_CASE("random faults: every drawn effect ends by quiet_after, time triggers fall in the window",
          "[random_faults]") {
    rc::prop("any seed, any count range", [](uint64_t seed) {
        RandomFaults spec = every_kind(*rc::gen::element(RandomMode::swarm, RandomMode::fixed));
        spec.count_min = *rc::gen::inRange(0, 10);
        spec.count_max = spec.count_min + *rc::gen::inRange(0, 10);
        const FaultDraw d = draw_faults(spec, seed);
        RC_ASSERT(d.count >= spec.count_min);
        RC_ASSERT(d.count <= spec.count_max);
        RC_ASSERT(d.faults.size() == static_cast<size_t>(d.count));
        const Time quiet = Time::zero() + spec.quiet_after;
        for (const sim::FaultSpec& f : d.faults) {
            RC_ASSERT(effect_of(f) >= Duration::zero());
            if (f.trigger.point.empty()) {
                RC_ASSERT(f.trigger.at >= Time::zero() + spec.window_from);
                RC_ASSERT(f.trigger.at <= Time::zero() + spec.window_to);
                RC_ASSERT(f.trigger.at + effect_of(f) <= quiet);
            } else {
                RC_ASSERT(f.trigger.not_after + effect_of(f) <= quiet);
                RC_ASSERT(f.trigger.occurrence >= 1);
                RC_ASSERT(f.trigger.occurrence <= spec.point_triggers.max_occurrence);
            }
            if (f.kind == FaultKind::crash) RC_ASSERT(f.restart);
            if (f.kind == FaultKind::slow_link) {
                RC_ASSERT(f.nodes.size() == 2u);
                RC_ASSERT(f.nodes[0] != f.nodes[1]);
            }
            if (f.kind == FaultKind::message_loss) {
                RC_ASSERT(!f.messages.empty());
                RC_ASSERT(f.ratio.numerator * 4 >= f.ratio.denominator);  // at least 1/4
                RC_ASSERT(f.ratio.numerator <= f.ratio.denominator);
            }
        }
    });
}

TEST_CASE("random faults: the end window places time-triggered faults around the input's end",
          "[random_faults]") {
    RandomFaults spec = every_kind(RandomMode::fixed);
    spec.point_triggers.ratio = sim::Ratio::never();
    spec.window_to = Duration::seconds(3);
    spec.quiet_after = Duration::seconds(14);
    spec.input_end = Duration::seconds(9);
    spec.end_before = Duration::seconds(2);
    spec.end_after = Duration::seconds(3);
    for (RandomFaultKind& k :
         spec.kinds) {  // effects short enough for the end window to fit before quiet_after
        k.duration = {Duration::millis(100), Duration::seconds(2)};
        k.restart_delay = {Duration::zero(), Duration::seconds(2)};
    }
    // Without an end ratio the draw is the one it always was: nothing is drawn for the end window.
    const FaultDraw plain = draw_faults(spec, 7);
    RandomFaults unset = spec;
    unset.input_end = Duration::zero();
    CHECK(dump(draw_faults(unset, 7).faults) == dump(plain.faults));
    spec.end_ratio = sim::Ratio::always();
    int64_t late = 0;
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        for (const sim::FaultSpec& f : draw_faults(spec, seed).faults) {
            REQUIRE(f.trigger.point.empty());
            CHECK(f.trigger.at >= Time::zero() + Duration::seconds(7));
            CHECK(f.trigger.at <= Time::zero() + Duration::seconds(12));
            CHECK(f.trigger.at + effect_of(f) <= Time::zero() + spec.quiet_after);
            if (f.trigger.at > Time::zero() + spec.input_end) ++late;
        }
    }
    CHECK(late > 0);  // some land after the input's end: the final checkpoint and commits
}

TEST_CASE("random faults: swarm switches on a non-empty subset of the kinds, fixed switches on all",
          "[random_faults]") {
    const RandomFaults swarm = every_kind(RandomMode::swarm);
    std::set<size_t> subset_sizes;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
        const FaultDraw d = draw_faults(swarm, seed);
        REQUIRE(!d.kinds_on.empty());
        REQUIRE(d.kinds_on.size() == d.weights.size());
        subset_sizes.insert(d.kinds_on.size());
        for (size_t i = 0; i < d.kinds_on.size(); ++i) {
            CHECK(d.weights[i] >= 1);
            CHECK(d.weights[i] <= 10);
        }
        for (const sim::FaultSpec& f : d.faults) {
            CHECK(std::find(d.kinds_on.begin(), d.kinds_on.end(), f.kind) != d.kinds_on.end());
        }
    }
    CHECK(subset_sizes.size() > 3);  // the subsets really vary
    CHECK(*subset_sizes.rbegin() < swarm.kinds.size() + 1);

    const FaultDraw fixed = draw_faults(every_kind(RandomMode::fixed), 7);
    CHECK(fixed.kinds_on.size() == every_kind(RandomMode::fixed).kinds.size());
}

TEST_CASE(
    "random faults: a crash at a point hits the announcer only when every announcer is a candidate",
    "[random_faults]") {
    RandomFaults spec = every_kind(RandomMode::fixed);
    spec.kinds = {kind_with_nodes(FaultKind::crash, {"tm0", "tm1"})};  // no JobManager
    spec.point_triggers.ratio = sim::Ratio::always();
    spec.point_triggers.points = {"checkpoint.completed", "sink.precommitted"};
    bool saw_announcer = false;
    for (uint64_t seed = 1; seed <= 50; ++seed) {
        for (const sim::FaultSpec& f : draw_faults(spec, seed).faults) {
            if (f.trigger.point == "checkpoint.completed")
                CHECK(f.nodes.size() == 1);  // never the JobManager
            if (f.nodes.empty()) saw_announcer = true;
        }
    }
    CHECK(saw_announcer);
    CHECK(announced_by_job_manager("checkpoint.completed"));
    CHECK_FALSE(announced_by_job_manager("checkpoint.notified"));
}

// --- the JSON form round-trips through the loader ---

nlohmann::json scenario_with(const nlohmann::ordered_json& schedule) {
    nlohmann::json doc = nlohmann::json::parse(R"({
      "world": {"task_managers": 2, "slots_per_task_manager": 2,
                "topics": [{"name": "input", "partitions": 2}, {"name": "output", "partitions": 2}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 2},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "output"}, "parallelism": 2, "inputs": [{"from": "source"}]}]},
      "oracles": ["exactly_once_output"]
    })");
    doc["faults"] = {{"schedule", nlohmann::json::parse(schedule.dump())}};
    return doc;
}

TEST_CASE("fault JSON: drawn schedules load back as the same faults",
          "[random_faults][fault_json]") {
    TempDir dir;
    RandomFaults spec = every_kind(RandomMode::fixed);
    spec.count_min = spec.count_max = 40;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
        std::vector<sim::FaultSpec> faults = draw_faults(spec, seed).faults;
        // What a shrunk schedule may hold besides: a point node, no deadline, no restart, odd
        // units.
        sim::FaultSpec extra;
        extra.kind = FaultKind::crash;
        extra.trigger.point = "sink.committed";
        extra.trigger.occurrence = 3;
        extra.trigger.point_node = "tm1";
        extra.restart = false;
        extra.restart_delay = Duration::micros(1500);
        faults.push_back(extra);
        const auto file = dir.write("s" + std::to_string(seed) + ".json",
                                    scenario_with(faults_to_json(faults)).dump());
        const Scenario loaded = load_scenario(file);
        REQUIRE(loaded.faults.size() == faults.size());
        for (size_t i = 0; i < faults.size(); ++i) {
            INFO(describe_fault(faults[i]));
            CHECK(describe_fault(loaded.faults[i]) == describe_fault(faults[i]));
            CHECK(loaded.faults[i].trigger.at == faults[i].trigger.at);
            CHECK(loaded.faults[i].trigger.not_after == faults[i].trigger.not_after);
            CHECK(loaded.faults[i].duration == faults[i].duration);
            CHECK(loaded.faults[i].restart_delay == faults[i].restart_delay);
            CHECK(loaded.faults[i].nodes == faults[i].nodes);
            CHECK(loaded.faults[i].other_nodes == faults[i].other_nodes);
            CHECK(loaded.faults[i].messages == faults[i].messages);
        }
    }
}

TEST_CASE("fault JSON: durations in the largest exact unit", "[fault_json]") {
    CHECK(format_duration_exact(Duration::zero()) == "0ms");
    CHECK(format_duration_exact(Duration::seconds(2)) == "2s");
    CHECK(format_duration_exact(Duration::millis(1500)) == "1500ms");
    CHECK(format_duration_exact(Duration::micros(7)) == "7us");
    CHECK(format_duration_exact(Duration::nanos(1'000'000'001)) == "1000000001ns");
    CHECK(format_duration_exact(Duration::seconds(120)) == "2m");
}

}  // namespace
}  // namespace eosim::scenarios
