// The `eosim` command. A thin shell over the libraries: parse the command line, load the scenario,
// run it, print the report, and turn the outcome into an exit code.
//
// Exit codes: 0 every expectation met; 1 an expectation not met (or a determinism check failed);
// 2 bad input (command line, scenario file, output file); 3 an internal error (a bug in eosim).
#include <unistd.h>

#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "reports/run_report.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"

namespace {

constexpr int kExitMet = 0;
constexpr int kExitNotMet = 1;
constexpr int kExitBadInput = 2;
constexpr int kExitInternal = 3;

struct RunCommand {
    std::string file;
    uint64_t seed = 1;
    std::string trace_path;
    bool check_determinism = false;
    bool json = false;
};

// The trace log: written to a temporary file next to the target and renamed over it only when the
// run completes, so an interrupted or failed run never leaves a half-written trace behind.
class TraceFile {
public:
    explicit TraceFile(std::filesystem::path target)
        : target_(std::move(target)),
          temporary_(target_.string() + ".tmp-" + std::to_string(static_cast<long long>(::getpid()))) {}
    TraceFile(const TraceFile&) = delete;
    TraceFile& operator=(const TraceFile&) = delete;
    ~TraceFile() {
        if (committed_) return;
        stream_.close();
        std::error_code ignored;
        std::filesystem::remove(temporary_, ignored);
    }

    bool open() {
        stream_.open(temporary_, std::ios::binary | std::ios::trunc);
        return stream_.is_open();
    }
    std::ostream& stream() { return stream_; }
    // Flushes and renames into place; returns an error message, or "" on success.
    std::string commit() {
        stream_.close();
        if (stream_.fail()) return "cannot write " + temporary_.string();
        std::error_code error;
        std::filesystem::rename(temporary_, target_, error);
        if (error) return "cannot rename " + temporary_.string() + " to " + target_.string() + ": " + error.message();
        committed_ = true;
        return "";
    }

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    std::ofstream stream_;
    bool committed_ = false;
};

int run(const RunCommand& command) {
    using eosim::scenarios::ScenarioError;
    std::optional<eosim::scenarios::Scenario> scenario;
    try {
        scenario = eosim::scenarios::load_scenario(command.file);
    } catch (const ScenarioError& error) {
        std::cerr << "error: " << error.what() << '\n';
        return kExitBadInput;
    }

    std::optional<TraceFile> trace;
    if (!command.trace_path.empty()) {
        trace.emplace(command.trace_path);
        if (!trace->open()) {
            std::cerr << "error: cannot open the trace file " << command.trace_path << " for writing\n";
            return kExitBadInput;
        }
    }

    eosim::scenarios::RunOptions options;
    options.seed = command.seed;
    options.trace_log = trace ? &trace->stream() : nullptr;
    const eosim::scenarios::RunResult result = eosim::scenarios::run_scenario(*scenario, options);
    if (trace) {
        const std::string error = trace->commit();
        if (!error.empty()) {
            std::cerr << "error: " << error << '\n';
            return kExitBadInput;
        }
    }

    std::optional<eosim::scenarios::RunResult> second;
    if (command.check_determinism) {
        eosim::scenarios::RunOptions again;
        again.seed = command.seed;
        second = eosim::scenarios::run_scenario(*scenario, again);
    }
    const bool deterministic = !second || second->trace_hash == result.trace_hash;
    const std::string reproduce = eosim::scenarios::reproduce_command(*scenario, command.seed);

    if (command.json) {
        nlohmann::json out = eosim::reports::to_json(result);
        out["expect"] = eosim::reports::to_json(scenario->expect);
        out["reproduce"] = reproduce;
        if (second) {
            out["determinism"] = {{"checked", true},
                                  {"deterministic", deterministic},
                                  {"second_trace_hash", eosim::reports::hex64(second->trace_hash)}};
        }
        std::cout << out.dump() << '\n';
    } else {
        eosim::reports::write_run_report(std::cout, *scenario, result, reproduce);
        if (second && deterministic) std::cout << "determinism ok: the second run gave the same trace hash\n";
    }
    if (!deterministic) {
        std::cerr << "determinism check failed: trace hash " << eosim::reports::hex64(result.trace_hash)
                  << " on the first run, " << eosim::reports::hex64(second->trace_hash) << " on the second\n";
        return kExitNotMet;
    }
    return result.expectation_met ? kExitMet : kExitNotMet;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{"eosim: deterministic simulation and fault injection for exactly-once stream processing"};
    app.require_subcommand(1);

    RunCommand command;
    CLI::App* run_app = app.add_subcommand("run", "Run one scenario with one seed and report the oracles' verdicts");
    run_app->add_option("FILE", command.file, "Scenario file (JSON; see scenarios/README.md)")->required();
    run_app->add_option("--seed", command.seed, "Root seed of the run (the same seed gives the same run)");
    run_app->add_option("--trace", command.trace_path, "Write every event as JSON lines to this file");
    run_app->add_flag("--check-determinism", command.check_determinism,
                      "Run twice and check that both runs give the same trace hash");
    run_app->add_flag("--json", command.json, "Print the result as one JSON object instead of the text report");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);  // prints help, or the error and a hint
        return code == 0 ? kExitMet : kExitBadInput;
    }

    try {
        if (run_app->parsed()) return run(command);
    } catch (const std::exception& error) {
        std::cerr << "internal error (a bug in eosim, please report it with the command line): " << error.what()
                  << '\n';
        return kExitInternal;
    }
    return kExitBadInput;
}
