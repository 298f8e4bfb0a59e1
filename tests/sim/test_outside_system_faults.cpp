// sim::FaultInjector's generic outside-system kinds (system_unavailable, system_write_errors,
// bulk_partial_failure): they reach the target registered under the fault's "system" name, a plan
// naming a system the run does not have (or a bulk failure for a system without batches) is
// rejected, and the system's name is part of the traced firing.
#include <map>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/fault_injector.h"
#include "sim/world.h"

namespace eosim::sim {
namespace {

constexpr EventKind kFaultsTick{"test.tick"};

// Records what the injector asked of it.
class RecordingTarget final : public OutsideFaultTarget {
public:
    explicit RecordingTarget(std::string name, bool batches)
        : name_(std::move(name)), batches_(batches) {}
    void set_unavailable_until(Time until) override {
        calls.push_back(name_ + " unavailable " + ms(until));
    }
    void set_write_errors_until(Time until) override {
        calls.push_back(name_ + " write errors " + ms(until));
    }
    bool has_partial_batch_failures() const override { return batches_; }
    void set_partial_batch_failure(Ratio ratio, Time until) override {
        calls.push_back(name_ + " bulk " + std::to_string(ratio.numerator) + "/" +
                        std::to_string(ratio.denominator) + " " + ms(until));
    }
    std::vector<std::string> calls;

private:
    static std::string ms(Time t) { return std::to_string(t.millis_count()); }
    std::string name_;
    bool batches_;
};

FaultSpec system_fault(FaultKind kind, std::string system, int64_t at_ms) {
    FaultSpec spec;
    spec.kind = kind;
    spec.system = std::move(system);
    spec.trigger.at = Time::zero() + Duration::millis(at_ms);
    spec.duration = Duration::millis(50);
    return spec;
}

void advance_to_ms(World& world, int64_t ms) {
    world.scheduler().schedule_at(Time::zero() + Duration::millis(ms), kNoNode, kFaultsTick, 0,
                                  [] {});
    world.scheduler().run_until(Time::zero() + Duration::millis(ms));
}

TEST_CASE("fault injector: generic outside-system faults reach the system they name", "[faults]") {
    World world{WorldOptions{}};
    RecordingTarget documents("documents", true);
    RecordingTarget key_values("key_values", false);
    OutsideFaults hooks;
    hooks.systems = {{"documents", &documents}, {"key_values", &key_values}};
    FaultSpec bulk = system_fault(FaultKind::bulk_partial_failure, "documents", 300);
    bulk.ratio = Ratio{1, 3};
    FaultInjector injector(world,
                           {system_fault(FaultKind::system_unavailable, "key_values", 100),
                            system_fault(FaultKind::system_write_errors, "documents", 200), bulk},
                           hooks);
    advance_to_ms(world, 1000);
    CHECK(key_values.calls == std::vector<std::string>{"key_values unavailable 150"});
    CHECK(documents.calls ==
          std::vector<std::string>{"documents write errors 250", "documents bulk 1/3 350"});
    REQUIRE(injector.fired_count() == 3);
    CHECK(injector.fired()[0].action == "key_values unavailable until 0.150s");
    CHECK(injector.fired()[2].action == "documents batch items fail with 1/3 until 0.350s");
    CHECK(injector.count(FaultKind::system_write_errors) == 1);
    CHECK(injector.quiet_since() == Time::zero() + Duration::millis(350));
}

TEST_CASE(
    "fault injector: a plan naming a system the run lacks, or a bulk failure without batches, is rejected",
    "[faults]") {
    World world{WorldOptions{}};
    RecordingTarget key_values("key_values", false);
    OutsideFaults hooks;
    hooks.systems = {{"key_values", &key_values}};
    CHECK_THROWS_AS(
        FaultInjector(world, {system_fault(FaultKind::system_unavailable, "documents", 1)}, hooks),
        std::invalid_argument);
    CHECK_THROWS_AS(
        FaultInjector(world, {system_fault(FaultKind::bulk_partial_failure, "key_values", 1)},
                      hooks),
        std::invalid_argument);
    CHECK_THROWS_AS(
        FaultInjector(world, {system_fault(FaultKind::system_write_errors, "", 1)}, hooks),
        std::invalid_argument);
    CHECK_NOTHROW(FaultInjector(
        world, {system_fault(FaultKind::system_write_errors, "key_values", 1)}, hooks));
}

TEST_CASE("fault injector: the target system's name is part of the traced firing", "[faults]") {
    auto run = [](const std::string& system) {
        World world{WorldOptions{}};
        RecordingTarget a("a", false);
        RecordingTarget b("b", false);
        OutsideFaults hooks;
        hooks.systems = {{"a", &a}, {"b", &b}};
        FaultInjector injector(world, {system_fault(FaultKind::system_unavailable, system, 100)},
                               hooks);
        advance_to_ms(world, 1000);
        return world.trace().hash();
    };
    CHECK(run("a") == run("a"));
    CHECK(run("a") != run("b"));
}

}  // namespace
}  // namespace eosim::sim
