#include "testkit/sink_jobs.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenarios/scenario.h"
#include "scenarios/scenario_run.h"
#include "scenarios/shrinker.h"
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

DrawnJob draw_job(const JobOptions& options, const engine::SinkConfig& config, const std::vector<std::string>& systems,
                  sim::Prng& prng, int case_number) {
    const int64_t parallelism = prng.between(1, 4);
    const int64_t interval = prng.between(200, 1000);
    const bool at_least_once = options.modes_at_least_once && prng.chance(sim::Ratio{1, 4});
    const int64_t records = prng.between(2000, 8000);
    const int64_t keys = prng.between(1, 64);
    // Faults fire while the input still flows (1000 records a second): a bounded job ends soon after.
    const int64_t window_to = records * 9 / 10;

    ordered_json sink_options = options.options.is_null() ? ordered_json::object() : ordered_json(options.options);
    if (options.sink == "kafka" && !sink_options.contains("topic")) sink_options["topic"] = "output";

    ordered_json kinds = {
        {"crash", {{"weight", 8}, {"restart_delay", {{"min", "200ms"}, {"max", "3s"}}}, {"nodes", {"jobmanager", "tm0", "tm1"}}}},
        {"pause", {{"duration", {{"min", "200ms"}, {"max", "3s"}}}, {"nodes", {"jobmanager", "tm0", "tm1"}}}},
        {"partition", {{"duration", {{"min", "200ms"}, {"max", "5s"}}}}},
        {"slow_link", ordered_json::object()},
        {"storage_failure", ordered_json::object()},
        {"storage_slow", ordered_json::object()},
        {"broker_unavailable", ordered_json::object()},
        {"kafka_write_failure", ordered_json::object()},
        {"message_loss",
         {{"messages", {"checkpoint.notify_complete", "checkpoint.notify_aborted", "checkpoint.acknowledge", "checkpoint.trigger"}},
          {"ratio", {{"min", "1/2"}, {"max", "1/1"}}}}},
    };
    if (!systems.empty()) {
        kinds["system_unavailable"] = {{"systems", systems}, {"duration", {{"min", "100ms"}, {"max", "2s"}}}};
        kinds["system_write_errors"] = {{"systems", systems}, {"duration", {{"min", "100ms"}, {"max", "2s"}}}};
    }
    ordered_json oracles = at_least_once ? ordered_json{"at_least_once_output", "liveness"}
                                         : ordered_json{"exactly_once_output", "at_least_once_output", "state_after_restore", "liveness"};
    if (!at_least_once && !config.kafka_topic().empty()) oracles.push_back("visibility");

    ordered_json doc;
    doc["description"] = "eosim testkit: sink \"" + options.sink + "\" in a drawn job (case " + std::to_string(case_number) +
                         " of check_sink_in_jobs, seed " + std::to_string(options.seed) + ")";
    doc["world"] = {{"task_managers", 2},
                    {"slots_per_task_manager", (parallelism + 1) / 2},
                    {"spare_task_managers", 0},
                    {"kafka", {{"transaction_timeout", "60s"}}},
                    {"topics", {{{"name", "input"}, {"partitions", parallelism}}, {{"name", "output"}, {"partitions", parallelism}}}}};
    doc["job"] = {
        {"name", "count"},
        {"vertices",
         {{{"id", "source"}, {"kind", "kafka_source"}, {"topic", "input"}, {"parallelism", parallelism}},
          {{"id", "count"}, {"kind", "keyed_count"}, {"parallelism", parallelism}, {"inputs", {{{"from", "source"}, {"edge", "hash"}}}}},
          {{"id", "sink"},
           {"kind", "sink"},
           {"sink", options.sink},
           {"options", sink_options},
           {"parallelism", parallelism},
           {"inputs", {{{"from", "count"}, {"edge", "forward"}}}}}}},
        {"checkpointing", {{"mode", at_least_once ? "at_least_once" : "exactly_once"}, {"interval", millis(interval)}}},
        {"restart", {{"max_attempts", 30}, {"delay", "1s"}}}};
    doc["input"] = {{{"topic", "input"}, {"records", records}, {"keys", keys}, {"rate_per_second", 1000}}};
    doc["faults"] = {{"random",
                      {{"mode", "swarm"},
                       {"count", {{"min", 3}, {"max", 10}}},
                       {"window", {{"from", "200ms"}, {"to", millis(window_to)}}},
                       {"quiet_after", millis(window_to + 6000)},
                       {"kinds", kinds},
                       {"point_triggers",
                        {{"ratio", "1/2"},
                         {"points", {"sink.precommitted", "sink.committed", "checkpoint.completed", "failover.started",
                                     "task.restoring", "barrier.alignment_started"}},
                         {"max_occurrence", 12}}}}}};
    doc["oracles"] = oracles;
    doc["liveness_bound"] = "120s";
    doc["expect"] = "pass";

    std::ostringstream summary;
    summary << "parallelism " << parallelism << ", checkpoint every " << interval << " ms, mode "
            << (at_least_once ? "at_least_once" : "exactly_once") << ", " << records << " records over " << keys << " keys";
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

}  // namespace

JobResult check_sink_in_jobs(const JobOptions& options) {
    ContractOptions contract;
    contract.sink = options.sink;
    contract.options = options.options;
    std::vector<std::string> systems;  // the registered outside systems the sink asked for: their faults are drawn too
    const auto config = configure_sink_recording(contract, &systems);  // unknown kinds and bad options fail here

    const std::filesystem::path dir = std::filesystem::absolute(options.output_dir);
    std::filesystem::create_directories(dir);
    JobResult out;
    const sim::Prng root(options.seed);
    for (int c = 1; c <= options.cases; ++c) {
        sim::Prng prng = root.fork(static_cast<uint64_t>(c));
        const DrawnJob job = draw_job(options, *config, systems, prng, c);
        const std::filesystem::path file = dir / (options.sink + "-case-" + std::to_string(c) + ".json");
        write_file(file, job.document);
        if (job.at_least_once) ++out.jobs_at_least_once;
        const scenarios::Scenario scenario = scenarios::load_scenario(file);
        for (int r = 0; r < options.runs_per_case; ++r) {
            const uint64_t seed = prng.between(1, 1'000'000);
            scenarios::RunOptions run;
            run.seed = seed;
            run.max_events = 50'000'000;
            const scenarios::RunResult result = scenarios::run_scenario(scenario, run);
            out.records_in += result.figures.records_in;
            out.faults_injected += result.figures.faults_injected;
            out.restarts += result.figures.restarts;
            out.checkpoints_completed += result.figures.checkpoints_completed;
            if (scenarios::run_outcome_met(result)) {
                ++out.runs;
                continue;
            }
            std::ostringstream report;
            report << "sink \"" << options.sink << "\" FAILED in a job (case " << c << ": " << job.summary << "), seed "
                   << seed << "\n"
                   << failed_oracles(result);
            std::filesystem::path replay = file;
            if (options.shrink) {
                scenarios::ShrinkOptions shrink;
                shrink.max_replays = 200;
                if (auto shrunk = scenarios::shrink_failing_run(scenario, seed, shrink)) {
                    replay = dir / (options.sink + "-case-" + std::to_string(c) + "-seed-" + std::to_string(seed) + ".shrunk.json");
                    write_file(replay, scenarios::shrunk_scenario_document(job.document, *shrunk, file.string(), seed));
                    report << "shrunk in " << shrunk->replays << " replays to " << shrunk->faults_after.size()
                           << " fault(s) (from " << shrunk->faults_before.size() << ")\n";
                }
            }
            report << "scenario file: " << replay.string() << "\n"
                   << "replay it:     " << options.eosim_command << " run " << replay.string() << " --seed " << seed << "\n"
                   << "HTML timeline: " << options.eosim_command << " suite " << replay.string() << " --seeds " << seed
                   << " --report " << (dir / "report").string() << "   (open report/index.html)\n";
            out.report = report.str();
            out.scenario_file = replay.string();
            out.failing_seed = seed;
            return out;
        }
    }
    for (int c = 1; c <= options.cases; ++c) {
        std::filesystem::remove(dir / (options.sink + "-case-" + std::to_string(c) + ".json"));  // only failures stay
    }
    std::error_code ignored;
    std::filesystem::remove(dir, ignored);  // when empty
    out.passed = true;
    out.report = "sink \"" + options.sink + "\" passed " + std::to_string(out.runs) + " job runs (" +
                 std::to_string(options.cases) + " drawn jobs x " + std::to_string(options.runs_per_case) + " seeds; " +
                 std::to_string(out.records_in) + " records in, " + std::to_string(out.faults_injected) + " faults injected, " +
                 std::to_string(out.restarts) + " restarts, " + std::to_string(out.checkpoints_completed) +
                 " checkpoints completed)";
    return out;
}

}  // namespace eosim::testkit
