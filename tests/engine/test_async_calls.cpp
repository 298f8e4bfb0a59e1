// Asynchronous calls to an outside system (engine/connectors/sink.h: SinkContext::call)
// through the default transport: the request lands after a latency drawn from the system's stream,
// the answer comes back after another draw; answers overtake each other; a crashed caller gets no
// answer and its requests still on the way are refused; a slow period stretches every leg.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/connectors/sink.h"
#include "sim/external/key_value_store.h"
#include "sim/world.h"

namespace eosim::engine {
namespace {

namespace external = sim::external;

constexpr sim::EventKind kAsyncTestTimer{"test.async_timer"};

// A context whose timers run on its node (dropped after a crash), as the engine's task's do.
class TimedContext final : public SinkContext {
public:
    TimedContext(sim::World& world, sim::NodeId node) : world_(world), node_(node) {}
    sim::World& world() override { return world_; }
    sim::NodeId node() const override { return node_; }
    int32_t subtask() const override { return 0; }
    int32_t parallelism() const override { return 1; }
    int64_t attempt() const override { return 1; }
    RunObserver& observer() override { return observer_; }
    void after(sim::Duration delay, std::function<void()> fn) override {
        world_.scheduler().schedule(delay, node_, kAsyncTestTimer, 0, std::move(fn));
    }
    void fail(const std::string&) override {}
    int answered_calls = 0;

protected:
    void answered() override { ++answered_calls; }

private:
    sim::World& world_;
    sim::NodeId node_;
    RunObserver observer_;
};

struct AsyncWorld {
    explicit AsyncWorld(uint64_t seed = 7) : world(sim::WorldOptions{seed, {}, {}}) {
        store.set_latency(external::CallLatency{}, world.prng("latency/key_values"));
    }
    sim::World world;
    sim::NodeId store_node = world.nodes().add("key_values");
    sim::NodeId task_node = world.nodes().add("tm0");
    external::KeyValueStore store{world.scheduler(), world.network(), store_node};
    TimedContext context{world, task_node};

    // Sets key "k<i>" to i asynchronously; the answer notes (id, when).
    CallId set(int64_t i, std::vector<std::pair<CallId, sim::Time>>* answers) {
        external::KeyValueStore* kv = &store;
        sim::World* w = &world;
        return context.call<external::KeyValueResult>(
            store,
            [kv, i](sim::NodeId caller) { return kv->set(caller, "k" + std::to_string(i), i); },
            [answers, w](CallId id, const external::KeyValueResult& r) {
                if (r.error == external::KeyValueError::none) answers->emplace_back(id, w->now());
            });
    }
    void run_for(sim::Duration d) {
        const sim::Time until = world.now() + d;
        world.scheduler().schedule_at(until, sim::kNoNode, kAsyncTestTimer, 0, [] {});
        world.scheduler().run_until(until);
    }
};

std::vector<CallId> ids_of(const std::vector<std::pair<CallId, sim::Time>>& answers) {
    std::vector<CallId> out;
    for (const auto& [id, at] : answers) out.push_back(id);
    return out;
}

}  // namespace

TEST_CASE("async calls: a request lands after a drawn latency, its answer comes after another",
          "[async_calls]") {
    AsyncWorld w;
    std::vector<std::pair<CallId, sim::Time>> answers;
    CHECK(w.set(1, &answers) == 1);
    CHECK(w.context.calls_in_flight() == 1);
    CHECK_FALSE(w.store.peek("k1").has_value());  // nothing applied at the call
    w.run_for(sim::Duration::millis(1));
    CHECK_FALSE(w.store.peek("k1").has_value());  // no leg is shorter than 2 ms
    w.run_for(sim::Duration::millis(100));
    CHECK(w.store.peek("k1") == 1);
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].second >= sim::Time::zero() + sim::Duration::millis(4));
    CHECK(answers[0].second <= sim::Time::zero() + sim::Duration::millis(40));
    CHECK(w.context.calls_in_flight() == 0);
    CHECK(w.context.answered_calls == 1);
}

TEST_CASE("async calls: answers of one caller overtake each other, the same way for the same seed",
          "[async_calls]") {
    const auto order = [](uint64_t seed) {
        AsyncWorld w(seed);
        std::vector<std::pair<CallId, sim::Time>> answers;
        for (int64_t i = 1; i <= 20; ++i) w.set(i, &answers);
        w.run_for(sim::Duration::millis(100));
        CHECK(w.context.calls_in_flight() == 0);
        return ids_of(answers);
    };
    const std::vector<CallId> first = order(7);
    REQUIRE(first.size() == 20);
    CHECK_FALSE(std::is_sorted(first.begin(), first.end()));  // some answer overtook an older one
    CHECK(order(7) == first);                                 // deterministic by seed
    CHECK(order(8) != first);
}

TEST_CASE("async calls: a crashed caller gets no answer and its requests on the way are refused",
          "[async_calls]") {
    AsyncWorld w;
    std::vector<std::pair<CallId, sim::Time>> answers;
    for (int64_t i = 1; i <= 5; ++i) w.set(i, &answers);
    w.world.scheduler().crash(w.task_node);
    w.run_for(sim::Duration::millis(100));
    CHECK(answers.empty());
    CHECK(w.store.entries().empty());
    CHECK(w.context.calls_in_flight() == 5);  // never answered
}

TEST_CASE("async calls: a slow system stretches every leg", "[async_calls]") {
    AsyncWorld w;
    w.store.set_slow_until(sim::Time::zero() + sim::Duration::seconds(10), 10);
    std::vector<std::pair<CallId, sim::Time>> answers;
    w.set(1, &answers);
    w.run_for(sim::Duration::millis(39));
    CHECK(answers.empty());  // each leg at least 20 ms now
    w.run_for(sim::Duration::millis(400));
    REQUIRE(answers.size() == 1);
    CHECK(answers[0].second >= sim::Time::zero() + sim::Duration::millis(40));
}

}  // namespace eosim::engine
