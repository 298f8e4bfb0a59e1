#pragma once
// The system under test of the contract-level property (sink_contract.h): a simulated world with
// every outside system, the sink's incarnations, the job's output sequence, the coordinator's view
// of checkpoints, and the checks of what the outside system may show. The commands
// (sink_contract.cpp) call one method each; every method logs one readable line, followed by the
// outside-system calls the step made: each call with its arguments and answer (Kafka's counted).
//
// The job's output is one deterministic sequence S of records (key, value), value = position in S
// (1, 2, 3, ...). An incarnation writes S from its position on; a restore to checkpoint C sets the
// new incarnation's position to C's, so the records after C are written again (a replay).
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
    std::map<std::string, int64_t> drawn;      // fault kind -> commands that applied it
    std::map<std::string, int64_t> effects;    // what the faults did ("crash_at_point fired", "kafka commit errors answered")
    std::map<std::string, int64_t> announced;  // sink point -> announcements by the sink
};

// The registered outside systems of the testkit's world, in order: the names `systems` and fault
// choices use.
const std::vector<std::string>& contract_systems();

// The SinkConfig `options` names, configured against the testkit's world; `systems_asked` gets the
// registered outside systems the kind asked for (SinkWorld::has_system), e.g. "objects".
std::shared_ptr<const engine::SinkConfig> configure_sink_recording(const ContractOptions& options,
                                                                   std::vector<std::string>* systems_asked);

// Which checks a harness makes (sink_contract.h: contract_checks()).
struct ContractChecks {
    bool visibility = false;
    bool exactly_once = false;   // no duplicates (appended), final equality
    bool at_least_once = false;  // final: nothing lost
    bool no_key_backwards = false;
    bool no_leaks = false;  // at the end: no open upload, no open Kafka transaction, no timer of a closed instance still firing
};

class ContractHarness {
public:
    ContractHarness(std::shared_ptr<const engine::SinkConfig> config, const ContractOptions& options,
                    ContractChecks checks, uint64_t seed, FaultPaths* paths);
    ~ContractHarness();
    ContractHarness(const ContractHarness&) = delete;
    ContractHarness& operator=(const ContractHarness&) = delete;

    // Commands. Each logs one line; none throws for a sink's misbehaviour (check() reports it).
    void start();  // the first incarnation, from scratch
    void write(const std::vector<int32_t>& fresh_keys);
    void pre_commit();
    void complete(int32_t pick, Delivery delivery);
    void deliver_late(int32_t pick);
    void crash();
    // Arms a crash of the live incarnation at its next announcement of `point`.
    void crash_at_point(const std::string& point);
    void cancel();
    // Stop with a savepoint: the live incarnation pre-commits it, it completes (notification
    // `delivery`), the incarnation is closed, and a new one restores from the savepoint.
    void stop_with_savepoint(Delivery delivery);
    void zombie_write(int32_t records);
    void zombie_pre_commit();
    void fault(const FaultChoice& choice, int64_t millis);
    // Calls that race: the next writes to `system` get these deliveries (sim/external/call_races.h).
    void race(const std::string& system, const std::vector<sim::external::RaceStep>& steps);
    void advance(int64_t millis);
    // Heals every fault, catches up, completes a final checkpoint, waits for commits.
    void finish();

    // The first violation of the contract so far (empty: none); checks the output now.
    std::optional<std::string> check();
    // The final equality (after finish()).
    std::optional<std::string> check_final();
    const std::string& log() const { return log_; }

private:
    class Context;
    struct Incarnation;
    struct Checkpoint {
        int64_t id = 0;
        int64_t position = 0;  // records of S written before its barrier
        std::string state;
        int32_t incarnation = 0;
    };
    struct CallCounts {
        uint64_t calls = 0;
        uint64_t failed = 0;
        uint64_t applied = 0;
        uint64_t absorbed = 0;
    };

    Incarnation* live();
    Incarnation* latest_zombie();
    Incarnation* by_node(sim::NodeId node);
    void emit(Incarnation& incarnation, int64_t count, const std::vector<int32_t>* fresh_keys);
    void restore(const char* why);
    void fail_over_if_failed();
    // Logs one numbered step; the outside-system calls made since the last step are listed under
    // that step, or under this one when it `made_the_calls` (its line is written after its call).
    void line(const std::string& text, bool made_the_calls = false);
    void log_calls();
    // Asks `incarnation` to pre-commit the next checkpoint id into `taken` (its id always, the rest
    // when it pre-committed); true when it did and is still live. A refusal marks it failed.
    bool ask_pre_commit(Incarnation& incarnation, Checkpoint& taken);
    std::map<std::string, CallCounts> call_counts() const;
    std::string describe(const engine::Record& record) const;
    std::string describe_output(const std::vector<engine::Record>& output) const;
    std::optional<std::string> violation(const std::string& what);
    int64_t completed_position() const;
    sim::OutsideFaultTarget* target(const std::string& system);
    sim::external::CallRaces* races_of(const std::string& system);
    // The name of a caller in the call log: "incarnation 2", "incarnation 1 (ZOMBIE)".
    std::string caller_name(sim::NodeId node);
    // What the sinks left open at the end: open multipart uploads, open Kafka transactions on "output".
    std::pair<size_t, size_t> leaks() const;

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
    std::map<int64_t, Checkpoint> checkpoints_;  // pre-committed by a live incarnation
    int64_t next_checkpoint_id_ = 1;
    int64_t last_completed_ = 0;
    std::vector<std::pair<int32_t, int64_t>> held_notifications_;  // (incarnation, checkpoint)
    std::map<int64_t, int64_t> shown_values_;                      // keyed table: last visible value per key
    std::optional<std::string> armed_point_;                       // crash the live incarnation there
    bool finished_ = false;                                        // the final checkpoint completed
    int64_t timers_after_close_ = 0;                               // timers of closed instances fired after that
    std::map<std::string, CallCounts> last_calls_;  // Kafka's, for its per-step counts
    std::vector<std::string> calls_;                // the other systems' calls since the last line
    std::string log_;
    int32_t step_ = 0;
    std::optional<std::string> violation_;
    std::string last_output_;
};

}  // namespace eosim::testkit
