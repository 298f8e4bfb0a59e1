// `eosim merge`: the results files of a suite's shards joined into one summary, JUnit file and
// report, as if one machine had run the whole plan; the runs of the plan no shard recorded are
// errors naming the shard that should have run them.
#include "cli/suite_command.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "cli/cpu_share.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/report_output.h"
#include "cli/results_file.h"
#include "cli/run_values.h"
#include "cli/sensitivity_check.h"
#include "cli/suite_plan.h"
#include "cli/worker_pool.h"
#include "reports/run_record.h"
#include "reports/suite_summary.h"
#include "reports/xml_text.h"

namespace eosim::cli {

namespace {

// One run a results file's plan header lists.
struct PlanEntry {
    PlannedScenario scenario;  // name, file, expectation (seeds and "sometimes" left empty)
    uint64_t seed = 0;
};

// The runs a results file's plan header lists, in the plan's order (by scenario name, then seed:
// the order `--shard` splits).
std::vector<PlanEntry> planned_runs(const nlohmann::json& plan) {
    std::vector<PlanEntry> runs;
    if (!plan.is_object() || !plan.contains("scenarios") || !plan["scenarios"].is_array())
        return runs;
    for (const nlohmann::json& s : plan["scenarios"]) {
        if (!s.is_object() || !s.contains("scenario") || !s.contains("seeds")) continue;
        if (!s["scenario"].is_string() || !s["seeds"].is_string()) continue;
        PlanEntry entry;
        entry.scenario.name = s["scenario"].get<std::string>();
        entry.scenario.file = s.value("file", std::string());
        // The expectation the suite held the run to, given explicitly in its reproduce command.
        entry.scenario.expect = reports::expectation_from_json(s.value("expect", nlohmann::json()))
                                    .value_or(scenarios::Expectation{});
        entry.scenario.expect_overridden = true;
        try {
            for (uint64_t seed : parse_seed_set(s["seeds"].get<std::string>())) {
                entry.seed = seed;
                runs.push_back(entry);
            }
        } catch (const std::invalid_argument&) {}
    }
    std::stable_sort(runs.begin(), runs.end(), [](const PlanEntry& a, const PlanEntry& b) {
        return a.scenario.name != b.scenario.name ? a.scenario.name < b.scenario.name
                                                  : a.seed < b.seed;
    });
    return runs;
}

// Per scenario, the "sometimes" combinations a results file's plan header lists.
std::map<std::string, std::vector<std::string>> planned_sometimes(const nlohmann::json& plan) {
    std::map<std::string, std::vector<std::string>> out;
    if (!plan.is_object() || !plan.contains("scenarios") || !plan["scenarios"].is_array())
        return out;
    for (const nlohmann::json& s : plan["scenarios"]) {
        if (!s.is_object() || !s.contains("scenario") || !s["scenario"].is_string()) continue;
        std::vector<std::string>& list = out[s["scenario"].get<std::string>()];
        if (!s.contains("sometimes") || !s["sometimes"].is_array()) continue;
        for (const nlohmann::json& combination : s["sometimes"]) {
            if (combination.is_string()) list.push_back(combination.get<std::string>());
        }
    }
    return out;
}

// The shards' files joined: a record per run (a run in two files: the later one, with a warning
// when they differ), and which shards of the first file's sharding were given.
struct MergedResults {
    std::map<RunKey, reports::RunRecord> records;
    std::set<uint32_t> shards_given;
    std::vector<std::string> warnings;
};

// "" or why the files cannot be merged (another plan).
std::string join_results(const MergeCommand& command, std::vector<ResultsFile>& files,
                         MergedResults& merged, std::ostream& err) {
    const ResultsHeader& first = files.front().header;
    for (size_t i = 0; i < files.size(); ++i) {
        const ResultsHeader& h = files[i].header;
        if (h.suite != first.suite || h.plan.value("scenarios", nlohmann::json()) !=
                                          first.plan.value("scenarios", nlohmann::json())) {
            return command.inputs[i] + " holds results of another plan (suite \"" + h.suite +
                   "\") than " + command.inputs.front() + " (suite \"" + first.suite +
                   "\"); merge shards of one suite";
        }
        if (h.shard.total == first.shard.total) merged.shards_given.insert(h.shard.index);
        for (const std::string& warning : files[i].warnings) err << "warning: " << warning << '\n';
        for (reports::RunRecord& r : files[i].records) {
            const RunKey key{r.scenario, r.seed};
            auto it = merged.records.find(key);
            if (it != merged.records.end() &&
                (it->second.status != r.status || it->second.trace_hash != r.trace_hash)) {
                merged.warnings.push_back("two different results for " + r.scenario + " seed " +
                                          std::to_string(r.seed) + "; kept the one from " +
                                          command.inputs[i]);
            }
            merged.records[key] = std::move(r);
        }
    }
    return "";
}

// The plan's runs without a result, as error records naming the shard that should have run them
// (so the summary, the JUnit file and the report show them), and the message saying so ("" when
// none is missing).
std::string missing_runs(const std::vector<PlanEntry>& planned, const MergedResults& merged,
                         uint32_t shards, std::vector<reports::RunRecord>& missing) {
    std::set<uint32_t> shards_missing;
    for (size_t i = 0; i < planned.size(); ++i) {
        const PlanEntry& run = planned[i];
        if (merged.records.count({run.scenario.name, run.seed}) != 0) continue;
        const Shard shard{static_cast<uint32_t>(i % shards + 1), shards};
        const std::string name =
            "shard " + std::to_string(shard.index) + "/" + std::to_string(shards);
        std::string reason;
        if (shards == 1) {
            reason =
                "no result: the results file lacks this run (interrupted? run the suite again with --resume)";
        } else if (merged.shards_given.count(shard.index) == 0) {
            reason = "no result: " + name + " was not merged (its results file was not given)";
            shards_missing.insert(shard.index);
        } else {
            reason =
                "no result: " + name +
                "'s results file lacks this run (interrupted? run the shard again with --resume)";
        }
        missing.push_back(reports::make_error_record(
            run.scenario.name, run.scenario.file, run.seed, run.scenario.expect,
            reproducer(run.scenario, run.seed, false).text(), std::move(reason), ""));
    }
    if (missing.empty()) return "";
    std::string list;
    for (uint32_t index : shards_missing)
        list += (list.empty() ? "" : ", ") + std::to_string(index) + "/" + std::to_string(shards);
    return std::to_string(missing.size()) + " of the plan's " + std::to_string(planned.size()) +
           " runs have no result" + (list.empty() ? "" : " (shards not given: " + list + ")") +
           "; they are errors in the summary, the JUnit file and the report";
}

}  // namespace

int merge_command(const MergeCommand& command, std::ostream& out, std::ostream& err) {
    std::vector<ResultsFile> files;
    for (const std::string& input : command.inputs) {
        try {
            files.push_back(read_results_file(input));
        } catch (const ResultsError& error) {
            err << "error: " << error.what() << '\n';
            return kExitBadInput;
        }
    }
    if (files.empty()) {
        err << "error: expected at least one results file\n";
        return kExitBadInput;
    }
    const ResultsHeader& first = files.front().header;
    MergedResults merged;
    if (const std::string problem = join_results(command, files, merged, err); !problem.empty()) {
        err << "error: " << problem << '\n';
        return kExitBadInput;
    }
    std::vector<reports::RunRecord> records;
    for (auto& [key, record] : merged.records) records.push_back(std::move(record));
    const std::vector<PlanEntry> planned = planned_runs(first.plan);
    std::vector<reports::RunRecord> missing;
    const std::string missing_message = missing_runs(planned, merged, first.shard.total, missing);
    sort_records(records);
    out << "merge of " << files.size() << " results file" << (files.size() == 1 ? "" : "s")
        << " of suite " << first.suite << ": " << records.size() << " runs\n";
    if (!command.results_path
             .empty()) {  // the results only: a later merge still sees the missing runs missing
        try {
            ResultsHeader header = first;
            header.shard = Shard{};
            header.shard_runs = planned.size();
            ResultsWriter writer(command.results_path, header, records);
        } catch (const ResultsError& error) {
            err << "error: " << error.what() << '\n';
            return kExitBadInput;
        }
        out << "results: " << command.results_path << '\n';
    }
    for (const std::string& warning : merged.warnings) err << "warning: " << warning << '\n';
    if (!missing_message.empty()) err << "error: " << missing_message << '\n';
    records.insert(records.end(), std::make_move_iterator(missing.begin()),
                   std::make_move_iterator(missing.end()));
    sort_records(records);
    ReportOutputs outputs;
    outputs.suite_name = first.suite;
    outputs.junit_path = command.junit_path;
    outputs.report_dir = command.report_dir;
    outputs.print_coverage = command.coverage;
    outputs.compare = command.compare;
    outputs.warnings = merged.warnings;
    if (!missing_message.empty())
        outputs.warnings.insert(outputs.warnings.begin(), missing_message);
    std::string inputs;
    for (const std::string& input : command.inputs) inputs += (inputs.empty() ? "" : ", ") + input;
    outputs.facts.push_back("merged from: " + inputs);
    outputs.sometimes = planned_sometimes(first.plan);
    bool all_met = false;
    if (const std::string error = write_outputs(outputs, records, out, all_met); !error.empty()) {
        err << "error: " << error << '\n';
        return kExitBadInput;
    }
    return all_met && missing.empty() ? kExitMet : kExitNotMet;
}

}  // namespace eosim::cli
