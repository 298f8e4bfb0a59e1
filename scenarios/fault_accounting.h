#pragma once
// Every planned fault accounted for: each entry of a run's fault plan (the scenario's
// `faults.schedule`, then what `faults.random` drew) ends the run as one of
// - fired: when, on which node, and what it hit (tasks on a crashed or paused node, messages and
//   connections a partition cut, datagrams lost, messages slowed, storage operations or outside
//   calls that failed, transactions aborted);
// - without effect: it fired and hit nothing (a crash of a node without tasks, a partition between
//   nodes that exchanged nothing while it lasted, an outage of a system nobody called then, a node
//   already down);
// - not fired, with the reason: its point was never announced in the run (naming who announces
//   it), its occurrence was never reached (the point came M times), it would have fired after its
//   not_after, or after the run ended (the job finished, failed or the run was cut).
// A passing run whose faults did not fire tested less than it claims; `strict` makes that a
// failure.
//
// What it watches never changes the run: a protocol-point listener that counts, the injector's
// firing observers, and counters in sim/ (sim::Network's per-partition hits, storage and Kafka
// operations refused by a fault) read before every event (`tick`, from the run loop) and at the
// end.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/fault_injector.h"
#include "sim/world.h"

namespace eosim::scenarios {

enum class FaultOutcome : uint8_t {
    fired,      // it fired and hit something
    no_effect,  // it fired and hit nothing
    not_fired,  // it never fired
};
const char* to_string(FaultOutcome outcome);  // "fired", "no_effect", "not_fired"

struct FaultAccount {
    size_t plan_index = 0;
    bool drawn = false;   // drawn by faults.random (else the scenario's schedule)
    std::string kind;     // sim::to_string(FaultKind)
    std::string trigger;  // "at 3.000s", "at sink.precommitted #3 on tm0 +200ms"
    FaultOutcome outcome = FaultOutcome::not_fired;
    int64_t at_ns = -1;              // when it fired (-1: never)
    std::vector<std::string> nodes;  // its targets when it fired
    int64_t hits = 0;    // what it hit, counted (tasks, messages, calls, operations, transactions)
    std::string detail;  // for people: what it hit, or why nothing / why it never fired
};

// The counts a run, a suite record and a summary carry.
struct FaultTally {
    int64_t planned = 0;
    int64_t fired = 0;  // with an effect
    int64_t without_effect = 0;
    int64_t not_fired = 0;
};
FaultTally tally(const std::vector<FaultAccount>& accounts);

// What the accounting asks of the run (the runner wires them: scenarios/scenario_run.cpp).
struct EffectProbes {
    struct NodeLoad {
        bool engine_node = false;  // a JobManager or TaskManager node
        bool job_manager = false;  // a JobManager process runs there
        int64_t tasks = 0;         // tasks deployed there
    };
    std::function<NodeLoad(sim::NodeId)> load_of;
    std::function<uint64_t()> kafka_refused_calls;  // broker_unavailable, kafka_write_failure
    std::function<uint64_t()> kafka_commit_errors;  // kafka_commit_errors
    std::function<uint64_t()> kafka_commit_outcomes_unknown;  // kafka_commit_outcome_unknown
    std::function<uint64_t()> kafka_produce_acks_lost;        // kafka_produce_ack_lost
    std::function<uint64_t()> kafka_transactions_aborted;     // transaction_abort
    std::function<uint64_t(const std::string& system)>
        system_failed_calls;  // system_*, bulk_partial_failure (and timeouts of raced writes)
};

class FaultAccounting {
public:
    // `scheduled`: how many entries of the injector's plan are the scenario's own (the rest were
    // drawn). `announcer_of(point)` names who announces a point (scenarios/point_reach.h). Must be
    // made right after the injector, before the world runs; both must outlive it.
    FaultAccounting(sim::World& world, sim::FaultInjector& injector, size_t scheduled,
                    EffectProbes probes,
                    std::function<std::string(const std::string& point)> announcer_of);
    FaultAccounting(const FaultAccounting&) = delete;
    FaultAccounting& operator=(const FaultAccounting&) = delete;

    // Before every event: reads the counters of the faults whose effect has just ended.
    void tick() {
        if (world_.now() >= next_close_) close_due(world_.now());
    }
    // After the run; `run_end` says how it ended ("the job finished", "the run was cut at the
    // time_limit", ...). One account per planned fault, in plan order.
    std::vector<FaultAccount> finish(const std::string& run_end) const;

private:
    struct Tracked {
        bool fired = false;
        sim::FiredFault record;
        int64_t baseline = 0;  // the counter right before it acted
        int64_t hits = 0;      // crash/pause: found at firing; else counter - baseline once closed
        std::string hit_text;  // crash/pause: what was on the nodes
        sim::Time closes_at = sim::Time::never();
        bool closed = false;
    };

    void firing(size_t index, const std::vector<sim::NodeId>& targets);
    void fired(const sim::FiredFault& record);
    void on_point(const sim::ProtocolPointEvent& event);
    void close_due(sim::Time now);
    int64_t counter(size_t index) const;  // the kind's counter now (0 for crash and pause)
    FaultAccount account(size_t index, const std::string& run_end) const;
    std::string describe_unfired(size_t index, const std::string& run_end) const;

    sim::World& world_;
    sim::FaultInjector& injector_;
    size_t scheduled_;
    EffectProbes probes_;
    std::function<std::string(const std::string&)> announcer_of_;
    std::vector<Tracked> tracked_;
    // Announcements in the run, by point: all of them and per node (by node id). One lookup a
    // point (asked at every protocol point: a second map keyed by a (name, node) string pair cost
    // a string copy and compares each time).
    struct Announced {
        int64_t all = 0;
        std::vector<int64_t> by_node;  // [0]: no node (sim::kNoNode), [id + 1]: node id
        static size_t slot(sim::NodeId node) {
            return node == sim::kNoNode ? 0 : static_cast<size_t>(node) + 1;
        }
    };
    std::map<std::string, Announced, std::less<>> announced_;
    sim::Time next_close_ = sim::Time::never();
};

// A run's faults for strict accounting: "" when every planned fault of the schedule (and, with
// `drawn`, every drawn one) fired with an effect; else why not, naming the first few. Strict judges
// the plan, not the dice: a scheduled fault that missed in a run where a drawn fault had fired
// before it (or, when it never fired, at all) is excused, as the drawn fault may have taken its
// target away (the node already down, the job restarting, the checkpoints it counted aborted).
std::string strict_fault_failure(const std::vector<FaultAccount>& accounts, bool drawn);

}  // namespace eosim::scenarios
