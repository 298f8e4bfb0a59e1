// reports::run_report: the text report names every verdict, the expectation and the reproduce
// command; the JSON form carries the whole result with the trace hash as 16 hex digits.
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "reports/run_report.h"

namespace eosim::reports {
namespace {

scenarios::RunResult sample_result() {
    scenarios::RunResult result;
    result.scenario = "append-duplicates";
    result.seed = 42;
    result.trace_hash = 0xabcdef;
    result.job_finished = true;
    result.verdicts.push_back({"exactly_once_output", false, "key 3: count 7 seen twice"});
    result.verdicts.push_back({"liveness", true, "finished at 10.000s"});
    result.expectation_met = true;
    result.expectation_message = "exactly_once_output fired, as expected";
    result.figures.events = 1234;
    result.figures.virtual_seconds = 10;
    result.figures.wall_seconds = 0.5;
    result.figures.records_in = 100;
    result.faults.push_back(sim::FiredFault{sim::Time{2'300'000'000},
                                            sim::FaultKind::crash,
                                            0,
                                            {"tm1"},
                                            "crashed tm1, restart at 4.300s",
                                            false});
    return result;
}

TEST_CASE("run report: hex64 is 16 lowercase hex digits", "[reports]") {
    CHECK(hex64(0) == "0000000000000000");
    CHECK(hex64(0xabcdef) == "0000000000abcdef");
    CHECK(hex64(UINT64_MAX) == "ffffffffffffffff");
}

TEST_CASE("run report: the text report shows verdicts, expectation, hash, figures and the command",
          "[reports]") {
    scenarios::Scenario scenario;
    scenario.expect.pass = false;
    scenario.expect.violation = "exactly_once_output";
    std::ostringstream out;
    write_run_report(out, scenario, sample_result(), "eosim run x.json --seed 42");
    const std::string text = out.str();
    CHECK_THAT(text, Catch::Contains("FAIL  exactly_once_output   key 3: count 7 seen twice"));
    CHECK_THAT(text, Catch::Contains("PASS  liveness"));
    CHECK_THAT(text, Catch::Contains("expected    violation of exactly_once_output"));
    CHECK_THAT(text, Catch::Contains("expectation met: exactly_once_output fired, as expected"));
    CHECK_THAT(text, Catch::Contains("trace hash  0000000000abcdef"));
    CHECK_THAT(text, Catch::Contains("10.000 s"));
    CHECK_THAT(text, Catch::Contains("(20x real time)"));
    CHECK_THAT(text, Catch::Contains("2.300s  crash"));
    CHECK_THAT(text, Catch::Contains("reproduce   eosim run x.json --seed 42"));
}

TEST_CASE("run report: the text report has the per-checkpoint history and the state hash",
          "[reports]") {
    scenarios::RunResult result = sample_result();
    result.state_hash = 0x1234;
    scenarios::CheckpointStats completed;
    completed.id = 1;
    completed.status = "completed";
    completed.triggered_s = 0.5;
    completed.duration_ms = 12.5;
    completed.acknowledged = 4;
    scenarios::CheckpointStats expired = completed;
    expired.id = 2;
    expired.status = "expired";
    expired.failure_reason = "CHECKPOINT_EXPIRED";
    expired.failure = "not acknowledged by every task within 600 ms";
    result.checkpoints = {completed, expired};
    std::ostringstream out;
    write_run_report(out, scenarios::Scenario{}, result, "eosim run x.json --seed 42");
    const std::string text = out.str();
    CHECK_THAT(text, Catch::Contains("state hash  0000000000001234"));
    CHECK_THAT(text, Catch::Contains("checkpoint history"));
    CHECK_THAT(text, Catch::Contains(
                         "     1  v1   checkpoint, aligned  completed       0.500s    12.5 ms"));
    CHECK_THAT(text, Catch::Contains("expired"));
    CHECK_THAT(text,
               Catch::Contains("CHECKPOINT_EXPIRED: not acknowledged by every task within 600 ms"));
}

TEST_CASE("run report: the JSON form carries the whole result", "[reports]") {
    const nlohmann::json j = to_json(sample_result());
    CHECK(j["scenario"] == "append-duplicates");
    CHECK(j["seed"] == 42);
    CHECK(j["trace_hash"] == "0000000000abcdef");
    CHECK(j["verdicts"][0]["oracle"] == "exactly_once_output");
    CHECK(j["verdicts"][0]["passed"] == false);
    CHECK(j["figures"]["events"] == 1234);
    CHECK(j["faults"][0]["kind"] == "crash");
    CHECK(j["faults"][0]["at_ns"] == 2'300'000'000);
    CHECK(j["faults"][0]["nodes"] == nlohmann::json::array({"tm1"}));
    CHECK(j["expectation_met"] == true);
    scenarios::Expectation expect;
    expect.pass = false;
    expect.violation = "visibility";
    CHECK(to_json(expect) == nlohmann::json{{"pass", false}, {"violation", "visibility"}});
}

}  // namespace
}  // namespace eosim::reports
