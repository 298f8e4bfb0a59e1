#include "cli/shrink_command.h"

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/files.h"
#include "cli/run_command.h"
#include "reports/run_report.h"
#include "scenarios/fault_json.h"
#include "scenarios/reproducer.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/shrinker.h"

namespace eosim::cli {

namespace {

void write_faults(std::ostream& out, const char* title, const std::vector<sim::FaultSpec>& faults) {
    out << title << " (" << faults.size() << " fault" << (faults.size() == 1 ? "" : "s") << ")\n";
    for (size_t i = 0; i < faults.size(); ++i)
        out << "  #" << i << "  " << scenarios::describe_fault(faults[i]) << '\n';
}

std::string records_text(const std::vector<int64_t>& records) {
    std::string text;
    for (int64_t n : records) text += (text.empty() ? "" : ", ") + std::to_string(n);
    return text.empty() ? "none" : text;
}

std::string outcome_text(bool met) {
    return met ? "expectation met (exit 0)" : "expectation not met (exit 1)";
}

std::string target_text(const scenarios::FailureSignature& target) {
    if (!target.invariant.empty())
        return target.what() + " (the run stops there: `eosim run` aborts with it)";
    return target.what() + "; " + outcome_text(target.expectation_met);
}

void print_shrink_result(const ShrinkCommand& command, const scenarios::ShrinkResult& result,
                         std::ostream& out) {
    out << "shrink      " << command.file << " --seed " << command.seed << '\n';
    out << "target      " << target_text(result.target) << '\n';
    write_faults(out, "before", result.faults_before);
    write_faults(out, "after", result.faults_after);
    out << "records     " << records_text(result.records_before) << " -> "
        << records_text(result.records_after) << '\n';
    for (size_t d = 0; d < result.deployments_at_after.size(); ++d) {
        if (result.deployments_at_after[d] == result.deployments_at_before[d]) continue;
        out << "deployment  v" << d + 2 << " at "
            << scenarios::format_duration_exact(result.deployments_at_before[d]) << " -> "
            << scenarios::format_duration_exact(result.deployments_at_after[d]) << '\n';
    }
    out << "replays     " << result.replays
        << (result.budget_exhausted ? " (replay budget used up: not fully minimal)" : "") << '\n';
}

// The written file must reproduce the shrunk run on its own: replays it with the seed (and the PCT
// ordering of the original run) and says whether it did.
int verify_written(const ShrinkCommand& command, const scenarios::Scenario& original,
                   const scenarios::ShrinkResult& result, const scenarios::Reproducer& reproduce,
                   std::ostream& out, std::ostream& err) {
    scenarios::RunOptions again;
    again.seed = command.seed;
    again.max_events = command.max_events;
    scenarios::Scenario written = scenarios::load_scenario(reproduce.file);
    written.world.network.priority_delivery = original.world.network.priority_delivery;
    const scenarios::Replay check = scenarios::replay_run(written, again);
    const bool same_failure = scenarios::shows(check, result.target);
    // A run that broke an invariant stopped before its trace was complete: the same invariant at
    // the same place is the reproduction.
    const bool same_run =
        check.result.has_value() == result.last.result.has_value() &&
        (!check.result || check.result->trace_hash == result.last.result->trace_hash);
    out << "written     " << reproduce.file << '\n';
    out << "reproduce   " << reproduce.text() << '\n';
    if (same_failure && same_run) {
        out << "verified    the written file shows the same failure: "
            << target_text(result.target);
        if (check.result) out << ", trace hash " << reports::hex64(check.result->trace_hash);
        out << '\n';
        return kExitMet;
    }
    const auto hash_text = [](const scenarios::Replay& replay) {
        return replay.result ? reports::hex64(replay.result->trace_hash) : replay.invariant_broken;
    };
    err << "error: the written file does not reproduce the shrunk run ("
        << (same_failure ? "same failure" : "another failure") << ", " << hash_text(check)
        << " instead of " << hash_text(result.last) << "): a bug in eosim shrink\n";
    return kExitNotMet;
}

}  // namespace

int shrink_command(const ShrinkCommand& command, std::ostream& out, std::ostream& err) {
    std::optional<scenarios::Scenario> scenario;
    nlohmann::ordered_json document;
    try {
        scenario = scenarios::load_scenario(command.file);
        std::ifstream in(command.file, std::ios::binary);
        document = nlohmann::ordered_json::parse(in);  // the loader has read and checked it already
    } catch (const scenarios::ScenarioError& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    scenarios::Reproducer
        reproduce;  // the written file's run, with the PCT options of the original
    reproduce.file = command.out.empty() ? std::filesystem::path(command.file).stem().string() +
                                               "-seed" + std::to_string(command.seed) + "-min.json"
                                         : command.out;
    reproduce.seed = command.seed;
    if (const std::string problem =
            apply_pct_option(command.pct_depth, command.pct_steps, *scenario, &reproduce);
        !problem.empty()) {
        err << "error: " << problem << '\n';
        return kExitBadInput;
    }
    scenarios::ShrinkOptions options;
    options.max_replays = command.max_replays;
    options.max_events = command.max_events;
    if (command.verbose)
        options.log = [&err](const std::string& line) { err << "shrink: " << line << '\n'; };
    const std::optional<scenarios::ShrinkResult> result =
        scenarios::shrink_failing_run(*scenario, command.seed, options);
    if (!result) {
        err << "error: " << command.file << " --seed " << command.seed << reproduce.pct_options()
            << ": no oracle fired and no engine invariant broke in this run, so there is nothing to shrink\n";
        return kExitBadInput;
    }
    print_shrink_result(command, *result, out);
    const std::string text =
        scenarios::shrunk_scenario_document(document, *result, command.file, command.seed).dump(2) +
        "\n";
    if (const std::string error = write_file_atomically(reproduce.file, text); !error.empty()) {
        err << "error: " << error << '\n';
        return kExitBadInput;
    }
    return verify_written(command, *scenario, *result, reproduce, out, err);
}

}  // namespace eosim::cli
