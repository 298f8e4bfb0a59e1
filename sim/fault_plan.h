#pragma once
// A fault schedule: what goes wrong, where, and when. Plain data; `FaultInjector` carries it out.
// A fault fires at a virtual time, or at the k-th announcement of a protocol point (optionally
// only counting announcements by one node, optionally `delay` after it), so that narrow protocol
// windows are hit on purpose.
#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/prng.h"
#include "sim/time.h"

namespace eosim::sim {

// A fault kind: its name, the "kind" of a scenario's fault. What a kind does is registered, not
// switched on: its firing (what it does to the world) in sim/fault_firing.h, the rest (JSON, random
// draw, accounting) in scenarios/fault_types.h. The constants name the built-in kinds, so that code
// and tests read `FaultKind::crash`; a kind registered elsewhere (e.g. a test's) is a constant of
// its own (`inline constexpr sim::FaultKind kMine{"mine"}`). Two kinds are equal when their names
// are.
class FaultKind {
public:
    constexpr explicit FaultKind(const char* name) : name_(name) {}
    constexpr const char* name() const { return name_; }
    friend constexpr bool operator==(FaultKind a, FaultKind b) {
        return std::string_view(a.name_) == b.name_;
    }
    friend constexpr bool operator<(FaultKind a, FaultKind b) {
        return std::string_view(a.name_) < b.name_;
    }

    static const FaultKind
        crash;  // node crashes; restarts after restart_delay unless restart is false
    static const FaultKind
        pause;  // node freezes for duration (a long GC pause), then resumes as it was
    static const FaultKind partition;  // nodes | other_nodes cannot talk for duration (one_way:
                                       // nodes -> other_nodes only)
    static const FaultKind
        slow_link;  // latency between nodes[0] and nodes[1] multiplied for duration
    static const FaultKind storage_failure;  // every durable-storage operation fails for duration
    static const FaultKind storage_slow;     // durable-storage latency multiplied for duration
    static const FaultKind broker_unavailable;   // the Kafka broker answers nothing for duration
    static const FaultKind kafka_write_failure;  // Kafka writes fail for duration
    static const FaultKind
        transaction_abort;  // the broker aborts every open transaction (as on timeout)
    static const FaultKind
        message_loss;  // datagrams of the named kinds are lost with `ratio` for duration
    // Generic outside-system faults: `system` names the target (a registered system, e.g.
    // "documents", "key_values", "objects"; see sim/outside_fault_target.h).
    static const FaultKind system_unavailable;  // the system answers nothing for duration
    static const FaultKind
        system_write_errors;  // the system's writes fail for duration (reads still answer)
    static const FaultKind bulk_partial_failure;  // each item of the system's batch requests fails
                                                  // with `ratio` for duration
    // Kafka commit faults (produce and reads keep working):
    static const FaultKind kafka_commit_errors;  // EndTxn (commit, abort) fails with a retriable
                                                 // coordinator error for duration
    static const FaultKind kafka_commit_outcome_unknown;  // EndTxn is applied but answered with a
                                                          // request timeout for duration
    static const FaultKind kafka_produce_ack_lost;  // produce requests are written but every other
                                                    // answer is lost for duration
    // Calls that race (sim/external/call_races.h): each write to `system` races with `ratio` for
    // duration (its answer lost after it applied, it lands late after later calls, or it is lost).
    static const FaultKind system_call_races;

private:
    const char* name_;
};

inline constexpr FaultKind FaultKind::crash{"crash"};
inline constexpr FaultKind FaultKind::pause{"pause"};
inline constexpr FaultKind FaultKind::partition{"partition"};
inline constexpr FaultKind FaultKind::slow_link{"slow_link"};
inline constexpr FaultKind FaultKind::storage_failure{"storage_failure"};
inline constexpr FaultKind FaultKind::storage_slow{"storage_slow"};
inline constexpr FaultKind FaultKind::broker_unavailable{"broker_unavailable"};
inline constexpr FaultKind FaultKind::kafka_write_failure{"kafka_write_failure"};
inline constexpr FaultKind FaultKind::transaction_abort{"transaction_abort"};
inline constexpr FaultKind FaultKind::message_loss{"message_loss"};
inline constexpr FaultKind FaultKind::system_unavailable{"system_unavailable"};
inline constexpr FaultKind FaultKind::system_write_errors{"system_write_errors"};
inline constexpr FaultKind FaultKind::bulk_partial_failure{"bulk_partial_failure"};
inline constexpr FaultKind FaultKind::kafka_commit_errors{"kafka_commit_errors"};
inline constexpr FaultKind FaultKind::kafka_commit_outcome_unknown{"kafka_commit_outcome_unknown"};
inline constexpr FaultKind FaultKind::kafka_produce_ack_lost{"kafka_produce_ack_lost"};
inline constexpr FaultKind FaultKind::system_call_races{"system_call_races"};

inline const char* to_string(FaultKind kind) { return kind.name(); }

struct FaultTrigger {
    Time at = Time::never();     // used when point is empty
    std::string point;           // protocol point name
    int32_t occurrence = 1;      // fire at the k-th announcement
    std::string point_node;      // count only announcements by this node (empty: any)
    std::string point_vertex;    // count only announcements by a task of this vertex (empty: any)
    int32_t point_subtask = -1;  // count only announcements by this subtask (-1: any)
    Time not_after = Time::never();     // a point fault that would fire later does not fire
    Duration delay = Duration::zero();  // a point fault fires this long after its k-th announcement
    // Count only announcements while the job's attempt (1: as deployed, 2: after its first
    // failover, ...; FaultInjector::set_attempt) is in [attempt_min, attempt_max].
    int32_t attempt_min = 1;
    int32_t attempt_max = INT32_MAX;
    bool filters_attempt() const { return attempt_min > 1 || attempt_max < INT32_MAX; }
    bool filters_task() const { return !point_vertex.empty() || point_subtask >= 0; }
};

struct FaultSpec {
    FaultKind kind = FaultKind::crash;
    FaultTrigger trigger;
    // Target nodes by name. For a crash or pause placed at a protocol point, empty means the node
    // that announced the point.
    std::vector<std::string> nodes;
    std::vector<std::string> other_nodes;  // partition: the other side
    bool one_way = false;
    Duration duration = Duration::seconds(1);
    bool restart = true;
    Duration restart_delay = Duration::seconds(1);
    uint32_t multiplier = 10;
    std::vector<std::string>
        messages;                   // message_loss: event-kind names (engine/control_messages.h)
    Ratio ratio = Ratio::always();  // message_loss: the share of those messages lost;
                                    // bulk_partial_failure: the chance each item fails;
                                    // system_call_races: the chance each write races
    std::string system;             // system_*, bulk_partial_failure: the target system's name
    // crash, pause, partition, instead of `nodes`: the TaskManager that runs subtask
    // `running_subtask` of vertex `running_vertex` when the fault fires, in the latest attempt the
    // job deployed (OutsideFaults::task_manager_running says which; none yet: the fault is
    // skipped).
    std::string running_vertex;
    int32_t running_subtask = 0;
    bool targets_running_task() const { return !running_vertex.empty(); }
};

}  // namespace eosim::sim
