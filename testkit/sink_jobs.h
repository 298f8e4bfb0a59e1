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
// the sink, parallelism 1..4 on two TaskManagers, a checkpoint interval of 200 ms..1 s,
// checkpointing mode exactly_once (or at_least_once when `modes_at_least_once`), 2000..8000 input
// records (1000 a second) over 1..64 keys -- and a swarm fault schedule, writes it as a scenario
// file, and runs it with `runs_per_case` seeds. With `rescales` (on), three jobs in four fail over
// at another parallelism: a TaskManager crashes and, before it is back, the job is cancelled and
// restarted from its latest retained checkpoint with the count and the sink at another parallelism
// (in, three times out of four when both are possible): a deployment "from": "latest checkpoint",
// as the adaptive scheduler or a user restarting with another -p does (drawn from a stream of its
// own).
//
// Faults (`faults`: scenario fault kinds and weights; empty: every kind that applies): crashes,
// pauses, partitions, slow links, checkpoint-storage faults, message loss of checkpoint messages,
// Kafka broker_unavailable and kafka_write_failure (the source reads Kafka), a Kafka sink's
// kafka_commit_errors and kafka_commit_outcome_unknown, system_unavailable and system_write_errors
// of the outside systems the sink asked for (SinkWorld::has_system), bulk_partial_failure of one
// with bulk requests, system_call_races of them (`races`, on by default: for 200 ms..3 s each write
// races with 1/10..1/2: its answer lost after it applied, landing late after later calls, or lost;
// sim/external/call_races.h); half of them placed at protocol points (`points`; by default the sink
// points the sink declares -- SinkConfig::announced_points(), the list the loader trusts -- and
// checkpoint.completed, failover.started, task.restoring, barrier.alignment_started; a requested
// sink point the sink does not declare, or a point the drawn jobs never announce, is an
// std::invalid_argument). Not drawn: transaction_abort (the broker aborting a
// pre-committed transaction loses data whatever the sink does). After the runs, `fault_paths` says
// how often each kind fired and each point was hit; a kind named in `faults` that never fired, or a
// point named in `points` that was never hit, fails the check (with `require_requested`).
//
// Oracles (`oracles`; empty: job_oracles()): an appended exactly-once sink: exactly_once_output,
// state_after_restore, liveness, and visibility when it writes Kafka; an appended at-least-once
// sink: at_least_once_output (nothing lost, duplicates counted), state_after_restore, liveness; a
// keyed table: exactly_once_output (the final table: one row per key holding its final value),
// no_key_backwards when it promises exactly-once (a reader polling the table every 20 ms never sees
// a key's value -- its running count -- go back), state_after_restore, liveness. Jobs drawn with
// checkpointing mode at_least_once keep only at_least_once_output (appended output) and liveness:
// their keyed state, and with it a keyed table's values, may count a record twice.
//
// On a failure the run is shrunk (scenarios/shrinker.h) and the report gives the seed, the shrunk
// run's oracles and figures (the figures before shrinking after them), the standalone scenario file
// (in `output_dir`) and the command that replays it with the user's own eosim binary (one that
// links eosim::main and registers the sink):  <eosim> run FILE --seed N
// and the HTML timeline:  <eosim> suite FILE --seeds N --report DIR. Before reporting, the file is
// loaded as `eosim run` loads it and run with the seed: it must fail the same way (same oracles,
// same trace hash; JobResult::reproducer_replays).
//
// Not checked: anything the oracles do not (see oracles/README.md); a key going backwards and
// forwards again between two polls; parallel sinks writing the same outside-system resources are
// the sink kind's claims() business.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/sink_registry.h"
#include "testkit/sink_contract.h"

namespace eosim::testkit {

struct JobOptions {
    std::string sink = "kafka";  // a registered sink kind (scenario files name it)
    nlohmann::json options =
        nlohmann::json::object();  // its "options" ("topic" defaults to "output")
    int cases = 10;                // drawn job configurations
    int runs_per_case = 2;         // seeds per configuration
    uint64_t seed = 1;
    bool modes_at_least_once = false;               // also draw checkpointing mode at_least_once
    Guarantee guarantee = Guarantee::exactly_once;  // what the sink promises
    std::vector<std::string>
        oracles;  // the oracles of an exactly_once-mode job; empty: job_oracles()
    std::map<std::string, int> faults;  // fault kind -> weight; empty: every kind that applies
    std::vector<std::string>
        points;  // protocol points faults are placed at; empty: the defaults above
    bool require_requested = true;  // a requested kind that never fired, a point never hit: failed
    bool races = true;              // draw system_call_races too (calls that race; see above)
    bool rescales = true;  // three jobs in four fail over at another parallelism (see above)
    bool shrink = true;    // shrink a failing run before reporting it
    std::string output_dir = "eosim-testkit-failures";  // where failing scenario files stay
                                                        // (created; removed when empty)
    std::string eosim_command = "eosim";                // how the report names the user's binary
};

struct JobResult {
    bool passed = false;
    int runs = 0;               // runs that passed before the verdict
    std::string report;         // on a failure: seed, oracle, scenario file, replay command
    std::string scenario_file;  // the failing (shrunk) scenario, when one failed
    uint64_t failing_seed = 0;
    // The command that replays it (scenarios/reproducer.h): `<eosim_command> run FILE --seed N`.
    std::string reproduce;
    std::vector<std::string> failed_oracles;  // the oracles that fired in the run the file replays
    // The file, loaded as `eosim run` loads it and run with `failing_seed`, failed the same way
    // (the same oracles, the same trace hash); checked for every file written (false: a testkit
    // bug, said so in the report).
    bool reproducer_replays = false;
    // Over the runs made: what the faults did (a check that faults reached the jobs at all).
    int64_t records_in = 0;
    int64_t faults_injected = 0;
    int64_t restarts = 0;
    int64_t checkpoints_completed = 0;
    int jobs_at_least_once = 0;  // drawn jobs with checkpointing mode at_least_once
    std::map<std::string, int64_t>
        faults_fired;  // fault kind -> faults that fired (and did something)
    std::map<std::string, int64_t> points_hit;  // protocol point -> point faults that fired there
    std::string fault_paths;  // the two maps above and the outside systems' answers, for people
    explicit operator bool() const { return passed; }
};

JobResult check_sink_in_jobs(const JobOptions& options);

// The oracles of an exactly_once-mode job (see above): `options.oracles`, or the defaults for the
// shape and guarantee. Throws std::invalid_argument for one that misjudges the shape
// (at_least_once_output reads a keyed table as appended records).
std::vector<std::string> job_oracles(const JobOptions& options, const engine::SinkConfig& config);

}  // namespace eosim::testkit
