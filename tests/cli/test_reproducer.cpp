// scenarios::Reproducer, the one place a reproduce command line is built: every form it prints is
// accepted by `eosim`'s own parser (cli/command_line.h) and parses back to the same run -- the
// testkit once printed a reproducer the CLI refused. End to end: the reproducer `eosim run --json`
// records for a run with every option that changes the run parses back to that run's options.
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli/command_line.h"
#include "cli/run_command.h"
#include "cli/test_sink_command.h"
#include "reports/sensitivity_table.h"
#include "scenarios/reproducer.h"
#include "tests/catalogue.h"
#include "tests/temp_dir.h"

namespace eosim::cli {
namespace {

// The printed text split as a shell would, the program's name dropped, parsed as `eosim` parses.
CommandLine parsed_text(const std::string& text, const std::string& program) {
    std::vector<std::string> words = split_command_line(text);
    REQUIRE(!words.empty());
    CHECK(words.front() == program);
    words.erase(words.begin());
    CommandLine parsed;
    const std::string error = parse_command_line(words, parsed);
    INFO(text);
    REQUIRE(error.empty());
    return parsed;
}

void check_same_run(const RunCommand& run, const scenarios::Reproducer& r) {
    CHECK(run.file == r.file);
    CHECK(run.seed == r.seed);
    CHECK(run.twin == r.twin);
    CHECK(run.expect == r.expect);
    CHECK(run.pct_depth == r.pct_depth);
    CHECK(run.pct_steps == r.pct_steps);
    CHECK(run.savepoint_at == r.savepoint_at);
    CHECK(run.strict_faults == r.strict_faults);
}

}  // namespace

TEST_CASE(
    "reproducer: every option it prints is one `eosim run` accepts, and parses back to the same run",
    "[reproducer]") {
    scenarios::Reproducer r;
    r.file = "scenarios/catalogue/kafka/kafka-count-eos.json";
    r.seed = 42;
    SECTION("the file and the seed only") {
        CHECK(r.text() == "eosim run scenarios/catalogue/kafka/kafka-count-eos.json --seed 42");
    }
    SECTION("every option") {
        r.twin = "sink.sink.at_least_once";
        r.expect = "violation:exactly_once_output:some-seeds";
        r.pct_depth = 3;
        r.pct_steps = 500;
        r.savepoint_at = {"2s", "4.5s"};
        r.strict_faults = true;
    }
    SECTION("a sink author's own binary (the testkit's job-level failure)") {
        r.program = "./my-eosim";
    }
    const CommandLine parsed = parsed_text(r.text(), r.program);
    CHECK(parsed.subcommand == "run");
    check_same_run(parsed.run, r);
}

TEST_CASE("reproducer: the shrink form is one `eosim shrink` accepts, with the run's PCT options",
          "[reproducer]") {
    scenarios::Reproducer r;
    r.file = "a.json";
    r.seed = 7;
    r.pct_depth = 2;
    const CommandLine parsed = parsed_text(r.shrink_text(), "eosim");
    CHECK(parsed.subcommand == "shrink");
    CHECK(parsed.shrink.file == "a.json");
    CHECK(parsed.shrink.seed == 7);
    CHECK(parsed.shrink.pct_depth == 2);
    CHECK(parsed.shrink.pct_steps == 0);
}

TEST_CASE("reproducer: the sensitivity table's first catching seed replays the twin",
          "[reproducer]") {
    reports::TwinResult twin;
    twin.file = "s.json";
    twin.twin = "checkpointing.at_least_once";
    CHECK(twin.reproduce().empty());  // no seed caught it: nothing to replay
    twin.first_caught_seed = 9;
    CHECK(twin.reproduce() == "eosim run s.json --twin checkpointing.at_least_once --seed 9");
    check_same_run(parsed_text(twin.reproduce(), "eosim").run, twin.reproducer(9));
}

TEST_CASE(
    "reproducer: `eosim run --json` records a reproducer that parses back to the run's own options",
    "[reproducer]") {
    testing::TempDir dir;
    RunCommand command;
    command.file = dir.write("job.json", testing::smallest_append_job().dump()).string();
    command.seed = 5;
    command.expect = "pass";
    command.savepoint_at = {"300ms"};
    command.pct_depth = 2;
    command.pct_steps = 100;
    command.strict_faults = true;
    command.json = true;
    command.json_history = "none";
    std::ostringstream out;
    std::ostringstream err;
    CHECK(run_command(command, out, err) == 0);
    INFO(err.str());
    const std::string reproduce =
        nlohmann::json::parse(out.str()).at("reproduce").get<std::string>();
    const CommandLine parsed = parsed_text(reproduce, "eosim");
    CHECK(parsed.subcommand == "run");
    const RunCommand& again = parsed.run;
    CHECK(again.file == command.file);
    CHECK(again.seed == command.seed);
    CHECK(again.expect == command.expect);
    CHECK(again.savepoint_at == command.savepoint_at);
    CHECK(again.pct_depth == command.pct_depth);
    CHECK(again.pct_steps == command.pct_steps);
    CHECK(again.strict_faults);
}

TEST_CASE("reproducer: a command line `eosim` refuses is reported, not accepted", "[reproducer]") {
    CommandLine parsed;
    CHECK_FALSE(parse_command_line({"run", "a.json", "--seed", "3", "--no-such-option"}, parsed)
                    .empty());  // negative control
    CHECK(parse_command_line({"run", "a.json", "--seed", "3"}, parsed).empty());
    CHECK(parsed.run.seed == 3);
}

}  // namespace eosim::cli
