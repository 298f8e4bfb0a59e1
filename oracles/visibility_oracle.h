#pragma once
// Visibility: a read_committed reader never sees a record of an aborted or still open
// transaction. The oracle runs such a reader against the sink topic throughout the run (every
// `poll_interval` of virtual time) and checks, for each record it is handed, the state of the
// record's transaction at that moment.
//
// Checks: what the Kafka model hands a read_committed consumer. Does not check: the content of the
// output (the output oracles do), or non-transactional sinks (every record is visible there).
#include <optional>
#include <string>
#include <vector>

#include "oracles/oracle.h"
#include "sim/external/kafka.h"
#include "sim/scheduler.h"

namespace eosim::oracles {

class VisibilityOracle final : public Oracle {
public:
    VisibilityOracle(sim::Scheduler& scheduler, const sim::external::KafkaCluster& kafka,
                     std::string topic, sim::Duration poll_interval = sim::Duration::millis(50));
    const char* name() const override { return "visibility"; }
    Verdict verdict() const override;
    void start();

private:
    void poll();

    sim::Scheduler& scheduler_;
    const sim::external::KafkaCluster& kafka_;
    std::string topic_;
    sim::Duration poll_interval_;
    std::vector<int64_t> next_offsets_;
    int64_t records_seen_ = 0;
    std::optional<std::string> violation_;
};

}  // namespace eosim::oracles
