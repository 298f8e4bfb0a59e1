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

constexpr size_t kStderrKept = 2000;

volatile std::sig_atomic_t g_interrupted = 0;

extern "C" void on_interrupt(int) { g_interrupted = 1; }

// SIGINT, SIGTERM and SIGHUP set a flag for as long as it lives; the suite stops cleanly.
class InterruptGuard {
public:
    InterruptGuard() {
        g_interrupted = 0;
        struct sigaction action {};
        action.sa_handler = on_interrupt;
        sigemptyset(&action.sa_mask);
        for (size_t i = 0; i < std::size(kSignals); ++i)
            ::sigaction(kSignals[i], &action, &previous_[i]);
    }
    ~InterruptGuard() {
        for (size_t i = 0; i < std::size(kSignals); ++i)
            ::sigaction(kSignals[i], &previous_[i], nullptr);
    }
    InterruptGuard(const InterruptGuard&) = delete;
    InterruptGuard& operator=(const InterruptGuard&) = delete;

private:
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction previous_[3]{};
};

std::string own_executable() {
    char path[4096];
    const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return "/proc/self/exe";
    return std::string(path, static_cast<size_t>(n));
}

std::string tail(const std::string& text) {
    return text.size() <= kStderrKept ? text : "..." + text.substr(text.size() - kStderrKept);
}

std::string seconds_text(double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, seconds == std::floor(seconds) ? "%.0fs" : "%.1fs", seconds);
    return text;
}

std::string describe_signal(int signal) {
    const std::string name = signal_name(signal);
    switch (signal) {
        case SIGABRT: return "aborted (" + name + ")";
        case SIGSEGV:
        case SIGBUS:
        case SIGILL:
        case SIGFPE: return "crashed (" + name + ")";
        case SIGKILL: return "killed (" + name + "; by the out-of-memory killer?)";
        default: return "killed by " + name;
    }
}

struct RunContext {
    const PlannedScenario& scenario;
    uint64_t seed;
    const SuiteCommand& command;
    double timeout_seconds;
    std::string reproduce;  // the worker's command line without the worker-only flags
};

reports::RunRecord error_record(const RunContext& c, std::string reason,
                                const std::string& stderr_text, double wall_seconds) {
    reports::RunRecord r =
        reports::make_error_record(c.scenario.name, c.scenario.file, c.seed, c.scenario.expect,
                                   c.reproduce, std::move(reason), tail(stderr_text));
    r.wall_seconds = wall_seconds;
    return r;
}

// What a worker's exit means for its run.
reports::RunRecord record_from_outcome(const WorkerOutcome& o, const RunContext& c) {
    const std::string err_line = last_line(o.err_tail);
    const std::string because = err_line.empty() ? "" : ": " + err_line;
    if (o.timed_out) {
        return error_record(
            c, "timed out after " + seconds_text(c.timeout_seconds) + " (killed)" + because,
            o.err_tail, o.wall_seconds);
    }
    if (o.output_overflow)
        return error_record(c, "printed too much on standard output (killed)", o.err_tail,
                            o.wall_seconds);
    if (o.term_signal != 0)
        return error_record(c, describe_signal(o.term_signal) + because, o.err_tail,
                            o.wall_seconds);
    if (o.exit_code == 2) return error_record(c, "bad input" + because, o.err_tail, o.wall_seconds);
    if (o.exit_code == 127)
        return error_record(c, "could not start the worker" + because, o.err_tail, o.wall_seconds);
    if (o.exit_code == 3) {
        const bool memory = o.err_tail.find("bad_alloc") != std::string::npos ||
                            o.err_tail.find("out of memory") != std::string::npos;
        if (memory && c.command.max_memory_mb != 0 && memory_limit_supported()) {
            return error_record(c,
                                "out of memory (over the " +
                                    std::to_string(c.command.max_memory_mb) + " MB limit)" +
                                    because,
                                o.err_tail, o.wall_seconds);
        }
        return error_record(c, "internal error" + because, o.err_tail, o.wall_seconds);
    }
    if (o.exit_code != 0 && o.exit_code != 1) {
        return error_record(c, "exited with code " + std::to_string(o.exit_code) + because,
                            o.err_tail, o.wall_seconds);
    }
    const std::string json_text = final_line(o.out);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(json_text);
    } catch (const nlohmann::json::parse_error&) {
        const std::string line = last_line(json_text);
        const std::string shown = line.empty() ? "nothing" : "\"" + line.substr(0, 80) + "\"";
        return error_record(c,
                            "printed no valid result (exit code " + std::to_string(o.exit_code) +
                                "; printed " + shown + ")" + because,
                            o.err_tail, o.wall_seconds);
    }
    reports::RunRecord record;
    try {
        record = reports::run_record_from_json(j);
    } catch (const reports::RecordError& error) {
        return error_record(c, std::string("printed an unreadable result: ") + error.what(),
                            o.err_tail, o.wall_seconds);
    }
    if (record.seed != c.seed || record.scenario != c.scenario.name) {
        return error_record(c,
                            "answered for another run (" + record.scenario + " seed " +
                                std::to_string(record.seed) + ")",
                            o.err_tail, o.wall_seconds);
    }
    record.file = c.scenario.file;
    record.reproduce = c.reproduce;
    record.wall_seconds = o.wall_seconds;
    return record;
}

// Whether --timelines keeps the history (timeline, checkpoints, ...) of this run even when it
// passes; a failing run's is always kept.
bool timeline_kept_when_passed(const SuiteCommand& command, const PlannedScenario& s,
                               uint64_t seed) {
    return command.timelines == "all" ||
           (command.timelines == "first" && !s.seeds.empty() && seed == s.seeds.front());
}

// Whether the suite runs every run with --strict-faults (the command line or the suite file says
// so).
bool strict_runs(const SuiteCommand& command, const SuitePlan& plan) {
    return command.strict_faults || plan.strict_faults;
}

// A worker runs the run's reproducer with --json and the suite's limits.
std::vector<std::string> worker_argv(const std::string& program, const PlannedScenario& s,
                                     uint64_t seed, const SuiteCommand& command, bool strict) {
    std::vector<std::string> argv = reproducer(s, seed, strict).arguments();
    argv.insert(argv.begin(), program);
    argv.emplace_back("--json");
    // The run's history is most of what a worker prints: a passing run the suite does not keep
    // need not print it.
    if (!timeline_kept_when_passed(command, s, seed))
        argv.insert(argv.end(), {"--json-history", "failing"});
    if (command.max_events != 0)
        argv.insert(argv.end(), {"--max-events", std::to_string(command.max_events)});
    if (!command.max_virtual_time.empty())
        argv.insert(argv.end(), {"--max-virtual-time", command.max_virtual_time});
    return argv;
}

std::string default_results_path(const SuiteCommand& command, const Shard& shard) {
    std::string name = "eosim-results";
    if (shard.total > 1)
        name += ".shard-" + std::to_string(shard.index) + "-of-" + std::to_string(shard.total);
    name += ".jsonl";
    return command.report_dir.empty() ? name
                                      : (std::filesystem::path(command.report_dir) / name).string();
}

using RunKey = std::pair<std::string, uint64_t>;  // scenario name, seed

// The suite, after its options have been checked.
class SuiteRun {
public:
    SuiteRun(const SuiteCommand& command, SuitePlan plan, Shard shard, std::ostream& out,
             std::ostream& err)
        : command_(command), plan_(std::move(plan)), shard_(shard), out_(out), err_(err) {
        for (size_t i = 0; i < plan_.runs.size(); ++i) {
            if (in_shard(i, shard_)) shard_runs_.push_back(plan_.runs[i]);
        }
        results_path_ = command_.results_path.empty() ? default_results_path(command_, shard_)
                                                      : command_.results_path;
        workers_ = default_workers(command_.jobs);
    }

    int run(double timeout_seconds) {
        timeout_seconds_ = timeout_seconds;
        std::vector<reports::RunRecord> records;
        if (int code = load_resumed(records); code != kExitMet) return code;
        std::set<RunKey> done;
        for (const reports::RunRecord& r : records) done.insert({r.scenario, r.seed});
        std::vector<PlannedRun> todo;
        for (const PlannedRun& run : shard_runs_) {
            if (done.count({plan_.scenarios[run.scenario].name, run.seed}) == 0)
                todo.push_back(run);
        }
        std::optional<ResultsWriter> writer;
        try {
            writer.emplace(results_path_, header(), records);
        } catch (const ResultsError& error) {
            err_ << "error: " << error.what() << '\n';
            return kExitBadInput;
        }
        announce(records.size(), todo.size());
        const auto start = std::chrono::steady_clock::now();
        const bool completed = execute(todo, *writer, records);
        wall_seconds_ =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        ran_ = todo.size();
        if (!completed) {
            err_ << "\ninterrupted: " << records.size() << " of " << shard_runs_.size()
                 << " runs are in " << results_path_
                 << "; run the same command with --resume to run only the rest\n";
            return kExitInterrupted;
        }
        if (command_.sensitivity) {
            err_
                << "sensitivity: running the known-bad twins of every scenario that expects to pass\n"
                << std::flush;
            sensitivity_ = plan_sensitivity(plan_);
            run_sensitivity(*sensitivity_, plan_, worker(), static_cast<unsigned>(workers_.workers),
                            timeout_seconds_);
        }
        return report(records);
    }

private:
    ResultsHeader header() const {
        return ResultsHeader{plan_.name, plan_json(plan_), shard_, shard_runs_.size()};
    }

    // With --resume: the records already in the results file that belong to this shard's plan.
    int load_resumed(std::vector<reports::RunRecord>& records) {
        if (!command_.resume) return kExitMet;
        std::error_code error;
        if (!std::filesystem::exists(results_path_, error)) {
            err_ << "resume: " << results_path_
                 << " does not exist yet; starting from the beginning\n";
            return kExitMet;
        }
        ResultsFile file;
        try {
            file = read_results_file(results_path_);
        } catch (const ResultsError& e) {
            err_ << "error: " << e.what() << '\n';
            return kExitBadInput;
        }
        if (file.header.suite != plan_.name) {
            err_ << "error: " << results_path_ << " holds results of the suite \""
                 << file.header.suite << "\", not \"" << plan_.name
                 << "\"; give another --results or run without --resume\n";
            return kExitBadInput;
        }
        for (const std::string& warning : file.warnings) err_ << "warning: " << warning << '\n';
        std::set<RunKey> wanted;
        for (const PlannedRun& run : shard_runs_)
            wanted.insert({plan_.scenarios[run.scenario].name, run.seed});
        std::map<RunKey, reports::RunRecord> kept;
        for (reports::RunRecord& r : file.records) {
            auto it = wanted.find({r.scenario, r.seed});
            if (it == wanted.end()) continue;  // not (or no longer) in the plan
            reports::bound_record(r);
            kept[{r.scenario, r.seed}] = std::move(r);
        }
        for (auto& [key, record] : kept) records.push_back(std::move(record));
        return kExitMet;
    }

    void announce(size_t resumed, size_t todo) const {
        out_ << "suite " << plan_.name << ": " << plan_.scenarios.size() << " scenario"
             << (plan_.scenarios.size() == 1 ? "" : "s") << ", " << plan_.runs.size() << " runs";
        if (shard_.total > 1)
            out_ << "; shard " << shard_.index << "/" << shard_.total << ": " << shard_runs_.size()
                 << " runs";
        if (command_.resume) out_ << "; " << resumed << " already done, " << todo << " to run";
        out_ << "; " << describe(workers_) << "\nresults: " << results_path_ << '\n' << std::flush;
    }

    bool keeps_timeline(const reports::RunRecord& r, const PlannedScenario& s) const {
        return r.status != reports::RunStatus::passed ||
               timeline_kept_when_passed(command_, s, r.seed);
    }

    std::string worker_program() const {
        std::string program = command_.worker_command;
        if (program.empty()) {
            if (const char* env = std::getenv("EOSIM_WORKER_COMMAND");
                env != nullptr && *env != '\0')
                program = env;
        }
        if (program.empty()) program = command_.self_program;
        if (program.empty()) program = own_executable();
        return program;
    }

    // The workers' program, run in a fork of this process when it is this program itself.
    InProcessWorker worker() const {
        InProcessWorker worker{worker_program()};
        if (worker.program == command_.self_program) worker.entry = command_.self_entry;
        return worker;
    }

    bool execute(const std::vector<PlannedRun>& todo, ResultsWriter& writer,
                 std::vector<reports::RunRecord>& records) {
        const InProcessWorker program = worker();
        std::vector<WorkerTask> tasks;
        for (size_t i = 0; i < todo.size(); ++i) {
            tasks.push_back({i, worker_argv(program.program, plan_.scenarios[todo[i].scenario],
                                            todo[i].seed, command_, strict_runs(command_, plan_))});
        }
        WorkerLimits limits;
        limits.wall_seconds = timeout_seconds_;
        limits.memory_bytes = command_.max_memory_mb << 20;
        Progress progress(err_,
                          parse_progress_mode(command_.progress, ::isatty(STDERR_FILENO) == 1),
                          shard_runs_.size(), records.size());
        std::string write_error;
        InterruptGuard guard;
        WorkerPool pool(workers_.workers, limits, program);
        const bool completed = pool.run(
            tasks,
            [&](WorkerOutcome&& outcome) {
                const PlannedRun& run = todo[outcome.id];
                const PlannedScenario& scenario = plan_.scenarios[run.scenario];
                reports::RunRecord record = record_from_outcome(
                    outcome,
                    RunContext{
                        scenario, run.seed, command_, timeout_seconds_,
                        reproducer(scenario, run.seed, strict_runs(command_, plan_)).text()});
                // A record stays small whatever the run printed: timelines for the first
                // kTimelinesKept runs the policy picks only, each cut (reports::bound_record).
                if (!keeps_timeline(record, scenario) || timelines_kept_ >= kTimelinesKept) {
                    record.has_timeline = false;
                    std::vector<scenarios::TimelineEvent>().swap(
                        record.timeline);  // `= {}` keeps the capacity
                } else if (record.has_timeline) {
                    ++timelines_kept_;
                }
                reports::bound_record(record);
                try {
                    writer.append(record);
                } catch (const ResultsError& error) {
                    write_error = error.what();
                    g_interrupted = 1;
                }
                progress.run_finished(record);
                records.push_back(std::move(record));
            },
            [] { return g_interrupted != 0; }, [&progress] { progress.tick(); });
        progress.finish();
        if (!write_error.empty()) err_ << "error: " << write_error << '\n';
        return completed;
    }

    int report(std::vector<reports::RunRecord>& records) {
        sort_records(records);
        ReportOutputs outputs;
        outputs.suite_name = plan_.name;
        outputs.junit_path = command_.junit_path;
        outputs.report_dir = command_.report_dir;
        outputs.print_coverage = command_.coverage;
        outputs.compare = command_.compare;
        const double rate =
            wall_seconds_ > 0 ? static_cast<double>(ran_) * 60.0 / wall_seconds_ : 0;
        char figures[96];
        std::snprintf(figures, sizeof figures, "%zu runs in %.1f s of wall time with ", ran_,
                      wall_seconds_);
        char per_minute[48];
        std::snprintf(per_minute, sizeof per_minute, ", %.0f runs per minute", rate);
        const std::string timing = figures + describe(workers_) + per_minute;
        outputs.facts.push_back("command: " + command_.command_line);
        outputs.facts.push_back(timing + (records.size() > ran_
                                              ? "; " + std::to_string(records.size() - ran_) +
                                                    " more from the resumed results file"
                                              : ""));
        if (shard_.total > 1) {
            outputs.facts.push_back("shard " + std::to_string(shard_.index) + "/" +
                                    std::to_string(shard_.total) + " of " +
                                    std::to_string(plan_.runs.size()) + " runs");
        }
        outputs.facts.push_back(
            "limits per run: " + seconds_text(timeout_seconds_) + " wall, " +
            std::to_string(command_.max_events) + " events" +
            (command_.max_virtual_time.empty() ? ""
                                               : ", " + command_.max_virtual_time + " virtual") +
            (command_.max_memory_mb != 0 && memory_limit_supported()
                 ? ", " + std::to_string(command_.max_memory_mb) + " MB of address space"
                 : ""));
        outputs.facts.push_back("results: " + results_path_);
        for (const PlannedScenario& s : plan_.scenarios) outputs.sometimes[s.name] = s.sometimes;
        outputs.check_sometimes =
            shard_.total == 1;  // a shard's seeds may miss what another's reach
        outputs.sensitivity = sensitivity_;
        bool all_met = false;
        const std::string error = write_outputs(outputs, records, out_, all_met);
        out_ << timing << '\n';
        if (!error.empty()) {
            err_ << "error: " << error << '\n';
            return kExitBadInput;
        }
        return all_met ? kExitMet : kExitNotMet;
    }

    const SuiteCommand& command_;
    SuitePlan plan_;
    Shard shard_;
    std::ostream& out_;
    std::ostream& err_;
    std::vector<PlannedRun> shard_runs_;
    std::string results_path_;
    WorkerCount workers_;  // --jobs, else the CPUs the process may use (cli/cpu_share.h)
    double timeout_seconds_ = 60;
    double wall_seconds_ = 0;
    size_t ran_ = 0;
    std::optional<reports::SensitivityTable> sensitivity_;
    static constexpr size_t kTimelinesKept = 32;  // per suite: what the report draws, at most
    size_t timelines_kept_ = 0;
};

}  // namespace

int suite_command(const SuiteCommand& command, std::ostream& out, std::ostream& err) {
    Shard shard;
    double timeout_seconds = 0;
    try {
        if (command.shard) {
            shard = parse_shard(*command.shard);
        } else if (auto from_env = shard_from_environment()) {
            shard = *from_env;
        }
        timeout_seconds = parse_duration_seconds(command.timeout);
        if (!command.max_virtual_time.empty()) parse_duration_seconds(command.max_virtual_time);
        parse_progress_mode(command.progress, false);
        if (command.timelines != "failing" && command.timelines != "first" &&
            command.timelines != "all") {
            throw std::invalid_argument("--timelines: expected failing, first or all, found \"" +
                                        command.timelines + "\"");
        }
        if (command.max_memory_mb > (uint64_t{1} << 40))
            throw std::invalid_argument("--max-memory: too large");
        if (command.seeds) parse_seed_set(*command.seeds);
        if (command.seeds && command.fresh_seeds)
            throw std::invalid_argument("--fresh-seeds: not with --seeds (it chooses the seeds)");
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    SuitePlan plan;
    try {
        std::vector<std::filesystem::path> paths{command.path};
        paths.insert(paths.end(), command.more_paths.begin(), command.more_paths.end());
        plan = load_suite_plan(paths, command.seeds);
        if (command.fresh_seeds) use_fresh_seeds(plan, *command.fresh_seeds);
    } catch (const scenarios::ScenarioError& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    } catch (const std::invalid_argument& error) {
        err << "error: " << error.what() << '\n';
        return kExitBadInput;
    }
    if (command.fresh_seeds && !plan.runs.empty()) {
        uint64_t lowest = UINT64_MAX;
        uint64_t highest = 0;
        for (const PlannedRun& r : plan.runs) {
            lowest = std::min(lowest, r.seed);
            highest = std::max(highest, r.seed);
        }
        err << "fresh seeds: " << plan.runs.size() << " runs over seeds " << lowest << ".."
            << highest
            << " (above each scenario's own: a run that misses is a scenario tuned to the seeds it is run on)\n";
    }
    if (command.sensitivity && shard.total > 1) {
        err << "error: --sensitivity checks the whole plan's scenarios; run it without --shard\n";
        return kExitBadInput;
    }
    // Bazel asks test runners that shard to say so by touching this file.
    if (const char* status = std::getenv("TEST_SHARD_STATUS_FILE");
        status != nullptr && *status != '\0' && shard.total > 1) {
        if (FILE* f = std::fopen(status, "a")) std::fclose(f);
    }
    SuiteRun run(command, std::move(plan), shard, out, err);
    return run.run(timeout_seconds);
}

}  // namespace eosim::cli
