// Every planned fault accounted for: fired (what it hit), without effect (a crash of a node without
// tasks, a partition nothing crossed), never fired (an occurrence never reached, due after the
// run); strict turns the last two into a failed run; `delay` fires that long after the point.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "reports/run_record.h"
#include "reports/run_report.h"
#include "scenarios/fault_accounting.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "tests/catalogue.h"
#include "tests/cli/test_support.h"

namespace eosim::scenarios {
namespace {

using nlohmann::json;

// kafka-count-eos with a spare TaskManager (tm2, idle) and the faults given.
json story(const json& schedule) {
    std::ifstream in(testing::catalogue_scenario("kafka-count-eos"));
    std::stringstream text;
    text << in.rdbuf();
    json s = json::parse(text.str());
    s["world"]["spare_task_managers"] = 1;
    s["faults"] = {{"schedule", schedule}};
    return s;
}

RunResult run_document(const json& s, bool strict = false) {
    const Scenario scenario = load_scenario_text(s.dump(), "story.json");
    RunOptions options;
    options.seed = 3;
    options.strict_faults = strict;
    return run_scenario(scenario, options);
}

TEST_CASE("fault accounting: fired, without effect, never fired, each with what it hit or why",
          "[fault_accounting]") {
    const json schedule = {
        {{"kind", "crash"},
         {"nodes", {"tm1"}},
         {"at", "2.3s"},
         {"restart_delay", "2s"}},                              // hits tasks
        {{"kind", "crash"}, {"nodes", {"tm2"}}, {"at", "3s"}},  // idle spare
        {{"kind", "crash"},
         {"at_point", {{"point", "sink.precommitted"}, {"occurrence", 100000}}}},  // never reached
        {{"kind", "crash"}, {"nodes", {"tm0"}}, {"at", "3000s"}},                  // after the end
        {{"kind", "partition"},
         {"nodes", {"append-store"}},
         {"other_nodes", {"kafka"}},
         {"at", "4s"}},  // nothing crosses
        {{"kind", "partition"},
         {"nodes", {"tm0"}},
         {"other_nodes", {"kafka"}},
         {"at", "5s"},
         {"duration", "500ms"}},  // cuts
    };
    const RunResult r = run_document(story(schedule));
    CHECK(r.expectation_met);  // not strict: the verdicts are the oracles'
    REQUIRE(r.fault_accounts.size() == 6);
    const auto& a = r.fault_accounts;
    CHECK(a[0].outcome == FaultOutcome::fired);
    CHECK(a[0].hits > 0);
    CHECK(a[0].detail.find("tasks on tm1") != std::string::npos);
    CHECK(a[1].outcome == FaultOutcome::no_effect);
    CHECK(a[1].detail.find("tm2 held no task") != std::string::npos);
    CHECK(a[2].outcome == FaultOutcome::not_fired);
    CHECK(
        a[2].detail.find("occurrence 100000 of sink.precommitted never reached: the point came ") !=
        std::string::npos);
    CHECK(a[3].outcome == FaultOutcome::not_fired);
    CHECK(a[3].detail.find("due at 3000.000s, after the run ended") != std::string::npos);
    CHECK(a[3].detail.find("the job finished") != std::string::npos);
    CHECK(a[4].outcome == FaultOutcome::no_effect);
    CHECK(a[4].detail.find("nothing crossed it") != std::string::npos);
    CHECK(a[5].outcome == FaultOutcome::fired);
    CHECK(a[5].detail.find("messages or connections cut") != std::string::npos);
    CHECK(r.figures.faults_planned == 6);
    CHECK(r.figures.faults_fired == 2);
    CHECK(r.figures.faults_without_effect == 2);
    CHECK(r.figures.faults_not_fired == 2);

    // The record carries them, and they come back from its JSON.
    const Scenario scenario = load_scenario_text(story(schedule).dump(), "story.json");
    const reports::RunRecord record =
        reports::make_run_record(scenario, r, "eosim run story.json --seed 3");
    const reports::RunRecord back = reports::run_record_from_json(reports::to_json(record));
    REQUIRE(back.fault_accounts.size() == 6);
    CHECK(back.fault_accounts[2].detail == a[2].detail);
    CHECK(back.fault_accounts[1].outcome == FaultOutcome::no_effect);
    CHECK(back.figures.faults_without_effect == 2);
    std::ostringstream text;
    reports::write_run_report(text, scenario, r, "eosim run story.json --seed 3");
    CHECK(text.str().find("6 planned: 2 fired, 2 without effect, 2 never fired") !=
          std::string::npos);
    CHECK(text.str().find("#2  NEVER FIRED") != std::string::npos);
}

TEST_CASE("fault accounting: strict fails a run whose scheduled fault did not fire with an effect",
          "[fault_accounting]") {
    const json idle = {{{"kind", "crash"}, {"nodes", {"tm2"}}, {"at", "3s"}}};
    const RunResult lenient = run_document(story(idle));
    CHECK(lenient.expectation_met);
    const RunResult strict = run_document(story(idle), true);
    CHECK_FALSE(strict.expectation_met);
    CHECK(strict.expectation_message.find(
              "strict faults: 1 planned fault did not fire with an effect") == 0);
    CHECK(strict.expectation_message.find("tm2 held no task") != std::string::npos);
    CHECK(strict.trace_hash == lenient.trace_hash);  // accounting watches, never changes the run

    json in_file = story(idle);
    in_file["faults"]["strict"] = true;
    CHECK_FALSE(run_document(in_file).expectation_met);

    // The positive twin: a crash that hits tasks passes strict.
    const json busy = {{{"kind", "crash"}, {"nodes", {"tm1"}}, {"at", "3s"}}};
    const RunResult hit = run_document(story(busy), true);
    CHECK(hit.expectation_met);
    CHECK(strict_fault_failure(hit.fault_accounts, false).empty());
}

TEST_CASE("fault accounting: a point fault's delay fires it that long after the announcement",
          "[fault_accounting]") {
    const json at_point = {{"point", "sink.precommitted"}, {"occurrence", 3}};
    json delayed_point = at_point;
    delayed_point["delay"] = "250ms";
    const RunResult now = run_document(story({{{"kind", "crash"}, {"at_point", at_point}}}));
    const RunResult later = run_document(story({{{"kind", "crash"}, {"at_point", delayed_point}}}));
    REQUIRE(now.faults.size() == 1);
    REQUIRE(later.faults.size() == 1);
    CHECK(later.faults[0].at.ns == now.faults[0].at.ns + 250'000'000);
    CHECK(later.faults[0].nodes == now.faults[0].nodes);  // still the announcer
    CHECK(later.fault_accounts[0].trigger == "at the 3rd sink.precommitted + 0.250s");
    CHECK(later.expectation_met);
}

}  // namespace
}  // namespace eosim::scenarios

namespace eosim::scenarios {
namespace {

TEST_CASE("restarts: one TaskManager loss is one restart, though its redeployment fails over again",
          "[fault_accounting][restarts]") {
    // tm1 crashes at 2.3 s and comes back empty at 4.3 s: the restart deployed onto it never ran
    // and fails over when tm1 registers again (2 failovers), which Flink counts as one restart.
    const RunResult r = run_document(
        story({{{"kind", "crash"}, {"nodes", {"tm1"}}, {"at", "2.3s"}, {"restart_delay", "2s"}}}));
    CHECK(r.figures.failovers == 2);
    CHECK(r.figures.restarts == 1);
    // Two losses a while apart: two restarts.
    const RunResult two = run_document(story(
        {{{"kind", "crash"}, {"nodes", {"tm1"}}, {"at", "2.3s"}, {"restart_delay", "200ms"}},
         {{"kind", "crash"}, {"nodes", {"tm0"}}, {"at", "6.7s"}, {"restart_delay", "200ms"}}}));
    CHECK(two.figures.restarts == 2);
}

}  // namespace
}  // namespace eosim::scenarios

namespace eosim::scenarios {
namespace {

TEST_CASE("aim: vertex and subtask count only that task's announcements",
          "[fault_accounting][aim]") {
    // Every task announces task.snapshotted at each checkpoint; the sink's come after the source's.
    const json any = {{"point", "task.snapshotted"}, {"occurrence", 1}};
    json sink = any;
    sink["vertex"] = "sink";
    json sink_3 = sink;
    sink_3["subtask"] = 3;
    const RunResult first =
        run_document(story({{{"kind", "pause"}, {"at_point", any}, {"duration", "100ms"}}}));
    const RunResult by_sink =
        run_document(story({{{"kind", "pause"}, {"at_point", sink}, {"duration", "100ms"}}}));
    const RunResult by_sink_3 =
        run_document(story({{{"kind", "pause"}, {"at_point", sink_3}, {"duration", "100ms"}}}));
    REQUIRE(first.fault_accounts.size() == 1);
    REQUIRE(by_sink.fault_accounts.size() == 1);
    REQUIRE(by_sink_3.fault_accounts.size() == 1);
    CHECK(first.fault_accounts[0].at_ns < by_sink.fault_accounts[0].at_ns);
    CHECK(by_sink.fault_accounts[0].at_ns <= by_sink_3.fault_accounts[0].at_ns);
    CHECK(by_sink_3.fault_accounts[0].trigger == "at the 1st task.snapshotted by sink subtask 3");
    CHECK(by_sink_3.fault_accounts[0].outcome == FaultOutcome::fired);
    // The pause hits the announcer: the TaskManager that runs sink subtask 3 (slots fill tm0 first:
    // subtasks 0 and 1 on tm0, 2 and 3 on tm1).
    CHECK(by_sink_3.fault_accounts[0].nodes == std::vector<std::string>{"tm1"});
}

TEST_CASE(
    "strict: a scheduled fault that missed after drawn faults fired is excused, before them it is not",
    "[fault_accounting]") {
    FaultAccount drawn;
    drawn.drawn = true;
    drawn.kind = "crash";
    drawn.outcome = FaultOutcome::fired;
    drawn.at_ns = 2'000'000'000;
    FaultAccount missed;
    missed.plan_index = 0;
    missed.kind = "crash";
    missed.trigger = "at 3.000s";
    missed.outcome = FaultOutcome::no_effect;
    missed.at_ns = 3'000'000'000;
    missed.detail = "fired at 3.000s on tm1 without effect: tm1 held no task and no JobManager";
    CHECK(strict_fault_failure({missed}, false).find("strict faults: 1 planned fault") == 0);
    CHECK(strict_fault_failure({missed, drawn}, false).empty());  // the dice came first
    FaultAccount never = missed;
    never.outcome = FaultOutcome::not_fired;
    never.at_ns = -1;
    CHECK(strict_fault_failure({never, drawn}, false).empty());
    drawn.at_ns = 4'000'000'000;  // after the scheduled fault: no excuse
    CHECK(strict_fault_failure({missed, drawn}, false).find("fault 0 (crash at 3.000s)") !=
          std::string::npos);
    CHECK(strict_fault_failure({drawn}, true).empty());
}

TEST_CASE("aim: attempt {min: 2} counts a point only after a failover", "[fault_accounting][aim]") {
    // task.restoring comes at the first deployment too; with attempt min 2 the crash waits for
    // the restore after tm1's crash at 2.3 s.
    const json first = {{"point", "task.restoring"}, {"occurrence", 1}};
    json after_failover = first;
    after_failover["attempt"] = {{"min", 2}};
    const json tm1 = {
        {"kind", "crash"}, {"nodes", {"tm1"}}, {"at", "2.3s"}, {"restart_delay", "200ms"}};
    const RunResult plain =
        run_document(story({tm1, {{"kind", "pause"}, {"at_point", first}, {"duration", "100ms"}}}));
    const RunResult aimed = run_document(
        story({tm1, {{"kind", "pause"}, {"at_point", after_failover}, {"duration", "100ms"}}}));
    REQUIRE(plain.fault_accounts.size() == 2);
    REQUIRE(aimed.fault_accounts.size() == 2);
    CHECK(plain.fault_accounts[1].at_ns < 1'000'000'000);
    CHECK(aimed.fault_accounts[1].at_ns > 2'300'000'000);
    CHECK(aimed.fault_accounts[1].trigger == "at the 1st task.restoring in attempt 2..");
    // Never after a failover in a run without one: never fired, saying so.
    const RunResult none = run_document(
        story({{{"kind", "pause"}, {"at_point", after_failover}, {"duration", "100ms"}}}));
    CHECK(none.fault_accounts[0].outcome == FaultOutcome::not_fired);
    CHECK(none.fault_accounts[0].detail.find("0 of its ") != std::string::npos);
}

}  // namespace
}  // namespace eosim::scenarios
