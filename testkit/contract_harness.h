#pragma once
// The system under test of the contract-level property (sink_contract.h): a simulated world with
// every outside system, the sink's incarnations, the job's output sequence, the coordinator's view
// of checkpoints, and the checks of what the outside system may show. The commands
// (contract_commands.cpp) call one method each; every method logs one readable line, followed by
// the outside-system calls the step made: each call with its arguments and answer (Kafka's
// counted).
//
// The job's output is one deterministic sequence S of records (key, value), value = position in S
// (1, 2, 3, ...). An incarnation runs the sink in `parallelism` subtasks; record r goes to subtask
// r.key % parallelism (the job keys its stream before the sink, so one key's records keep their
// order). Each subtask writes its records of S from its position on; a restore to checkpoint C sets
// every subtask's position to C's, so the records after C are written again (a replay), routed by
// the new parallelism. A checkpoint's barrier cuts S at one position P: a subtask writes its
// records before P, then pre-commits; the records after P wait behind the barrier until it has. The
// checkpoint is pre-committed when every subtask has, and only then may it complete (as Flink's
// two-phase-commit sink: the committables of every subtask are committed after the checkpoint
// completes). A restore, at the same or another parallelism, hands the states of the restored
// checkpoint out as the engine does (engine::restoring_subtask: old subtask j to j % parallelism).
// An incarnation lives as testkit/README.md ("An instance's life") says: live, a zombie (failed
// over without being reached: still open), failed, closed (nothing reaches it but its own timers
// and late answers), crashed.
//
// Asynchronous calls (engine::SinkContext::call): the harness carries them itself, no latency: a
// call waits in flight until a command takes it a step further (5 ms of virtual time a step) -- its
// request lands at the system (applied there), then its answer reaches the sink that made it -- so
// the order of landings and answers is drawn (answers overtake each other), also across cancels and
// restores (a zombie's answer reaches the zombie's callback after the next incarnation opened).
// Time passing takes every call in flight to its end, oldest first; a crash drops the crashed
// incarnation's calls (their requests never land, their answers never come). Before a subtask
// pre-commits, the harness asks Sink::prepare_pre_commit and, while it says false, takes one call
// in flight a step (which one: the pre-commit command's drawn picks, then the oldest) or, with none
// in flight, lets 10 ms pass.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/connectors/outside_systems.h"
#include "engine/connectors/sink.h"
#include "engine/connectors/sink_registry.h"
#include "sim/external/append_store.h"
#include "sim/external/database.h"
#include "sim/external/document_store.h"
#include "sim/external/kafka.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"
#include "sim/world.h"
#include "testkit/sink_contract.h"

namespace eosim::testkit {

enum class Delivery : uint8_t { now, lost, late };
const char* to_string(Delivery delivery);

// One outside-system fault the commands may draw: a kind (a scenario file's name) on a system.
struct FaultChoice {
    std::string kind;    // "system_unavailable", "kafka_commit_errors", ...
    std::string system;  // "kafka", "key_values", ...
};

// What a run exercised, over every case (shared by the cases of one check).
struct FaultPaths {
    std::map<std::string, int64_t> drawn;  // fault kind -> commands that applied it
    std::map<std::string, int64_t>
        effects;  // what the faults did ("crash_at_point fired", "kafka commit errors answered")
    std::map<std::string, int64_t> announced;  // sink point -> announcements by the sink
};

// The registered outside systems of the testkit's world, in order: the names `systems` and fault
// choices use.
const std::vector<std::string>& contract_systems();

// The SinkConfig `options` names, configured against the testkit's world; `systems_asked` gets the
// registered outside systems the kind asked for (SinkWorld::has_system), e.g. "objects".
std::shared_ptr<const engine::SinkConfig> configure_sink_recording(
    const ContractOptions& options, std::vector<std::string>* systems_asked);

// The sink points faults are aimed at (both levels): `requested`, or when empty every point the
// sink declares (SinkConfig::announced_points(): the list the scenario loader trusts, so a
// reproducer never names a point the loader refuses). Throws std::invalid_argument, naming
// `option`, for a requested sink point (engine/connectors/sink_points.h) the sink does not declare.
std::vector<std::string> aimed_sink_points(const engine::SinkConfig& config,
                                           const std::vector<std::string>& requested,
                                           const std::string& option);

// Which checks a harness makes (sink_contract.h: contract_checks()).
struct ContractChecks {
    bool visibility = false;
    bool exactly_once = false;   // no duplicates (appended), final equality
    bool at_least_once = false;  // final: nothing lost
    bool no_key_backwards = false;
    bool no_leaks = false;   // at the end: no open upload, no open Kafka transaction, no timer of a
                             // closed instance still firing
    bool freshness = false;  // at the end: no open Kafka transaction holds records on "output"
                             // (read_committed readers wait)
    // A sink that calls asynchronously: in the final phase (faults healed) the live incarnation
    // checkpoints everything it wrote, the checkpoint completes and the incarnation crashes at once
    // (its calls in flight die): what a completed checkpoint covers must not hang on calls in
    // flight.
    bool crash_after_checkpoint = false;
};

class ContractHarness {
public:
    ContractHarness(std::shared_ptr<const engine::SinkConfig> config,
                    const ContractOptions& options, ContractChecks checks, uint64_t seed,
                    FaultPaths* paths);
    ~ContractHarness();
    ContractHarness(const ContractHarness&) = delete;
    ContractHarness& operator=(const ContractHarness&) = delete;

    // Commands. Each logs one line; none throws for a sink's misbehaviour (check() reports it).
    // The first incarnation, from scratch, with `parallelism` subtasks.
    void start(int32_t parallelism);
    // Subtask `pick` % parallelism of the live incarnation writes its next records.
    void write(int32_t pick, const std::vector<int32_t>& fresh_keys);
    // Subtask `pick` % (those that have not yet) pre-commits the checkpoint in flight (a new one
    // when none is); the checkpoint is pre-committed when the last subtask has.
    // `call_picks`: which call in flight takes a step while the subtask waits (prepare_pre_commit).
    void pre_commit(int32_t pick, const std::vector<int32_t>& call_picks = {});
    void complete(int32_t pick, Delivery delivery);
    void deliver_late(int32_t pick);
    // A crash, crash at a point or cancel is followed by a restore of the latest completed
    // checkpoint with `parallelism` subtasks (0: as many as before; a restore from scratch keeps
    // them too).
    void crash(int32_t parallelism);
    // Arms a crash of the live incarnation at its next announcement of `point`.
    void crash_at_point(const std::string& point, int32_t parallelism);
    // The job fails over without reaching the live incarnation (its TaskManager lost the
    // JobManager): it lives on as a zombie -- not closed: what reaches it still runs -- until
    // close_zombie() (without `zombies` it is closed at once).
    void cancel(int32_t parallelism);
    // The latest zombie learns of the cancel: close() on every subtask; after it nothing reaches
    // it.
    void close_zombie();
    // Stop with a savepoint: every subtask of the live incarnation pre-commits it, it completes and
    // every subtask is notified (Flink's stop-with-savepoint waits for that notification), the
    // subtasks are closed and the job stays stopped until restore_from_savepoint (or finish()).
    void stop_with_savepoint();
    // A stopped job starts again from its savepoint with `parallelism` subtasks (the same or
    // another).
    void restore_from_savepoint(int32_t parallelism);
    // Subtask `pick` of the latest zombie writes its next records / pre-commits the one barrier
    // that was in flight when the job failed over without it (once a subtask; it never completes).
    void zombie_write(int32_t pick, int32_t records);
    void zombie_pre_commit(int32_t pick);
    void fault(const FaultChoice& choice, int64_t millis);
    // One asynchronous call in flight (`pick` % those in flight, oldest first) takes its next step:
    // its request lands, or its answer reaches the sink that made it.
    void step_call(int32_t pick);
    // Asynchronous calls made so far (by every instance; a probe of whether the sink makes any).
    uint64_t calls_sent() const { return calls_sent_; }
    // Calls that race: the next writes to `system` get these deliveries
    // (sim/external/call_races.h).
    void race(const std::string& system, const std::vector<sim::external::RaceStep>& steps);
    void advance(int64_t millis);
    // Heals every fault, catches up, completes a final checkpoint, waits for commits.
    void finish();

    // The first violation of the contract so far (empty: none); checks the output now.
    std::optional<std::string> check();
    // The final equality (after finish()).
    std::optional<std::string> check_final();
    // The final equality alone (check_final's part after the leaks).
    std::optional<std::string> final_output();
    const std::string& log() const { return log_; }

private:
    class Context;
    struct Incarnation;
    struct Subtask;
    struct Checkpoint {
        int64_t id = 0;
        int64_t position = 0;             // records of S before its barrier
        std::vector<std::string> states;  // per subtask
        std::vector<bool> pre_committed;  // per subtask
        int32_t incarnation = 0;
        bool complete_set() const;  // every subtask pre-committed
    };
    struct Notification {
        int32_t incarnation = 0;
        int32_t subtask = 0;
        int64_t checkpoint = 0;
    };
    // An asynchronous call in flight (the harness is its transport).
    struct InFlight {
        Subtask* caller = nullptr;
        std::string system;
        engine::SinkContext::AsyncCall call;
        bool landed = false;
        uint64_t seq = 0;  // the order sent, over every instance
    };
    struct CallCounts {
        uint64_t calls = 0;
        uint64_t failed = 0;
        uint64_t applied = 0;
        uint64_t absorbed = 0;
    };

    Incarnation* live();
    Incarnation* latest_zombie();
    Subtask* by_node(sim::NodeId node);
    // `subtask` writes up to `count` of its records of S from its position on, none at or after
    // `barrier`; new records of S (keys from `fresh_keys`, or by position) once S is written.
    void emit(Subtask& subtask, int64_t count, const std::vector<int32_t>* fresh_keys,
              int64_t barrier);
    void restore(const char* why, int32_t parallelism);
    Incarnation& add_incarnation(int32_t parallelism);  // with its subtasks, not yet opened
    void log_opened(Incarnation& current, const char* why, int32_t restored_parallelism,
                    bool failover);
    // The sink states subtask `subtask` restores from the latest completed checkpoint, handed out
    // by the engine's rule (engine::restoring_subtask over the current parallelism).
    std::vector<engine::RestoredSinkState> restored_states(int32_t subtask) const;
    // Every subtask of `incarnation` is notified that checkpoint `id` completed (while it is live
    // or a zombie).
    void notify(Incarnation& incarnation, int64_t id);
    void crash_incarnation(Incarnation& incarnation, const std::string& why);
    // close() on every subtask that opened; the incarnation is closed.
    void close_incarnation(Incarnation& incarnation);
    // The parallelism a failover restores at: `drawn` (0: the current one) when a checkpoint
    // completed.
    int32_t failover_parallelism(int32_t drawn) const;
    void fail_over_if_failed();
    // Logs one numbered step; the outside-system calls made since the last step are listed under
    // that step, or under this one when it `made_the_calls` (its line is written after its call).
    void line(const std::string& text, bool made_the_calls = false);
    void log_calls();
    // Asks `subtask` to write its records before `taken`'s barrier and pre-commit `taken` (its
    // state and mark when it did); true when it did and its incarnation is still live. A refusal
    // marks the incarnation failed.
    bool ask_pre_commit(Subtask& subtask, Checkpoint& taken,
                        const std::vector<int32_t>& call_picks = {});
    // Waits for `subtask`'s prepare_pre_commit(id) as the task does (see the top); false when its
    // incarnation is no longer `state` meanwhile, or the sink never got ready.
    bool wait_for_flush(Subtask& subtask, int64_t id, const std::vector<int32_t>& call_picks);
    void hold_call(Subtask& caller, engine::SinkContext::AsyncCall call);
    // Takes call `index` of calls_in_flight_ a step; `why` prefixes its log line.
    void take_step(size_t index);
    void run_time(int64_t millis);
    bool checkpoint_everything(Incarnation* incarnation);
    void checkpoint_then_crash();
    // A new checkpoint of the live incarnation, its barrier after every record a subtask wrote.
    Checkpoint trigger(Incarnation& incarnation);
    std::map<std::string, CallCounts> call_counts() const;
    std::string describe(const engine::Record& record) const;
    std::string describe_output(const std::vector<engine::Record>& output) const;
    std::optional<std::string> violation(const std::string& what);
    int64_t completed_position() const;
    sim::OutsideFaultTarget* target(const std::string& system);
    sim::external::CallRaces* races_of(const std::string& system);
    // The name of a caller in the call log: "incarnation 2, subtask 0", "incarnation 1 (ZOMBIE),
    // subtask 1".
    std::string caller_name(sim::NodeId node);
    // What the sinks left open at the end: open multipart uploads, open Kafka transactions on
    // "output".
    std::pair<size_t, size_t> leaks() const;
    // The transactional ids of the open Kafka transactions that hold records on "output".
    std::vector<std::string> open_kafka_transactions() const;

    std::shared_ptr<const engine::SinkConfig> config_;
    ContractOptions options_;
    ContractChecks checks_;
    FaultPaths* paths_;
    sim::World world_;
    sim::NodeId kafka_node_;
    sim::NodeId store_node_;
    sim::NodeId objects_node_;
    sim::NodeId documents_node_;
    sim::NodeId key_values_node_;
    sim::NodeId database_node_;
    sim::external::KafkaCluster kafka_;
    sim::external::AppendStore store_;
    sim::external::ObjectStore objects_;
    sim::external::DocumentStore documents_;
    sim::external::KeyValueStore key_values_;
    sim::external::Database database_;
    engine::OutsideSystems systems_;
    engine::RunObserver observer_;

    std::vector<engine::Record> sequence_;  // S
    std::vector<std::unique_ptr<Incarnation>> incarnations_;
    std::map<int64_t, Checkpoint>
        checkpoints_;                      // pre-committed by every subtask of a live incarnation
    std::optional<Checkpoint> in_flight_;  // pre-committed by some subtasks of the live incarnation
    int64_t next_checkpoint_id_ = 1;
    int64_t last_completed_ = 0;
    int32_t parallelism_ = 1;  // of the live (or next) incarnation
    bool stopped_ = false;     // stopped with a savepoint, not yet restored
    std::vector<Notification> held_notifications_;
    std::map<int64_t, int64_t> shown_values_;       // keyed table: last visible value per key
    std::optional<std::string> armed_point_;        // crash the live incarnation there
    int32_t armed_parallelism_ = 0;                 // and restore at this parallelism (0: the same)
    bool finished_ = false;                         // the final checkpoint completed
    int64_t timers_after_close_ = 0;                // timers of closed instances fired after that
    std::map<std::string, CallCounts> last_calls_;  // Kafka's, for its per-step counts
    std::vector<std::string> calls_;                // the other systems' calls since the last line
    std::vector<InFlight> calls_in_flight_;         // asynchronous calls, in the order sent
    uint64_t calls_sent_ = 0;
    std::string log_;
    int32_t step_ = 0;
    std::optional<std::string> violation_;
    std::string last_output_;
};

}  // namespace eosim::testkit
