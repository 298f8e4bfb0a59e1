// sim::Trace: the running hash over (kind, time, node, digest), its JSON-lines log, and what the
// scheduler and the world fold into it.
#include <sstream>
#include <string>
#include <vector>

#include <rapidcheck/catch.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kAlpha{"test.alpha"};
constexpr EventKind kBeta{"test.beta"};

Time at_ns(int64_t ns) { return Time{ns}; }

TEST_CASE("trace: the hash depends on every field and on the order", "[sim][trace]") {
    auto hash_of = [](const EventKind& kind, int64_t ns, NodeId node, uint64_t digest) {
        Trace trace;
        trace.record(kind, at_ns(ns), node, digest);
        return trace.hash();
    };
    const uint64_t base = hash_of(kAlpha, 10, 1, 99);
    CHECK(base == hash_of(kAlpha, 10, 1, 99));
    CHECK(base != Trace().hash());
    CHECK(base != hash_of(kBeta, 10, 1, 99));
    CHECK(base != hash_of(kAlpha, 11, 1, 99));
    CHECK(base != hash_of(kAlpha, 10, 2, 99));
    CHECK(base != hash_of(kAlpha, 10, kNoNode, 99));
    CHECK(base != hash_of(kAlpha, 10, 1, 98));

    Trace forward;
    forward.record(kAlpha, at_ns(1), 0, 0);
    forward.record(kBeta, at_ns(1), 0, 0);
    Trace backward;
    backward.record(kBeta, at_ns(1), 0, 0);
    backward.record(kAlpha, at_ns(1), 0, 0);
    CHECK(forward.hash() != backward.hash());
    CHECK(forward.events() == 2);

    rc::prop(
        "equal event sequences give equal hashes; a changed event changes it",
        [](const std::vector<std::pair<int64_t, uint64_t>>& events, size_t which, uint64_t delta) {
            RC_PRE(!events.empty());
            RC_PRE(delta != 0);
            Trace a;
            Trace b;
            Trace changed;
            const size_t victim = which % events.size();
            for (size_t i = 0; i < events.size(); ++i) {
                const auto& [ns, digest] = events[i];
                a.record(kAlpha, at_ns(ns), 0, digest);
                b.record(kAlpha, at_ns(ns), 0, digest);
                changed.record(kAlpha, at_ns(ns), 0, i == victim ? digest + delta : digest);
            }
            RC_ASSERT(a.hash() == b.hash());
            RC_ASSERT(a.hash() != changed.hash());
        });
}

TEST_CASE("trace: event kinds and digests are stable names", "[sim][trace]") {
    CHECK(kAlpha.id == stable_hash("test.alpha"));
    CHECK(kAlpha.name == "test.alpha");
    CHECK(digest_of("checkpoint-1") == digest_of(std::string("checkpoint-") + "1"));
    CHECK(digest_of("a") != digest_of("b"));
    CHECK(digest_mix(1, 2) != digest_mix(2, 1));
}

TEST_CASE("trace: the JSON-lines log writes one object per event", "[sim][trace]") {
    std::ostringstream log;
    Trace trace;
    trace.record(kAlpha, at_ns(5), 0, 1);  // before logging starts: not written
    trace.set_log(&log);
    trace.record(kAlpha, at_ns(1'500), 3, 42);
    trace.record(kBeta, at_ns(2'000), kNoNode, 7);
    trace.set_log(nullptr);
    trace.record(kBeta, at_ns(3'000), 1, 0);
    CHECK(trace.events() == 4);

    std::istringstream lines(log.str());
    std::vector<nlohmann::json> parsed;
    for (std::string line; std::getline(lines, line);)
        parsed.push_back(nlohmann::json::parse(line));
    REQUIRE(parsed.size() == 2);
    CHECK(parsed[0]["kind"] == "test.alpha");
    CHECK(parsed[0]["t_ns"] == 1'500);
    CHECK(parsed[0]["node"] == 3);
    CHECK(parsed[0]["digest"] == 42);
    CHECK(parsed[1]["kind"] == "test.beta");
    CHECK_FALSE(parsed[1].contains("node"));  // a world event has no node
    CHECK(parsed[0]["seq"].get<uint64_t>() + 1 == parsed[1]["seq"].get<uint64_t>());
}

TEST_CASE("trace: the scheduler folds every processed and dropped event in", "[sim][trace]") {
    WorldOptions options;
    World world(options);
    const NodeId a = world.nodes().add("a");
    world.scheduler().schedule(Duration::nanos(10), a, kAlpha, 5, [] {});
    world.scheduler().schedule(Duration::nanos(20), kNoNode, kBeta, 6,
                               [&] { world.announce("sink.precommitted", a, 3); });
    world.scheduler().schedule(Duration::nanos(30), a, kAlpha, 7, [] {});
    world.scheduler().schedule(Duration::nanos(25), kNoNode, kBeta, 8,
                               [&] { world.scheduler().crash(a); });
    std::vector<std::string> points;
    world.on_point([&](const ProtocolPointEvent& event) {
        points.emplace_back(event.point);
        CHECK(event.node == a);
        CHECK(event.detail == 3);
    });
    while (world.scheduler().step()) {}

    Trace expected;
    expected.record(kAlpha, at_ns(10), a, 5);
    expected.record(kBeta, at_ns(20), kNoNode, 6);
    expected.record(EventKind{"protocol.point"}, at_ns(20), a,
                    digest_mix(digest_of("sink.precommitted"), 3));
    expected.record(kBeta, at_ns(25), kNoNode, 8);
    expected.record(EventKind{"sim.dropped"}, at_ns(30), a, kAlpha.id);
    CHECK(world.trace().hash() == expected.hash());
    CHECK(world.trace().events() == 5);
    CHECK(points == std::vector<std::string>{"sink.precommitted"});
}

}  // namespace
}  // namespace eosim::sim
