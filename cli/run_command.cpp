#include "cli/run_command.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "cli/files.h"
#include "cli/run_values.h"
#include "engine/connectors/process/process_channel.h"
#include "oracles/oracle_registry.h"
#include "reports/chrome_trace.h"
#include "reports/run_record.h"
#include "reports/run_report.h"
#include "scenarios/reproducer.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/sensitivity.h"

namespace eosim::cli {

namespace {

// Passes on to `out` the lines that contain `needle` (`--grep`), each whole.
class GrepBuffer final : public std::streambuf {
public:
    GrepBuffer(std::ostream& out, std::string needle) : out_(out), needle_(std::move(needle)) {}

protected:
    int overflow(int c) override {
        if (c == traits_type::eof()) return traits_type::not_eof(c);
        line_ += static_cast<char>(c);
        if (c == '\n') {
            if (line_.find(needle_) != std::string::npos) out_ << line_;
            line_.clear();
        }
        return c;
    }

private:
    std::ostream& out_;
    std::string needle_;
    std::string line_;
};

// The trace log: written to a temporary file next to the target and renamed over it only when the
// run completes, so an interrupted or failed run never leaves a half-written trace behind. With
// `grep`, only the lines that contain it.
class TraceFile {
public:
    TraceFile(std::filesystem::path target, const std::string& grep)
        : target_(std::move(target)),
          temporary_(target_.string() + ".tmp-" +
                     std::to_string(static_cast<long long>(::getpid()))),
          grep_buffer_(stream_, grep),
          grep_stream_(&grep_buffer_),
          grep_(!grep.empty()) {}
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
    std::ostream& stream() { return grep_ ? grep_stream_ : stream_; }
    // Flushes and renames into place; returns an error message, or "" on success.
    std::string commit() {
        stream_.close();
        if (stream_.fail()) return "cannot write " + temporary_.string();
        std::error_code error;
        std::filesystem::rename(temporary_, target_, error);
        if (error)
            return "cannot rename " + temporary_.string() + " to " + target_.string() + ": " +
                   error.message();
        committed_ = true;
        return "";
    }

private:
    std::filesystem::path target_;
    std::filesystem::path temporary_;
    std::ofstream stream_;
    GrepBuffer grep_buffer_;
    std::ostream grep_stream_;
    bool grep_;
    bool committed_ = false;
};

// "pass" / "violation:<oracle>" / "violation:<oracle>:some-seeds" -> the expectation; throws
// std::invalid_argument.
scenarios::Expectation parse_expect(const std::string& text, const scenarios::Scenario& scenario) {
    scenarios::Expectation expect;
    if (text == "pass") return expect;
    const std::string prefix = "violation:";
    const std::string some_seeds = ":some-seeds";
    std::string name = text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : "";
    if (name.size() > some_seeds.size() &&
        name.compare(name.size() - some_seeds.size(), some_seeds.size(), some_seeds) == 0) {
        name.resize(name.size() - some_seeds.size());
        expect.every_seed = false;
    }
    if (oracles::OracleRegistry::global().find(name) == nullptr) {
        throw std::invalid_argument(
            "--expect: expected \"pass\", \"violation:<oracle>\" or \"violation:<oracle>:some-seeds\", "
            "found \"" +
            text + "\"");
    }
    if (std::find(scenario.oracles.begin(), scenario.oracles.end(), name) ==
        scenario.oracles.end()) {
        throw std::invalid_argument("--expect: expected an oracle the scenario lists, found \"" +
                                    name + "\"");
    }
    expect.pass = false;
    expect.violation = name;
    return expect;
}

// Why the run is incomplete, or "" when the job finished or failed before any limit.
std::string cut_reason(const scenarios::RunResult& result, const RunCommand& command,
                       const scenarios::Scenario& scenario) {
    const bool ended = std::any_of(result.timeline.begin(), result.timeline.end(),
                                   [](const scenarios::TimelineEvent& e) {
                                       return e.what == "job.finished" || e.what == "job.failed";
                                   });
    if (ended) return "";
    if (!result.cut.empty()) return result.cut;
    if (command.max_events != 0 && result.figures.events >= command.max_events) {
        return "cut at the event limit (" + std::to_string(command.max_events) +
               " events) before the job finished or failed: a livelock or a hang?";
    }
    char limit[48];
    std::snprintf(limit, sizeof limit, "%.3fs", static_cast<double>(scenario.time_limit.ns) / 1e9);
    return std::string("cut at the virtual-time limit (") + limit +
           ") before the job finished or failed: a hang?";
}

}  // namespace

std::string apply_pct_option(uint32_t depth, uint64_t steps, scenarios::Scenario& scenario,
                             scenarios::Reproducer* reproduce) {
    if (depth == 0)
        return steps == 0 ? std::string()
                          : "--pct-steps: needs --pct-depth (the PCT ordering is off without it)";
    if (depth > kPctDepthMax) {
        return "--pct-depth: expected 1.." + std::to_string(kPctDepthMax) + ", found " +
               std::to_string(depth);
    }
    sim::PriorityDeliveryOptions pct;
    pct.depth = depth;
    if (steps != 0) pct.change_point_steps = steps;
    scenario.world.network.priority_delivery = pct;
    reproduce->pct_depth = depth;
    reproduce->pct_steps = steps;
    return {};
}

namespace {

// A duration option ("12s", "1.5m") as virtual time; throws std::invalid_argument.
sim::Duration virtual_duration(const std::string& text) {
    const double seconds = parse_duration_seconds(text);
    return sim::Duration::nanos(static_cast<int64_t>(std::llround(std::min(seconds, 1e9) * 1e9)));
}

// The options that change the run (and so its reproducer): --expect, --max-virtual-time, the PCT
// ordering, --savepoint-at and --strict-faults. Throws std::invalid_argument.
void apply_run_options(const RunCommand& command, scenarios::Scenario& scenario,
                       scenarios::Reproducer& reproduce) {
    if (!command.expect.empty()) {
        scenario.expect = parse_expect(command.expect, scenario);
        reproduce.expect = command.expect;
    }
    if (!command.max_virtual_time.empty()) {
        const sim::Duration limit = virtual_duration(command.max_virtual_time);
        if (limit.ns <= 0)
            throw std::invalid_argument("--max-virtual-time: expected a positive duration");
        scenario.time_limit = std::min(scenario.time_limit, limit);
    }
    if (const std::string problem =
            apply_pct_option(command.pct_depth, command.pct_steps, scenario, &reproduce);
        !problem.empty()) {
        throw std::invalid_argument(problem);
    }
    for (const std::string& at : command.savepoint_at) {
        const sim::Duration when = virtual_duration(at);
        if (when.ns < 0 || when >= scenario.time_limit) {
            throw std::invalid_argument(
                "--savepoint-at: expected a time within the time_limit, found \"" + at + "\"");
        }
        scenario.savepoints.push_back(scenarios::SavepointSpec{when, "", 1, ""});
        reproduce.savepoint_at.push_back(at);
    }
    reproduce.strict_faults = command.strict_faults;
}

// The scenario (or its twin) with the command line's options applied, and the command that
// reproduces the run; an error message on bad input.
std::optional<scenarios::Scenario> prepare_run(const RunCommand& command,
                                               scenarios::Reproducer& reproduce,
                                               std::ostream& err) {
    try {
        scenarios::Scenario scenario = command.twin.empty()
                                           ? scenarios::load_scenario(command.file)
                                           : scenarios::load_twin(command.file, command.twin);
        reproduce = scenarios::Reproducer::of(scenario, command.seed);
        reproduce.twin = command.twin;
        apply_run_options(command, scenario, reproduce);
        return scenario;
    } catch (const scenarios::ScenarioError& error) {
        err << "error: " << error.what() << '\n';
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << '\n';
    }
    return std::nullopt;
}

// The trace file --trace asks for, opened; false (with the error said) on bad input.
bool open_trace(const RunCommand& command, std::optional<TraceFile>& trace, std::ostream& err) {
    if (!command.trace_grep.empty() && command.trace_path.empty()) {
        err << "error: --grep filters the trace: give --trace OUT.jsonl too\n";
        return false;
    }
    if (command.trace_path.empty()) return true;
    trace.emplace(command.trace_path, command.trace_grep);
    if (trace->open()) return true;
    err << "error: cannot open the trace file " << command.trace_path << " for writing\n";
    return false;
}

scenarios::RunOptions run_options(const RunCommand& command) {
    scenarios::RunOptions options;
    options.seed = command.seed;
    options.max_events = command.max_events;
    options.strict_faults = command.strict_faults;
    return options;
}

// The first run, and with --check-determinism the second: both results and how the process
// sinks' exchanges differ ("" when alike).
struct RunPair {
    scenarios::RunResult first;
    std::optional<scenarios::RunResult> second;
    std::string transcript_difference;

    bool deterministic() const {
        return !second ||
               (second->trace_hash == first.trace_hash && second->state_hash == first.state_hash);
    }
};

RunPair run_once_or_twice(const RunCommand& command, const scenarios::Scenario& scenario,
                          std::ostream* trace_log) {
    std::vector<std::string> transcript;  // every process sink's exchange, for --check-determinism
    std::optional<engine::process::TranscriptRecorder> recording;
    if (command.check_determinism) recording.emplace(&transcript);
    scenarios::RunOptions options = run_options(command);
    options.trace_log = trace_log;
    RunPair runs{scenarios::run_scenario(scenario, options), std::nullopt, ""};
    recording.reset();
    if (!command.check_determinism) return runs;
    std::vector<std::string> second_transcript;
    const engine::process::TranscriptRecorder recording_again(&second_transcript);
    runs.second = scenarios::run_scenario(scenario, run_options(command));
    runs.transcript_difference =
        engine::process::first_transcript_difference(transcript, second_transcript);
    return runs;
}

void print_json(const RunCommand& command, reports::RunRecord& record, const RunPair& runs,
                std::ostream& out) {
    if (command.json_history == "none" ||
        (command.json_history == "failing" && record.status == reports::RunStatus::passed)) {
        record.has_timeline = false;
    }
    nlohmann::json j = reports::to_json(record);
    if (runs.second) {
        j["determinism"] = {{"checked", true},
                            {"deterministic", runs.deterministic()},
                            {"second_trace_hash", reports::hex64(runs.second->trace_hash)},
                            {"second_state_hash", reports::hex64(runs.second->state_hash)}};
    }
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

void print_text(const RunCommand& command, const scenarios::Scenario& scenario, const RunPair& runs,
                const scenarios::Reproducer& reproduce, std::ostream& out) {
    reports::write_run_report(out, scenario, runs.first, reproduce.text());
    if (runs.second && runs.deterministic())
        out << "determinism ok: the second run gave the same trace hash and state hash\n";
    if (!command.chrome_trace_path.empty()) {
        out << "chrome trace " << command.chrome_trace_path
            << " (open in https://ui.perfetto.dev or chrome://tracing)\n";
    }
}

void report_nondeterminism(const RunPair& runs, std::ostream& err) {
    const scenarios::RunResult& first = runs.first;
    const scenarios::RunResult& second = *runs.second;
    err << "determinism check failed: trace hash " << reports::hex64(first.trace_hash)
        << ", state hash " << reports::hex64(first.state_hash) << " on the first run; trace hash "
        << reports::hex64(second.trace_hash) << ", state hash " << reports::hex64(second.state_hash)
        << " on the second";
    if (second.trace_hash == first.trace_hash)
        err << " (the same events stored different data in an outside system)";
    err << '\n';
    if (!runs.transcript_difference.empty()) err << runs.transcript_difference << '\n';
}

}  // namespace

int run_command(const RunCommand& command, std::ostream& out, std::ostream& err) {
    scenarios::Reproducer reproduce;
    const std::optional<scenarios::Scenario> scenario = prepare_run(command, reproduce, err);
    std::optional<TraceFile> trace;
    if (!scenario || !open_trace(command, trace, err)) return kExitBadInput;
    RunPair runs = run_once_or_twice(command, *scenario, trace ? &trace->stream() : nullptr);
    if (trace) {
        if (const std::string error = trace->commit(); !error.empty()) {
            err << "error: " << error << '\n';
            return kExitBadInput;
        }
    }
    const std::string cut = cut_reason(runs.first, command, *scenario);
    if (!cut.empty()) {
        runs.first.expectation_met = false;
        runs.first.expectation_message = cut;
    }
    reports::RunRecord record = reports::make_run_record(*scenario, runs.first, reproduce.text());
    if (!cut.empty()) record.reason = cut;
    if (!command.chrome_trace_path.empty()) {
        const std::string error = write_file_atomically(
            command.chrome_trace_path, reports::chrome_trace(record).dump() + "\n");
        if (!error.empty()) {
            err << "error: " << error << '\n';
            return kExitBadInput;
        }
    }
    if (command.json) {
        print_json(command, record, runs, out);
    } else {
        print_text(command, *scenario, runs, reproduce, out);
    }
    out.flush();
    if (!runs.deterministic()) {
        report_nondeterminism(runs, err);
        return kExitNotMet;
    }
    return runs.first.expectation_met ? kExitMet : kExitNotMet;
}

}  // namespace eosim::cli
