#pragma once
// Random fault schedules: the `faults.random` section of a scenario (plain data, filled and checked
// by the loader) and the generator that turns it into an explicit list of `sim::FaultSpec`s before
// a run starts. The run's plan is then the explicit `faults.schedule` followed by the drawn list.
//
// Every draw comes from the PRNG handed in (the runner forks the stream "faults" from the run's
// root seed, so drawing faults never shifts another component's sequence), in a fixed order, so the
// same seed gives the same list on every platform. `FaultDraw` keeps every drawn parameter so a
// run can log it.
//
// Modes:
// - fixed: every configured kind is on, with its configured weight (its relative rate).
// - swarm (the default): per seed, a random non-empty subset of the configured kinds is switched
//   on, each with a random weight (configured weight x 1..10), as in FoundationDB's and
//   TigerBeetle's swarm testing: a run explores a few kinds deeply instead of all shallowly.
//
// Partition shapes: `job_manager_cut` (a quarter by default) of the partitions of a TaskManager,
// when the JobManager is a candidate too, cut the TaskManager off from the JobManager only (one
// way: a zombie that keeps writing while its successor runs); the others cut one node from every
// other node or from one other candidate, a quarter of them one way.
//
// Guarantee (the quiet period): every drawn fault's effect ends at or before `quiet_after` --
// crashed nodes are back, pauses over, partitions healed, outages ended. A time-triggered fault is
// placed so that at + its duration (or restart delay) <= quiet_after; a point-triggered one gets
// `trigger.not_after = quiet_after - duration` and is dropped if its point comes later.
//
// Not done here: running anything, or checking the section against the world (the loader resolves
// node names and defaults, so a `RandomFaults` that reaches the generator is valid).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/fault_plan.h"
#include "sim/prng.h"
#include "sim/time.h"

namespace eosim::scenarios {

struct DurationRange {
    sim::Duration min = sim::Duration::millis(100);
    sim::Duration max = sim::Duration::seconds(1);
};

struct MultiplierRange {
    uint32_t min = 2;
    uint32_t max = 20;
};

// The share of messages lost by a drawn message_loss: uniform in [min, max] in steps of 1/1000.
struct RatioRange {
    sim::Ratio min = sim::Ratio::always();
    sim::Ratio max = sim::Ratio::always();
};

// How one fault kind is drawn. Only the fields of its kind are used.
struct RandomFaultKind {
    sim::FaultKind kind = sim::FaultKind::crash;
    uint32_t weight = 1;                    // relative rate among the kinds switched on
    std::vector<std::string> nodes;         // crash, pause, partition, slow_link: candidate targets
    DurationRange duration;                 // every kind with a duration
    DurationRange restart_delay;            // crash (always restarts)
    MultiplierRange multiplier;             // slow_link, storage_slow
    sim::Ratio one_way = sim::Ratio{1, 4};  // partition: chance that it is one-way
    sim::Ratio job_manager_cut = sim::Ratio{
        1, 4};  // partition: chance that a TaskManager is cut off from the JobManager only
    std::vector<std::string>
        messages;      // message_loss: candidate messages (a non-empty subset is drawn)
    RatioRange ratio;  // message_loss; bulk_partial_failure (the chance an item fails)
    std::vector<std::string>
        systems;  // system_*, bulk_partial_failure: candidate systems (one is drawn)
};

enum class RandomMode : uint8_t { swarm, fixed };
const char* to_string(RandomMode mode);

// Some drawn faults fire at the k-th announcement of a protocol point instead of at a time.
struct PointTriggers {
    sim::Ratio ratio = sim::Ratio::never();  // chance that a drawn fault is placed at a point
    std::vector<std::string> points;         // candidate points (engine/protocol_points.h)
    int32_t max_occurrence = 20;             // k uniform in [1, max_occurrence]
    // Aim, as a scheduled at_point's (each drawn only when configured, so other draws stay as they
    // were): per point, the vertices of "vertices" whose tasks announce it: with chance 1/2 a drawn
    // fault at that point counts only one of them (its `vertex` filter);
    std::map<std::string, std::vector<std::string>> vertices;
    sim::Ratio after_failover =
        sim::Ratio::never();             // chance of attempt {"min": 2}: only after a failover
    std::optional<DurationRange> delay;  // a delay after the point, drawn in [min, max]
};

struct RandomFaults {
    RandomMode mode = RandomMode::swarm;
    int32_t count_min = 1;  // faults per run, uniform in [count_min, count_max]
    int32_t count_max = 5;
    sim::Duration window_from = sim::Duration::zero();  // time-triggered faults fire in [from, to]
    sim::Duration window_to = sim::Duration::seconds(10);
    sim::Duration quiet_after = sim::Duration::seconds(10);  // every effect has ended by then
    // The end window: with chance `end_ratio` a time-triggered fault fires in [input_end -
    // end_before, input_end + end_after] instead (clipped to the window's start and the quiet
    // period), so that random faults reach the end of input, the final checkpoint and the final
    // commits. `input_end` (when the last input record is produced) is filled by the loader.
    // With `end_ratio` never (the default) nothing is drawn for it.
    sim::Ratio end_ratio = sim::Ratio::never();
    sim::Duration end_before = sim::Duration::seconds(2);
    sim::Duration end_after = sim::Duration::seconds(3);
    sim::Duration input_end = sim::Duration::zero();
    std::vector<RandomFaultKind> kinds;  // the kinds that may be drawn, in FaultKind order
    PointTriggers point_triggers;
    // Every TaskManager node of the world (filled by the loader): a crash or pause placed at a
    // TaskManager's point may hit "the announcing node" only when all of them are candidates.
    std::vector<std::string> task_manager_nodes;
};

// What the generator drew for one seed: enough to explain the run.
struct FaultDraw {
    RandomMode mode = RandomMode::swarm;
    std::vector<sim::FaultKind> kinds_on;  // swarm: the subset switched on; fixed: every kind
    std::vector<uint32_t> weights;         // parallel to kinds_on
    int32_t count = 0;
    std::vector<sim::FaultSpec> faults;  // time-triggered ones by time, then point-triggered ones
    uint64_t prng_draws = 0;             // values drawn (an "unseed" check for the log)
};

// Draws one schedule. `spec` must be valid (as the loader leaves it).
FaultDraw draw_random_faults(const RandomFaults& spec, sim::Prng& prng);

// True when the JobManager announces `point` (checkpoint.triggered/acknowledged/completed/aborted,
// failover.started, job.running, job.finished); false for the points TaskManagers announce.
bool announced_by_job_manager(const std::string& point);

// The draws kinds make (scenarios/fault_types.h, FaultType::draw), each a fixed number of PRNG
// values: an element of `items` (not empty); uniform in [low, high], in whole milliseconds when the
// range holds one (logs and shrunk files read better), else in nanoseconds; a ratio in [min, max],
// rounded inwards to thousandths.
template <typename T>
const T& pick(const std::vector<T>& items, sim::Prng& prng) {
    return items[prng.below(items.size())];
}
sim::Duration draw_between(sim::Duration low, sim::Duration high, sim::Prng& prng);
sim::Duration draw_duration(const DurationRange& range, sim::Prng& prng);
sim::Ratio draw_ratio(const RatioRange& range, sim::Prng& prng);

// One line per drawn parameter set, for reports: "swarm: crash x7, partition x2; 12 faults".
std::string describe_draw(const FaultDraw& draw);

}  // namespace eosim::scenarios
