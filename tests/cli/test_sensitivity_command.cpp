// eosim sensitivity, end to end with the real binary as the worker: a scenario that catches a twin
// on its seeds, and one blind to it (NOT CAUGHT, exit code 1), then the same blind twin skipped
// with a reason (exit code 0); the JSON table; bad input (exit code 2).
#include <catch2/catch.hpp>

#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/sensitivity_command.h"
#include "tests/cli/test_support.h"

namespace eosim::cli {
namespace {

using nlohmann::json;
using testing::kEosim;

// A keyed count into an exactly-once Kafka sink with a crash of a TaskManager in the middle: the
// at-least-once sink twin duplicates what the restored job replays; without the crash nothing is
// replayed and no twin can show.
json counted(bool crash) {
    json s = json::parse(R"({
      "world": {"task_managers": 2, "slots_per_task_manager": 1, "topics": [{"name": "input", "partitions": 2}, {"name": "out", "partitions": 2}]},
      "job": {"vertices": [
        {"id": "source", "kind": "kafka_source", "topic": "input", "parallelism": 2},
        {"id": "count", "kind": "keyed_count", "parallelism": 2, "inputs": [{"from": "source", "edge": "hash"}]},
        {"id": "sink", "kind": "sink", "sink": "kafka", "options": {"topic": "out"}, "parallelism": 2,
         "inputs": [{"from": "count", "edge": "forward"}]}],
        "checkpointing": {"interval": "200ms"}},
      "input": [{"topic": "input", "records": 400, "keys": 8, "rate_per_second": 200}],
      "oracles": ["exactly_once_output"]
    })");
    if (crash)
        s["faults"] = {{"schedule", {{{"kind", "crash"}, {"at", "1s"}, {"nodes", {"tm0"}}}}}};
    return s;
}

int check(const std::string& file, std::string& text, const std::string& json_path = "") {
    SensitivityCommand c;
    c.path = file;
    c.seeds = "1..2";
    c.jobs = 2;
    c.self_program = kEosim.string();
    c.json_path = json_path;
    std::ostringstream out;
    std::ostringstream err;
    const int code = sensitivity_command(c, out, err);
    text = out.str() + err.str();
    return code;
}

}  // namespace

TEST_CASE(
    "sensitivity: twins caught with a crash, NOT CAUGHT without one, unless skipped with a reason",
    "[sensitivity_cli]") {
    testing::TempDir dir;
    std::string text;
    const std::string table = (dir.path() / "table.json").string();
    CHECK(check(dir.write("crashing.json", counted(true).dump()).string(), text, table) == 1);
    INFO(text);
    CHECK(text.find("crashing  sink.sink.at_least_once      2/2         exactly_once_output 2") !=
          std::string::npos);
    const json rows = json::parse(testing::read_text(table));
    REQUIRE(rows.size() == 3);
    CHECK(rows[2]["twin"] == "sink.sink.at_least_once");
    CHECK(rows[2]["verdict"] == "caught");
    CHECK(rows[2]["reproduce"].get<std::string>().find("--twin sink.sink.at_least_once --seed 1") !=
          std::string::npos);

    CHECK(check(dir.write("quiet.json", counted(false).dump()).string(), text) == 1);
    INFO(text);
    CHECK(text.find("quiet     sink.sink.at_least_once      0/2         NOT CAUGHT") !=
          std::string::npos);

    json skipping = counted(false);
    skipping["sensitivity"] = {
        {"skip", {"checkpointing.at_least_once", "kafka.no_fencing", "sink.sink.at_least_once"}},
        {"why", "a run without faults: it shows the happy path only"}};
    CHECK(check(dir.write("skipping.json", skipping.dump()).string(), text) == 0);
    CHECK(text.find("skipped     the scenario says: a run without faults") != std::string::npos);
}

TEST_CASE(
    "sensitivity: a twin whose faults aim at a point only the original announces is not applicable",
    "[sensitivity_cli]") {
    testing::TempDir dir;
    json aimed = counted(false);
    aimed["faults"] = json::parse(
        R"({"schedule": [{"kind": "crash", "at_point": {"point": "sink.precommitted", "occurrence": 2}}]})");
    std::string text;
    const int code = check(dir.write("aimed.json", aimed.dump()).string(), text);
    INFO(text);
    // The at-least-once sink announces no sink.precommitted: that twin cannot run with the same
    // fault.
    CHECK(
        text.find(
            "aimed     sink.sink.at_least_once      n/a         the twin cannot run with the same faults") !=
        std::string::npos);
    CHECK(text.find("sink.precommitted") != std::string::npos);
    CHECK((code == 0 || code == 1));
}

TEST_CASE("sensitivity: a path that is no scenario is bad input", "[sensitivity_cli]") {
    std::string text;
    CHECK(check("no-such-file.json", text) == 2);
    CHECK(text.find("no-such-file.json") != std::string::npos);
}

}  // namespace eosim::cli
