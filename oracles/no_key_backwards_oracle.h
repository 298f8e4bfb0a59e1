#pragma once
// No key goes backwards: a reader polls the upsert sink's target table throughout the run (every
// `poll_interval` of virtual time, as a dashboard reading the table would) and never sees a key's
// version lower than a version it saw before for that key. Keeping that is the version guard's job
// (engine/connectors/upsert_sink.h): without it, the replay after a restore writes older rows over
// newer ones until it catches up. Tombstones count (a deleted key keeps its version); a key that
// disappears (an unguarded delete) and comes back is judged by the version it comes back with.
//
// Checks: the `version` column of every row at each poll. Does not check: values (the output and
// mirror oracles check the final table), regressions that begin and end between two polls, or
// rows written by anything but the sink. Also counts the duplicates absorbed: writes the guard
// turned away and rewrites of an identical row, which changed nothing.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "oracles/oracle.h"
#include "sim/external/database.h"
#include "sim/scheduler.h"

namespace eosim::oracles {

class NoKeyBackwardsOracle final : public Oracle {
public:
    NoKeyBackwardsOracle(sim::Scheduler& scheduler, const sim::external::Database& database, std::string table,
                         sim::Duration poll_interval = sim::Duration::millis(20));
    const char* name() const override { return "no_key_backwards"; }
    Verdict verdict() const override;
    void start();

private:
    void poll();

    sim::Scheduler& scheduler_;
    const sim::external::Database& database_;
    std::string table_;
    sim::Duration poll_interval_;
    std::map<int64_t, int64_t> highest_version_;  // key -> the highest version seen
    int64_t polls_ = 0;
    int64_t regressions_ = 0;
    std::optional<std::string> first_violation_;
};

}  // namespace eosim::oracles
