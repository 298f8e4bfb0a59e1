#pragma once
// The job-level property test of a sink: the sink inside whole simulated jobs, checked by the
// project's oracles (exactly_once_output, at_least_once_output, state_after_restore, visibility for
// a Kafka sink, liveness).
//
//     eosim::testkit::JobOptions options;
//     options.sink = "my_sink";  options.options = {{"path", "out/"}};
//     const auto result = eosim::testkit::check_sink_in_jobs(options);
//     INFO(result.report);
//     REQUIRE(result.passed);
//
// Each case draws (from `seed`, deterministically) a job -- Kafka source -> keyed running count ->
// the sink, parallelism 1..4 on two TaskManagers, a checkpoint interval of 200 ms..1 s, checkpointing
// mode exactly_once (or at_least_once when `modes_at_least_once`, then only the at-least-once and
// liveness oracles apply), 2000..8000 input records (1000 a second) over 1..64 keys -- and a swarm fault schedule
// (crashes, pauses, partitions, message loss of checkpoint messages, storage and Kafka faults,
// faults of the sink's outside systems, faults placed at protocol points such as sink.precommitted
// and checkpoint.completed), writes it as a scenario file, and runs it with `runs_per_case` seeds.
//
// On a failure the run is shrunk (scenarios/shrinker.h) and the report gives the seed, the
// standalone scenario file (in `output_dir`) and the command that replays it with the user's own
// eosim binary (one that links eosim::main and registers the sink):  <eosim> run FILE --seed N
// and the HTML timeline:  <eosim> suite FILE --seeds N --report DIR.
//
// Not checked: anything the oracles do not (see oracles/README.md); parallel sinks writing the same
// outside-system resources are the sink kind's claims() business.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace eosim::testkit {

struct JobOptions {
    std::string sink = "kafka";  // a registered sink kind (scenario files name it)
    nlohmann::json options = nlohmann::json::object();  // its "options" ("topic" defaults to "output")
    int cases = 10;              // drawn job configurations
    int runs_per_case = 2;       // seeds per configuration
    uint64_t seed = 1;
    bool modes_at_least_once = false;  // also draw checkpointing mode at_least_once
    bool shrink = true;          // shrink a failing run before reporting it
    std::string output_dir = "eosim-testkit-failures";  // where failing scenario files stay (created; removed when empty)
    std::string eosim_command = "eosim";  // how the report names the user's binary
};

struct JobResult {
    bool passed = false;
    int runs = 0;          // runs that passed before the verdict
    std::string report;    // on a failure: seed, oracle, scenario file, replay command
    std::string scenario_file;  // the failing (shrunk) scenario, when one failed
    uint64_t failing_seed = 0;
    // Over the runs made: what the faults did (a check that faults reached the jobs at all).
    int64_t records_in = 0;
    int64_t faults_injected = 0;
    int64_t restarts = 0;
    int64_t checkpoints_completed = 0;
    int jobs_at_least_once = 0;  // drawn jobs with checkpointing mode at_least_once
    explicit operator bool() const { return passed; }
};

JobResult check_sink_in_jobs(const JobOptions& options);

}  // namespace eosim::testkit
