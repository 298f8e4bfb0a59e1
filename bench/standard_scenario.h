#pragma once
// The standard run of DESIGN.md as a Scenario: a base scenario file (kafka-count-eos.json) with
// `records` input records arriving at 1,000 per virtual second, a checkpoint every 500 ms and 3
// TaskManager crashes spread over the input (at 1/4, 2/4 and 3/4 of it, each restarted after 1 s).
// Shared by bench_standard_run and bench_scaling.
//
// The liveness bound counts from the last input record's arrival (input span + 120 s), not from the
// last fault: at 1M records and more the input keeps arriving long after the last crash, and a
// bound from the last fault would call the job late for reading its input as it comes. The time
// limit is the input span plus an hour. (At 100k records neither changes anything: the job ends at
// 100.3 s.)
#include <cstdint>
#include <filesystem>

#include "scenarios/scenario.h"

namespace eosim::bench {

inline scenarios::Scenario standard_scenario(const std::filesystem::path& base, int64_t records) {
    using sim::Duration;
    using sim::FaultKind;
    using sim::FaultSpec;
    using sim::Time;
    scenarios::Scenario s = scenarios::load_scenario(base);
    s.inputs.at(0).records = records;
    s.inputs.at(0).rate_per_second = 1000;
    s.job.checkpointing.interval = Duration::millis(500);
    s.faults.clear();
    const double span = static_cast<double>(records) / 1000.0;  // virtual seconds of input
    const char* nodes[] = {"tm1", "tm0", "tm1"};
    for (int i = 0; i < 3; ++i) {
        FaultSpec crash;
        crash.kind = FaultKind::crash;
        crash.nodes = {nodes[i]};
        crash.trigger.at =
            Time::zero() + Duration::millis(static_cast<int64_t>(span * 1000 * (i + 1) / 4) + 317);
        crash.restart_delay = Duration::seconds(1);
        s.faults.push_back(crash);
    }
    const Duration input_span = Duration::millis(records);  // 1,000 records per virtual second
    s.liveness_bound = input_span + Duration::seconds(120);
    s.time_limit = input_span + Duration::seconds(3600);
    return s;
}

}  // namespace eosim::bench
