#pragma once
// The contract-level property test of a sink: one call checks a sink kind against the sink
// contract (engine/connectors/sink.h) with rapidcheck's state-machine testing (rc::state).
//
//     eosim::testkit::ContractOptions options;
//     options.sink = "my_sink";                          // a registered kind (EOSIM_REGISTER_SINK)
//     options.options = {{"path", "out/"}};              // its scenario "options"
//     const auto result = eosim::testkit::check_sink_contract(options);
//     INFO(result.report);
//     REQUIRE(result.passed);
//
// or, inside a Catch2 test with rapidcheck's own glue:  rc::prop("my sink",
// sink_contract_property(options));
//
// What one case does: the testkit builds a simulated world (sim::World with a seed drawn by
// rapidcheck) with every outside system of the package (Kafka with topic "output", the append
// store, the object store "objects", the document store "documents", the key-value store
// "key_values", the database "database"), makes the sink through its SinkConfig, and drives the
// sink's parallel subtasks (1..`parallelism`, drawn per case: half the cases one subtask) and
// their later incarnations through a random sequence of commands, each addressed to a subtask
// where it matters (the report says "incarnation 2, subtask 1 pre-commits"; a command's subtask is
// taken modulo the subtasks running). Each subtask has its own SinkContext (subtask index, attempt,
// node): the job's records are keyed to subtask key % parallelism.
//   write N records (a deterministic job's output: after a restore the records after the restored
//   checkpoint are written again, in the same order, as a replaying job would), pre-commit (one
//   subtask takes the checkpoint's barrier: it writes its records before the barrier, then
//   pre-commits; the checkpoint is pre-committed when every subtask has, as Flink's
//   two-phase-commit sink), complete a pre-committed checkpoint with its notification delivered,
//   lost, or held back and delivered late (possibly after newer ones, possibly to a cancelled
//   instance), crash (the instance's node dies), crash at the next announcement of a sink point
//   (engine/connectors/sink_points.h: the node dies in the middle of the step that announces it),
//   and cancel (the job fails over without reaching the instance: it lives on as a zombie, still
//   open -- it may write, pre-commit the barrier in flight at the failover (once) and get a
//   notification -- until a later command, or
//   the end, closes it; after close() nothing reaches it but its own `after` timers and its calls'
//   late answers: the life of testkit/README.md), each followed by a new incarnation opened with
//   the sink states of the latest completed checkpoint (as Flink restores; completing a later
//   checkpoint subsumes -- aborts -- the pre-committed ones before it), at the same parallelism or,
//   half of the time, at a drawn 1..`parallelism` (a rescale after a failure, in or out: a restart
//   from a retained checkpoint with another -p, the adaptive scheduler; a restore from scratch
//   keeps the parallelism), outside-system faults of the systems the sink uses (see `faults`
//   below), and the passing of virtual time (retries, timeouts). A sink that fails
//   (SinkContext::fail, a pre-commit that returns false) is failed over the same way.
// After every step it reads what the outside system shows (SinkConfig::read_output) and checks
// (by the names of the job level's oracles, `oracles` below):
//   - always: every visible record (appended) or value (keyed table) was written;
//   - "visibility": every visible record belongs to a completed checkpoint (a two-phase-commit
//   sink);
//   - "exactly_once_output": appended: no record is visible twice; at the end the output equals,
//     as a multiset, exactly the records of the completed checkpoints; keyed table: at the end one
//     row per key holding the last value of the completed checkpoints' records for that key;
//   - "at_least_once_output": at the end every record of the completed checkpoints is there
//     (duplicates allowed); keyed table: the final table as above (a table shows no duplicates);
//   - "no_key_backwards" (keyed table): no key's value goes backwards (values grow with the job's
//     output order; a replay that rewrites older values over newer ones breaks it);
//   - "no_leaks" (only when asked for): at the end no multipart upload and no Kafka transaction is
//     still open, and no timer of a closed instance fires in the 10 s after the final checkpoint (a
//     retry loop that never stops). The report always counts what was left open.
//   - "freshness" (a sink writing Kafka): at the end no open Kafka transaction holds records on the
//     topic -- read_committed readers would wait for the broker's transaction timeout (lingering
//     transactions nobody aborted, e.g. a removed subtask's after a scale-in: FLINK-23854).
// Defaults (contract_checks()): an appended exactly-once sink: exactly_once_output + visibility
// (unless `visibility` is eventually), + freshness when it writes Kafka; an appended at-least-once
// sink: at_least_once_output; a
// keyed table, exactly-once: exactly_once_output + no_key_backwards; at-least-once:
// at_least_once_output. A keyed table is checked for visibility only when `visibility` says so.
// At the end it heals every fault, lets the live instance catch up and completes a final
// checkpoint.
//
// Faults (`faults`, names as in scenario files): by default every kind that applies to the systems
// the sink uses (the systems its kind asked for with SinkWorld::has_system, plus Kafka when it
// writes a Kafka topic; all of them when it names none): Kafka broker_unavailable,
// kafka_write_failure, kafka_commit_errors, kafka_commit_outcome_unknown; system_unavailable,
// system_write_errors of every other system, bulk_partial_failure of the document store,
// system_call_races of the object store, document store, key-value store and database; plus
// crash, crash_at_point, zombie (a cancel), notification_lost, notification_late and
// stop_with_savepoint (every subtask pre-commits a savepoint, it completes and every subtask is
// notified -- Flink's stop-with-savepoint waits for that --, the subtasks are closed -- their
// timers, like any closed instance's, still fire -- and the job stays stopped until a command
// restores it from the savepoint with 1..`parallelism` subtasks: a rescale, out or in, when that
// differs. A restored subtask gets the sink states the engine would give it
// (engine::restoring_subtask: old subtask j goes to j % parallelism, so on a scale-in the removed
// subtasks' states too; a subtask beyond the old parallelism gets none).
//
// Calls that race (`races`, on by default; sim/external/call_races.h): a system_call_races command
// gives the next 1-6 writes to a system (whoever makes them: the live instance, a zombie) each a
// delivery: answered; applied with the answer lost (the caller sees `timeout`; its retry lands a
// second time); late (the caller sees `timeout`; the write lands 1-8 calls later, after other
// clients' writes, the caller's own retry, or the reader's read after a step -- the reader is a
// client too --, or within a second); or lost (`timeout`, never
// applied). The database's commits race (answer lost, or lost); the other systems' writes. A
// failing case shrinks to the deliveries that matter (towards "answered"). Kafka's calls do not
// race (kafka_commit_outcome_unknown is its answer lost). Set `faults` to choose kinds and weights
// (weight 0 switches a kind off). After a run the report lists how often each kind was drawn and
// what it did, and how often the sink announced each point; a kind named in `faults` that was never
// drawn, or a point named in `points` that the sink never announced, fails the run (with
// `require_requested`, the default).
//
// On a failure the report gives the shrunk command sequence, what happened step by step (under each
// step the sink's calls to its outside systems, in order, with their arguments and answers, e.g.
// "incarnation 2 -> key_values: SET k3 7  => 7 (changed)"; Kafka's counted per step), the seed,
// and the line that replays exactly this case.
//
// Asynchronous calls (engine::SinkContext::call, `async_calls`): a sink may have several calls in
// flight. The contract level carries them itself, without latency: a call stays in flight until a
// command takes it a step -- its request lands at the system (applied), then its answer reaches the
// instance that made it -- and which call steps is drawn (answers overtake each other; a cancelled
// instance's answers reach it, in its own callback, after the next incarnation opened; a crash
// drops its instance's calls in flight: requests not landed never land). Letting time pass ends
// every call in flight, oldest first. A pre-commit asks Sink::prepare_pre_commit first and, while
// the sink says false, takes a call in flight a step (the command's drawn picks, then the oldest;
// with none in flight, 10 ms pass) -- as the engine's task waits, taking no input; a sink that
// never gets ready (2,000 steps) is a violation. Whether the sink calls asynchronously is found by
// a probe (one subtask writes a record of each key and pre-commits) unless `async_calls` says; only
// then are call steps drawn (the commands of a synchronous sink are drawn as before), and the final
// phase, once the faults are healed, has the live incarnation checkpoint everything it wrote and
// crash right after that checkpoint completed: its calls in flight die, so a completed checkpoint
// that still needed one of them shows missing records. The step log lists each call's sending,
// landing (with the system's call line) and answer, by call id and instance; the report counts the
// calls sent, answers reaching closed instances, answers overtaking older calls, pre-commits made
// with calls of their own still in flight and calls dropped by crashes.
//
// Not checked: latency, how many calls the sink makes, what it writes to places read_output does
// not read (read_output is the sink author's definition of "what a reader sees"), a rescale after a
// failure with no completed checkpoint (a restart from scratch keeps the parallelism: a sink then
// has no state telling it which subtasks ran before).
// A synchronous call is answered at once: races come from late and lost deliveries (above); calls
// in flight together, from asynchronous calls.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/connectors/sink_registry.h"
#include "engine/vocabulary/job_spec.h"

namespace eosim::testkit {

enum class Visibility : uint8_t {
    committed_only,  // only records of completed checkpoints may be visible (exactly-once, 2PC)
    eventually,      // uncommitted records may be visible (idempotent appends, upserts)
};

// What the sink promises.
enum class Guarantee : uint8_t {
    exactly_once,   // nothing lost, nothing twice (a keyed table: and no key goes backwards)
    at_least_once,  // nothing lost; duplicates allowed (a keyed table may go back during a replay)
};
const char* to_string(Guarantee guarantee);

struct ContractOptions {
    // The sink under test: a registered kind and its options, or a config made directly.
    std::string sink = "kafka";
    nlohmann::json options = nlohmann::json::object();
    std::shared_ptr<const engine::SinkConfig>
        config;  // when set, `sink` and `options` are not read
    Guarantee guarantee = Guarantee::exactly_once;
    // Whether uncommitted output may be visible. Unset: committed_only for an appended exactly-once
    // sink; not checked for an at-least-once sink or a keyed table.
    std::optional<Visibility> visibility;
    // The checks, by oracle name (see above); empty: those that fit the output shape and guarantee.
    std::vector<std::string> oracles;
    // Fault kinds (names above) and their weights; empty: every kind that applies, weight 1.
    std::map<std::string, int> faults;
    // The sink points a crash_at_point aims at (engine/connectors/sink_points.h, or the sink's own
    // names); empty: every point the sink declares (SinkConfig::announced_points(); none: no
    // crash_at_point is drawn). A sink point it does not declare is an std::invalid_argument.
    std::vector<std::string> points;
    // The outside systems whose faults are drawn; empty: the ones the sink uses (see above).
    std::vector<std::string> systems;
    bool require_requested =
        true;  // a requested fault kind never drawn, a point never announced: failed

    int cases = 300;     // rapidcheck test cases (100 until 0.4: a part counter reset, FLINK-10005,
                         // needed up to 253)
    uint64_t seed = 1;   // rapidcheck's seed: the same seed finds the same counterexample
    int max_size = 100;  // rapidcheck's maximum size (about the longest command sequence)
    int keys = 4;        // distinct record keys
    // The most subtasks of the sink: each case starts with 1..parallelism subtasks (drawn,
    // shrinking towards 1) and a restore from a savepoint, or half of the failovers,
    // draws 1..parallelism again (a rescale when it differs).
    int32_t parallelism = 3;
    bool outside_faults = true;  // faults of the outside systems (false: none of them is drawn)
    bool zombies = true;         // cancelled instances that keep calling
    bool races = true;           // calls that race (fault kind system_call_races; see above)
    // Whether the sink calls asynchronously (engine::SinkContext::call; see above): the commands
    // then draw steps of its calls in flight. Unset: found out by a probe (one subtask writes a
    // record of each key and pre-commits: any asynchronous call made says yes).
    std::optional<bool> async_calls;
    int32_t kafka_partitions = 2;
    engine::RuntimeConfig runtime;  // commit_retry_delay etc., as the sink sees them
    // How the report names the test binary in its replay line (e.g. argv[0]); empty: "<your test
    // binary>".
    std::string program;
};

struct ContractResult {
    bool passed = false;
    int cases = 0;       // cases that passed before the verdict
    std::string report;  // the verdict: on a failure the shrunk command sequence and what broke;
                         // then the fault paths
    std::string fault_paths;  // which fault kinds were drawn how often, and which sink points were
                              // announced
    std::map<std::string, int64_t>
        faults_drawn;  // fault kind -> commands drawn (over every case run)
    std::map<std::string, int64_t> points_announced;  // point -> announcements by the sink
    explicit operator bool() const { return passed; }
};

// Runs the property `options.cases` times; never throws for a failing sink (the result says it).
// Throws std::invalid_argument when the kind is unknown or its options are wrong.
ContractResult check_sink_contract(const ContractOptions& options);

// The property itself, for rc::check / rc::prop (rapidcheck/catch.h); it reads rapidcheck's own
// configuration (RC_PARAMS) for the number of cases and the seed.
std::function<void()> sink_contract_property(const ContractOptions& options);

// The SinkConfig `options` names (the kind configured against the testkit's world: Kafka topic
// "output", systems kafka, append_store, objects, documents, key_values, database).
std::shared_ptr<const engine::SinkConfig> configure_sink(const ContractOptions& options);

// The checks a run makes (by oracle name): `options.oracles`, or the defaults for the shape and
// guarantee. Throws std::invalid_argument for a name the contract level does not know, or one that
// does not fit the shape (no_key_backwards on appended output).
std::vector<std::string> contract_checks(const ContractOptions& options,
                                         engine::SinkOutputShape shape, bool writes_kafka = false);

}  // namespace eosim::testkit
