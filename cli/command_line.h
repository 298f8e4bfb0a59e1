#pragma once
// The `eosim` command line parsed, without running anything: every subcommand's options and which
// subcommand was given. `eosim_main` (eosim_main.h) parses with the same parser and then runs the
// command; tests use `parse_command_line` to hold a printed command line (a reproducer,
// scenarios/reproducer.h) against what the CLI accepts.
#include <string>
#include <vector>

#include "cli/explore_command.h"
#include "cli/golden_command.h"
#include "cli/points_command.h"
#include "cli/run_command.h"
#include "cli/sensitivity_command.h"
#include "cli/shrink_command.h"
#include "cli/suite_command.h"
#include "cli/test_sink_command.h"

namespace eosim::cli {

struct CommandLine {
    std::string subcommand;  // the one given: "run", "suite", "shrink", ... ("" before parsing)
    RunCommand run;
    SuiteCommand suite;
    MergeCommand merge;
    ShrinkCommand shrink;
    ExploreCommand explore;
    GoldenCommand golden;
    TestSinkCommand test_sink;
    SensitivityCommand sensitivity;
    PointsCommand points;
};

// Parses `arguments` (what follows the program's name) as `eosim` does: "" when accepted, with
// `parsed` filled; otherwise CLI11's error ("ExtrasError: ...").
std::string parse_command_line(const std::vector<std::string>& arguments, CommandLine& parsed);

}  // namespace eosim::cli
