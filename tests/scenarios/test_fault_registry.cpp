// The fault registry (scenarios/fault_types.h, sim/fault_firing.h): a kind registered from outside
// the built-ins -- here a test's, with its own firing -- is read from a scenario document, fired in
// a run (its action in the run's faults and in the trace), accounted (what it hit), written back,
// and drawn by faults.random; an unknown kind is refused at its JSON path, with the kinds listed.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "scenarios/fault_json.h"
#include "scenarios/fault_types.h"
#include "scenarios/faults/builtin_fault_types.h"
#include "scenarios/random_faults.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "sim/fault_injector.h"
#include "sim/world.h"
#include "tests/catalogue.h"
#include "tests/scenario_documents.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

inline constexpr sim::FaultKind kBlackout{"test_storage_blackout"};

// Durable storage refuses every operation for `duration`: a storage_failure in the test's own
// words, with its firing beside the rest of its type (a kind sim/ does not know).
class StorageBlackout final : public sim::FaultFiring, public DurationFaultType {
public:
    StorageBlackout()
        : sim::FaultFiring(kBlackout, sim::FaultTargets::none),
          DurationFaultType(static_cast<const sim::FaultFiring&>(*this)) {}

    void fire(sim::FaultAct& act) const override {
        act.world.storage().fail_until(act.until());
        act.record.action = "storage blacked out until " + sim::fault_time_text(act.until());
        act.lasts_until(act.until());
    }
    int64_t counter(const FaultCounters& c, const sim::FaultSpec&) const override {
        return static_cast<int64_t>(c.world.storage().operations_failed_by_fault());
    }
    std::string hit_unit() const override { return "storage operations blacked out"; }
    std::string nothing_hit(const sim::FaultSpec&) const override {
        return "no storage operation during the blackout";
    }
};

// Registered once, as a user's kind would be, before the scenario that names it is loaded.
const FaultType& blackout() {
    static const StorageBlackout type;
    static const bool registered = [] {
        FaultTypes::global().add(type);
        return true;
    }();
    (void)registered;
    return type;
}

json kafka_count_eos_with(const json& faults) {
    json s = testing::catalogue_json("kafka-count-eos");
    s["faults"] = faults;
    return s;
}

TEST_CASE("fault registry: a test's kind is loaded, fired, traced, accounted and written back",
          "[fault_registry]") {
    blackout();
    const json fault = {{"kind", "test_storage_blackout"}, {"at", "2s"}, {"duration", "1500ms"}};
    const Scenario scenario = testing::load_document(kafka_count_eos_with({{"schedule", {fault}}}));
    REQUIRE(scenario.faults.size() == 1);
    CHECK(scenario.faults[0].kind == kBlackout);
    CHECK(scenario.faults[0].duration == sim::Duration::millis(1500));
    CHECK(json::parse(fault_to_json(scenario.faults[0]).dump()) ==
          fault);  // written back as it was read

    std::ostringstream trace;
    RunOptions options;
    options.seed = 1;
    options.trace_log = &trace;
    const RunResult r = run_scenario(scenario, options);
    REQUIRE(r.faults.size() == 1);
    CHECK(r.faults[0].kind == kBlackout);
    CHECK(r.faults[0].action == "storage blacked out until 3.500s");
    CHECK(trace.str().find("fault.test_storage_blackout") != std::string::npos);
    REQUIRE(r.fault_accounts.size() == 1);
    const FaultAccount& a = r.fault_accounts[0];
    CHECK(a.kind == "test_storage_blackout");
    CHECK(a.outcome == FaultOutcome::fired);
    CHECK(a.hits > 0);
    CHECK_THAT(a.detail, Catch::Contains("storage operations blacked out"));
}

TEST_CASE("fault registry: faults.random draws a registered kind by its type", "[fault_registry]") {
    blackout();
    const json random = {
        {"count", 3},
        {"quiet_after", "20s"},
        {"mode", "fixed"},
        {"kinds", {{"test_storage_blackout", {{"duration", {{"min", "1s"}, {"max", "2s"}}}}}}}};
    const Scenario scenario = testing::load_document(kafka_count_eos_with({{"random", random}}));
    REQUIRE(scenario.random_faults);
    sim::Prng prng = sim::World::prng_of(7, "faults/random");
    const FaultDraw draw = draw_random_faults(*scenario.random_faults, prng);
    REQUIRE(draw.faults.size() == 3);
    for (const sim::FaultSpec& f : draw.faults) {
        CHECK(f.kind == kBlackout);
        CHECK(f.duration >= sim::Duration::seconds(1));
        CHECK(f.duration <= sim::Duration::seconds(2));
    }
}

TEST_CASE("fault registry: an unknown kind is refused at its path, with the registered kinds",
          "[fault_registry]") {
    const json unknown = kafka_count_eos_with({{"schedule", {{{"kind", "crsh"}, {"at", "2s"}}}}});
    testing::check_load_error(unknown, "/faults/schedule/0/kind",
                              "expected a fault kind, one of: crash, pause, partition");
    testing::check_load_error(unknown, "/faults/schedule/0/kind", "did you mean \"crash\"");
    const json drawn = kafka_count_eos_with(
        {{"random", {{"quiet_after", "20s"}, {"kinds", {{"crsh", json::object()}}}}}});
    CHECK(testing::load_error_path(drawn) == "/faults/random/kinds/crsh");
}

TEST_CASE("fault registry: the injector refuses a kind with no firing registered",
          "[fault_registry]") {
    sim::World world{sim::WorldOptions{}};
    world.nodes().add("tm0");
    sim::FaultSpec spec;
    spec.kind = sim::FaultKind{"test_never_registered"};
    spec.trigger.at = sim::Time::zero() + sim::Duration::seconds(1);
    CHECK_THROWS_WITH(
        sim::FaultInjector(world, {spec}, {}),
        Catch::Contains("fault 0 (test_never_registered): no such fault kind is registered"));
}

TEST_CASE("fault registry: every built-in kind has a type and a firing, once", "[fault_registry]") {
    const std::vector<std::string> names = FaultTypes::global().names();
    REQUIRE(names.size() >= 17);
    CHECK(names[0] == "crash");
    CHECK(names[16] == "system_call_races");
    for (const FaultType* type : FaultTypes::global().all()) {
        CHECK(sim::FaultFirings::global().find(type->kind()) == &type->firing());
        CHECK(FaultTypes::global().find(type->name()) == type);
    }
    // The same type again is a no-op; another under a taken name is refused.
    CHECK_NOTHROW(FaultTypes::global().add(crash_type()));
    blackout();
    const StorageBlackout twin;
    CHECK_THROWS_AS(FaultTypes::global().add(twin), std::logic_error);
}

}  // namespace
}  // namespace eosim::scenarios
