#include "testkit/sink_jobs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "scenarios/point_reach.h"
#include "scenarios/reproducer.h"
#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/shrinker.h"
#include "sim/fault_plan.h"
#include "sim/prng.h"
#include "testkit/contract_harness.h"
#include "testkit/sink_contract.h"

namespace eosim::testkit {

namespace {

using nlohmann::ordered_json;

std::string millis(int64_t ms) { return std::to_string(ms) + "ms"; }

struct DrawnJob {
    ordered_json document;
    std::string summary;
    bool at_least_once = false;
};

// Every fault kind the job level may draw, with its parameters; `systems` the outside systems the
// sink asked for, `batch_systems` those of them with bulk requests.
ordered_json applicable_kinds(const engine::SinkConfig& config,
                              const std::vector<std::string>& systems, bool races) {
    ordered_json kinds = {
        {"crash",
         {{"weight", 8},
          {"restart_delay", {{"min", "200ms"}, {"max", "3s"}}},
          {"nodes", {"jobmanager", "tm0", "tm1"}}}},
        {"pause",
         {{"duration", {{"min", "200ms"}, {"max", "3s"}}},
          {"nodes", {"jobmanager", "tm0", "tm1"}}}},
        {"partition", {{"duration", {{"min", "200ms"}, {"max", "5s"}}}}},
        {"slow_link", ordered_json::object()},
        {"storage_failure", ordered_json::object()},
        {"storage_slow", ordered_json::object()},
        {"broker_unavailable", ordered_json::object()},
        {"kafka_write_failure", ordered_json::object()},
        {"message_loss",
         {{"messages",
           {"checkpoint.notify_complete", "checkpoint.notify_aborted", "checkpoint.acknowledge",
            "checkpoint.trigger"}},
          {"ratio", {{"min", "1/2"}, {"max", "1/1"}}}}},
    };
    if (!config.kafka_topic().empty()) {
        kinds["kafka_commit_errors"] = {{"duration", {{"min", "100ms"}, {"max", "2s"}}}};
        kinds["kafka_commit_outcome_unknown"] = {{"duration", {{"min", "100ms"}, {"max", "1s"}}}};
    }
    if (!systems.empty()) {
        kinds["system_unavailable"] = {{"systems", systems},
                                       {"duration", {{"min", "100ms"}, {"max", "2s"}}}};
        kinds["system_write_errors"] = {{"systems", systems},
                                        {"duration", {{"min", "100ms"}, {"max", "2s"}}}};
    }
    std::vector<std::string> batch_systems;
    for (const std::string& system : systems) {
        if (system == "documents") batch_systems.push_back(system);
    }
    if (!batch_systems.empty()) {
        kinds["bulk_partial_failure"] = {{"systems", batch_systems},
                                         {"duration", {{"min", "100ms"}, {"max", "2s"}}},
                                         {"ratio", {{"min", "1/10"}, {"max", "1/1"}}}};
    }
    if (races &&
        !systems.empty()) {  // every system a sink may ask for races (sim/external/call_races.h)
        kinds["system_call_races"] = {{"systems", systems},
                                      {"duration", {{"min", "200ms"}, {"max", "3s"}}},
                                      {"ratio", {{"min", "1/10"}, {"max", "1/2"}}}};
    }
    return kinds;
}

// The protocol points faults are placed at: the user's, or every point the sink declares
// (SinkConfig::announced_points(), aimed_sink_points) and four every drawn job announces.
std::vector<std::string> job_points(const JobOptions& options, const engine::SinkConfig& config) {
    std::vector<std::string> points =
        aimed_sink_points(config, options.points, "JobOptions::points");
    if (options.points.empty()) {
        for (const char* p : {"checkpoint.completed", "failover.started", "task.restoring",
                              "barrier.alignment_started"})
            points.emplace_back(p);
    }
    return points;
}

// A requested point no component of the drawn job announces: the loader would refuse a reproducer
// with a fault there (scenarios/point_reach.h), so it is refused before any run.
void require_reachable(const std::vector<std::string>& requested,
                       const scenarios::Scenario& scenario) {
    for (const std::string& point : requested) {
        if (auto why = scenarios::unreachable_reason(scenario, point)) {
            throw std::invalid_argument(
                "JobOptions::points: no component of the drawn jobs announces " + point + ": " +
                *why);
        }
    }
}

// A failover at another parallelism (JobOptions::rescales): a TaskManager of the job crashes and,
// before it is back (its restart takes 1-3 s), the job is cancelled and started again from its
// newest retained checkpoint with the count and the sink at another parallelism, out or in -- as
// the adaptive scheduler does when a TaskManager is lost, or a user restarting with another -p.
// The crashed TaskManager's sink subtasks are never closed: what they left open lingers, and after
// a scale-in only the subtasks given their state know of it. Returns the summary's words.
std::string draw_rescale_after_failure(ordered_json& doc, int64_t parallelism, int64_t records,
                                       sim::Prng& prng) {
    // 1..4 but the job's own; in three times out of four when both are possible (what the removed
    // subtasks left must then be taken over).
    const bool scale_in = parallelism == 4 || (parallelism > 1 && prng.chance(sim::Ratio{3, 4}));
    const int64_t rescaled =
        scale_in ? prng.between(1, parallelism - 1) : prng.between(parallelism + 1, 4);
    const int64_t at = prng.between(
        records / 4, records * 3 / 5);  // while the input flows (1000 records a second)
    const int64_t crash_before = prng.between(20, 400);
    const std::string task_manager = prng.chance(sim::Ratio{1, 2}) ? "tm0" : "tm1";
    const int64_t restart_delay = prng.between(1000, 3000);
    doc["world"]["slots_per_task_manager"] = (std::max(parallelism, rescaled) + 1) / 2;
    doc["faults"]["schedule"] =
        ordered_json::array({{{"kind", "crash"},
                              {"nodes", ordered_json::array({task_manager})},
                              {"at", millis(at - crash_before)},
                              {"restart_delay", millis(restart_delay)}}});
    doc["deployments"] = ordered_json::array({{{"at", millis(at)},
                                               {"from", "latest checkpoint"},
                                               {"vertices",
                                                {{{"id", "count"}, {"parallelism", rescaled}},
                                                 {{"id", "sink"}, {"parallelism", rescaled}}}}}});
    ordered_json& kinds =
        doc["faults"]["random"]["kinds"];  // the swarm reaches the second deployment's nodes too
    for (const char* kind : {"crash", "pause"}) {
        if (!kinds.contains(kind)) continue;
        for (const char* node : {"jobmanager.v2", "tm0.v2", "tm1.v2"})
            kinds[kind]["nodes"].push_back(node);
    }
    return ", " + task_manager + " crashes at " + std::to_string(at - crash_before) +
           " ms and the job restarts from its latest checkpoint at " + std::to_string(at) +
           " ms with parallelism " + std::to_string(rescaled);
}

// The oracles judging a drawn job: the sink's own, or what still holds with at-least-once
// checkpoints.
ordered_json drawn_job_oracles(const JobOptions& options, const engine::SinkConfig& config,
                               bool at_least_once) {
    ordered_json oracles = ordered_json::array();
    const bool table = config.output_shape() == engine::SinkOutputShape::keyed_table;
    for (const std::string& name : job_oracles(options, config)) {
        // A job with at-least-once checkpointing may count a record twice in its keyed state: only
        // "nothing lost" of appended output and liveness still hold.
        if (at_least_once && name != "liveness" && (table || name != "at_least_once_output"))
            continue;
        oracles.push_back(name);
    }
    if (at_least_once && !table &&
        std::find(oracles.begin(), oracles.end(), "at_least_once_output") == oracles.end()) {
        oracles.push_back("at_least_once_output");
    }
    if (oracles.empty()) oracles.push_back("liveness");
    return oracles;
}

// The drawn job: a Kafka source, a keyed count and the sink under test.
ordered_json count_job(const std::string& sink, const ordered_json& sink_options,
                       int64_t parallelism, int64_t interval, bool at_least_once) {
    return {{"name", "count"},
            {"vertices",
             {{{"id", "source"},
               {"kind", "kafka_source"},
               {"topic", "input"},
               {"parallelism", parallelism}},
              {{"id", "count"},
               {"kind", "keyed_count"},
               {"parallelism", parallelism},
               {"inputs", {{{"from", "source"}, {"edge", "hash"}}}}},
              {{"id", "sink"},
               {"kind", "sink"},
               {"sink", sink},
               {"options", sink_options},
               {"parallelism", parallelism},
               {"inputs", {{{"from", "count"}, {"edge", "forward"}}}}}}},
            {"checkpointing",
             {{"mode", at_least_once ? "at_least_once" : "exactly_once"},
              {"interval", millis(interval)}}},
            {"restart", {{"max_attempts", 30}, {"delay", "1s"}}}};
}

DrawnJob draw_job(const JobOptions& options, const engine::SinkConfig& config,
                  const ordered_json& kinds, const std::vector<std::string>& points,
                  sim::Prng& prng, int case_number) {
    const int64_t parallelism = prng.between(1, 4);
    const int64_t interval = prng.between(200, 1000);
    const bool at_least_once = options.modes_at_least_once && prng.chance(sim::Ratio{1, 4});
    const int64_t records = prng.between(2000, 8000);
    const int64_t keys = prng.between(1, 64);
    // Faults fire while the input still flows (1000 records a second): a bounded job ends soon
    // after.
    const int64_t window_to = records * 9 / 10;

    ordered_json sink_options =
        options.options.is_null() ? ordered_json::object() : ordered_json(options.options);
    if (options.sink == "kafka" && !sink_options.contains("topic"))
        sink_options["topic"] = "output";

    const ordered_json oracles = drawn_job_oracles(options, config, at_least_once);

    ordered_json doc;
    doc["description"] = "eosim testkit: sink \"" + options.sink + "\" in a drawn job (case " +
                         std::to_string(case_number) + " of check_sink_in_jobs, seed " +
                         std::to_string(options.seed) + ")";
    doc["world"] = {{"task_managers", 2},
                    {"slots_per_task_manager", (parallelism + 1) / 2},
                    {"spare_task_managers", 0},
                    {"kafka", {{"transaction_timeout", "60s"}}},
                    {"topics",
                     {{{"name", "input"}, {"partitions", parallelism}},
                      {{"name", "output"}, {"partitions", parallelism}}}}};
    // A JobManager crash in Flink's application mode without HA starts the job over: duplicates no
    // sink can prevent. The sink's recovery is what is judged: an operator's script resubmits the
    // job from the newest checkpoint listed in storage.
    doc["without_ha"] = "storage_listing";
    doc["job"] = count_job(options.sink, sink_options, parallelism, interval, at_least_once);
    doc["input"] = {
        {{"topic", "input"}, {"records", records}, {"keys", keys}, {"rate_per_second", 1000}}};
    doc["faults"] = {
        {"random",
         {{"mode", "swarm"},
          {"count", {{"min", 3}, {"max", 10}}},
          {"window", {{"from", "200ms"}, {"to", millis(window_to)}}},
          {"quiet_after", millis(window_to + 6000)},
          {"kinds", kinds},
          {"point_triggers", {{"ratio", "1/2"}, {"points", points}, {"max_occurrence", 12}}}}}};
    doc["oracles"] = oracles;
    doc["liveness_bound"] = "120s";
    doc["expect"] = "pass";

    std::ostringstream summary;
    summary << "parallelism " << parallelism << ", checkpoint every " << interval << " ms, mode "
            << (at_least_once ? "at_least_once" : "exactly_once") << ", " << records
            << " records over " << keys << " keys";
    // From a stream of its own: the job's other draws and the runs' seeds stay what they were
    // without it.
    sim::Prng rescales = prng.fork("rescale_after_failure");
    if (options.rescales && rescales.chance(sim::Ratio{3, 4}))
        summary << draw_rescale_after_failure(doc, parallelism, records, rescales);
    return DrawnJob{std::move(doc), summary.str(), at_least_once};
}

void write_file(const std::filesystem::path& path, const ordered_json& doc) {
    std::ofstream out(path);
    out << doc.dump(2) << "\n";
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

std::string failed_oracles(const scenarios::RunResult& result) {
    std::string out;
    for (const auto& v : result.verdicts) {
        if (!v.passed) out += "  oracle " + std::string(v.oracle) + ": " + v.message + "\n";
    }
    if (!result.job_finished) out += "  the job did not finish\n";
    if (out.empty()) out = "  " + result.expectation_message + "\n";
    return out;
}

std::string run_figures(const scenarios::RunResult& result) {
    return std::to_string(result.figures.records_in) + " records in, " +
           std::to_string(result.figures.faults_injected) + " faults injected, " +
           std::to_string(result.figures.restarts) + " restarts, " +
           std::to_string(result.figures.checkpoints_completed) + " checkpoints completed";
}

// A failing run, written as the file to replay: shrunk when asked (and possible), else the drawn
// case's own file. `run` is the run the file reproduces (the shrunk run's result, or the failing
// one).
struct FailureFile {
    std::filesystem::path file;
    scenarios::RunResult run;
    std::string shrinking;  // how it was shrunk, for the report ("" when not)
};

FailureFile write_failure_file(const JobOptions& options, const ordered_json& document,
                               const scenarios::Scenario& scenario,
                               const std::filesystem::path& case_file, uint64_t seed,
                               const scenarios::RunResult& result) {
    FailureFile out{case_file, result, ""};
    if (!options.shrink) return out;
    scenarios::ShrinkOptions shrink;
    shrink.max_replays = 200;
    auto shrunk = scenarios::shrink_failing_run(scenario, seed, shrink);
    if (!shrunk || !shrunk->last.result) return out;
    std::filesystem::path file = case_file;
    file.replace_extension();
    file += "-seed-" + std::to_string(seed) + ".shrunk.json";
    write_file(file,
               scenarios::shrunk_scenario_document(document, *shrunk, case_file.string(), seed));
    out.file = file;
    out.run = *shrunk->last.result;
    out.shrinking = "shrunk in " + std::to_string(shrunk->replays) + " replays to " +
                    std::to_string(shrunk->faults_after.size()) + " fault(s) (from " +
                    std::to_string(shrunk->faults_before.size()) +
                    "); before shrinking: " + run_figures(result) + "\n";
    return out;
}

// Loads `written` as `eosim run` does (scenarios::load_scenario: a file the loader refuses throws
// here, as the CLI exits 2) and runs it with `seed`: whether it fails as `run` did.
bool replays_the_same(const FailureFile& written, uint64_t seed) {
    const scenarios::Scenario loaded = scenarios::load_scenario(written.file);
    scenarios::RunOptions run;
    run.seed = seed;
    run.max_events = 50'000'000;
    const scenarios::Replay replay{scenarios::run_scenario(loaded, run), ""};
    const auto target = scenarios::failure_of(written.run);
    return target && scenarios::shows(replay, *target) &&
           replay.result->trace_hash == written.run.trace_hash;
}

}  // namespace

std::vector<std::string> job_oracles(const JobOptions& options, const engine::SinkConfig& config) {
    const bool table = config.output_shape() == engine::SinkOutputShape::keyed_table;
    if (!options.oracles.empty()) {
        for (const std::string& name : options.oracles) {
            if (table && name == "at_least_once_output") {
                throw std::invalid_argument(
                    "JobOptions::oracles: at_least_once_output reads the sink's output as appended records; a keyed "
                    "table is judged by exactly_once_output (its final table, which duplicates cannot change)");
            }
            if (!table && name == "no_key_backwards") {
                throw std::invalid_argument(
                    "JobOptions::oracles: no_key_backwards judges a keyed table; the sink's output is appended");
            }
        }
        return options.oracles;
    }
    if (table && options.guarantee == Guarantee::exactly_once)
        return {"exactly_once_output", "no_key_backwards", "state_after_restore", "liveness"};
    if (table) return {"exactly_once_output", "state_after_restore", "liveness"};
    if (options.guarantee == Guarantee::at_least_once)
        return {"at_least_once_output", "state_after_restore", "liveness"};
    std::vector<std::string> out = {"exactly_once_output", "state_after_restore", "liveness"};
    if (!config.kafka_topic().empty()) out.emplace_back("visibility");
    return out;
}

namespace {

// The fault kinds to draw: the applicable ones, or the user's choice with its weights.
ordered_json chosen_kinds(const JobOptions& options, const engine::SinkConfig& config,
                          const std::vector<std::string>& systems) {
    ordered_json kinds = applicable_kinds(config, systems, options.races);
    if (options.faults.empty()) return kinds;
    ordered_json chosen = ordered_json::object();
    for (const auto& [kind, weight] : options.faults) {
        if (!kinds.contains(kind)) {
            std::string known;
            for (const auto& [name, spec] : kinds.items()) known += " " + name;
            throw std::invalid_argument("JobOptions::faults: \"" + kind +
                                        "\" is not a fault kind that applies to sink \"" +
                                        options.sink + "\"; those that do:" + known);
        }
        if (weight < 0 || weight > 1000)
            throw std::invalid_argument("JobOptions::faults[\"" + kind +
                                        "\"]: a weight in 0..1000");
        if (weight == 0) continue;
        chosen[kind] = kinds[kind];
        chosen[kind]["weight"] = weight;
    }
    if (chosen.empty()) throw std::invalid_argument("JobOptions::faults: every weight is 0");
    return chosen;
}

struct PathCounts {
    std::map<std::string, int64_t> fired;
    std::map<std::string, int64_t> points_placed;
    std::map<std::string, int64_t> points_hit;
    int64_t commit_errors = 0;
    int64_t commit_outcomes_unknown = 0;
    int64_t outside_calls_failed = 0;
    int64_t fenced_calls = 0;

    // `scheduled`: the scenario's own faults, which come first in a run's plan (the draw after
    // them).
    void add(const scenarios::RunResult& result, size_t scheduled) {
        std::vector<bool> fired_at(result.fault_draw ? result.fault_draw->faults.size() : 0, false);
        for (const sim::FiredFault& f : result.faults) {
            if (f.skipped) continue;
            ++fired[sim::to_string(f.kind)];
            if (f.plan_index >= scheduled && f.plan_index - scheduled < fired_at.size())
                fired_at[f.plan_index - scheduled] = true;
        }
        if (result.fault_draw) {
            for (size_t i = 0; i < result.fault_draw->faults.size(); ++i) {
                const std::string& point = result.fault_draw->faults[i].trigger.point;
                if (point.empty()) continue;
                ++points_placed[point];
                if (fired_at[i]) ++points_hit[point];
            }
        }
        commit_errors += result.figures.commit_errors;
        commit_outcomes_unknown += result.figures.commit_outcomes_unknown;
        outside_calls_failed += result.figures.outside_calls_failed;
        fenced_calls += result.figures.fenced_calls;
    }

    std::string report(const ordered_json& kinds, const std::vector<std::string>& points) const {
        std::ostringstream out;
        out << "fault paths (faults that fired, by kind):\n";
        for (const auto& [kind, spec] : kinds.items()) {
            auto it = fired.find(kind);
            out << "  " << kind << ": " << (it == fired.end() ? 0 : it->second) << "\n";
        }
        out << "  their answers: " << commit_errors << " Kafka commits answered with an error, "
            << commit_outcomes_unknown << " applied with the answer lost, " << outside_calls_failed
            << " outside-system calls failed, " << fenced_calls << " Kafka calls fenced\n";
        out << "protocol points (point faults placed / fired):";
        std::vector<std::string> silent;
        for (const std::string& point : points) {
            auto placed = points_placed.find(point);
            auto hit = points_hit.find(point);
            const int64_t p = placed == points_placed.end() ? 0 : placed->second;
            const int64_t h = hit == points_hit.end() ? 0 : hit->second;
            out << " " << point << " " << p << "/" << h;
            if (p > 0 && h == 0 && point.rfind("sink.", 0) == 0) silent.push_back(point);
        }
        out << "\n";
        for (const std::string& point : silent) {
            out << "  the sink never announced " << point
                << ": faults placed there never fired (eosim::engine::announce_point, engine/connectors/sink_points.h)\n";
        }
        return out.str();
    }

    // The counts into the result: kinds fired, points hit, and the report of both.
    void finish(const ordered_json& kinds, const std::vector<std::string>& points,
                JobResult& out) const {
        out.faults_fired = fired;
        out.points_hit = points_hit;
        out.fault_paths = report(kinds, points);
    }
};

}  // namespace

namespace {

// The report of a failing run and the file that replays it: the headline and the oracles are the
// replayed (shrunk) run's, the figures before shrinking follow.
void report_failure(const JobOptions& options, const DrawnJob& job, int case_number, uint64_t seed,
                    const FailureFile& written, const std::filesystem::path& dir, JobResult& out) {
    out.scenario_file = written.file.string();
    out.failing_seed = seed;
    scenarios::Reproducer replay;
    replay.program = options.eosim_command;
    replay.file = out.scenario_file;
    replay.seed = seed;
    out.reproduce = replay.text();
    out.reproducer_replays = replays_the_same(written, seed);
    for (const auto& v : written.run.verdicts) {
        if (!v.passed) out.failed_oracles.emplace_back(v.oracle);
    }
    std::ostringstream report;
    report << "sink \"" << options.sink << "\" FAILED in a job (case " << case_number << ": "
           << job.summary << "), seed " << seed
           << "; the run in the file: " << run_figures(written.run) << "\n"
           << failed_oracles(written.run) << written.shrinking;
    report << "scenario file: " << out.scenario_file << "\n"
           << "replay it:     " << out.reproduce << "\n"
           << "HTML timeline: " << options.eosim_command << " suite " << out.scenario_file
           << " --seeds " << seed << " --report " << (dir / "report").string()
           << "   (open report/index.html)\n";
    if (!out.reproducer_replays) {
        report
            << "TESTKIT ERROR: the file, loaded and run with seed " << seed
            << ", does not fail the same way (same oracles, same trace hash): please report it\n";
    }
    out.report = report.str() + out.fault_paths;
}

// What was asked for and never exercised (require_requested): " fault kind X never fired; ...".
std::string never_exercised(const JobOptions& options, const PathCounts& paths) {
    std::string missing;
    if (!options.require_requested) return missing;
    for (const auto& [kind, weight] : options.faults) {
        if (weight > 0 && !paths.fired.contains(kind))
            missing += " fault kind " + kind + " never fired;";
    }
    for (const std::string& point : options.points) {
        if (!paths.points_hit.contains(point)) missing += " no fault fired at point " + point + ";";
    }
    return missing;
}

// The verdict and report of runs that all met their expectation.
void report_pass(const JobOptions& options, const PathCounts& paths, JobResult& out) {
    const std::string missing = never_exercised(options, paths);
    out.passed = missing.empty();
    out.report =
        "sink \"" + options.sink + "\" passed " + std::to_string(out.runs) + " job runs (" +
        std::to_string(options.cases) + " drawn jobs x " + std::to_string(options.runs_per_case) +
        " seeds; " + std::to_string(out.records_in) + " records in, " +
        std::to_string(out.faults_injected) + " faults injected, " + std::to_string(out.restarts) +
        " restarts, " + std::to_string(out.checkpoints_completed) + " checkpoints completed)\n" +
        (missing.empty() ? std::string()
                         : "FAILED: what was asked for was not exercised:" + missing + "\n") +
        out.fault_paths;
}

// One run of a drawn job, its figures added to the result's.
scenarios::RunResult run_case(const scenarios::Scenario& scenario, uint64_t seed, PathCounts& paths,
                              JobResult& out) {
    scenarios::RunOptions run;
    run.seed = seed;
    run.max_events = 50'000'000;
    scenarios::RunResult result = scenarios::run_scenario(scenario, run);
    out.records_in += result.figures.records_in;
    out.faults_injected += result.figures.faults_injected;
    out.restarts += result.figures.restarts;
    out.checkpoints_completed += result.figures.checkpoints_completed;
    paths.add(result, scenario.faults.size());
    return result;
}

}  // namespace

JobResult check_sink_in_jobs(const JobOptions& options) {
    ContractOptions contract;
    contract.sink = options.sink;
    contract.options = options.options;
    std::vector<std::string>
        systems;  // the registered outside systems the sink asked for: their faults are drawn too
    const auto config =
        configure_sink_recording(contract, &systems);  // unknown kinds and bad options fail here
    (void)job_oracles(options, *config);               // a misfit oracle fails here, before any run
    const ordered_json kinds = chosen_kinds(options, *config, systems);
    const std::vector<std::string> points =
        job_points(options, *config);  // a sink point it does not declare fails here

    const std::filesystem::path dir = std::filesystem::absolute(options.output_dir);
    std::filesystem::create_directories(dir);
    JobResult out;
    PathCounts paths;
    const sim::Prng root(options.seed);
    for (int c = 1; c <= options.cases; ++c) {
        sim::Prng prng = root.fork(static_cast<uint64_t>(c));
        const DrawnJob job = draw_job(options, *config, kinds, points, prng, c);
        const std::filesystem::path file =
            dir / (options.sink + "-case-" + std::to_string(c) + ".json");
        write_file(file, job.document);
        if (job.at_least_once) ++out.jobs_at_least_once;
        const scenarios::Scenario scenario = scenarios::load_scenario(file);
        require_reachable(options.points, scenario);
        for (int r = 0; r < options.runs_per_case; ++r) {
            const uint64_t seed = prng.between(1, 1'000'000);
            const scenarios::RunResult result = run_case(scenario, seed, paths, out);
            if (scenarios::run_outcome_met(result)) {
                ++out.runs;
                continue;
            }
            paths.finish(kinds, points, out);
            report_failure(options, job, c, seed,
                           write_failure_file(options, job.document, scenario, file, seed, result),
                           dir, out);
            return out;
        }
    }
    for (int c = 1; c <= options.cases; ++c) {
        std::filesystem::remove(
            dir / (options.sink + "-case-" + std::to_string(c) + ".json"));  // only failures stay
    }
    std::error_code ignored;
    std::filesystem::remove(dir, ignored);  // when empty
    paths.finish(kinds, points, out);
    report_pass(options, paths, out);
    return out;
}

}  // namespace eosim::testkit
