#pragma once
// No key goes backwards: a reader polls a keyed table throughout the run (every `poll_interval` of
// virtual time, as a dashboard reading the table would) and never sees a key's version lower than a
// version it saw before for that key. Two tables are judged:
// - the upsert sink's target table (engine/connectors/upsert_sink.h), by its `version` column:
//   keeping that is the version guard's job (without it, the replay after a restore writes older
//   rows over newer ones until it catches up). Tombstones count (a deleted key keeps its version);
//   a key that disappears (an unguarded delete) and comes back is judged by the version it comes
//   back with. Also counts the duplicates absorbed (writes the guard turned away, identical
//   rewrites);
// - any other keyed-table sink fed by a running count (a keyed_count vertex: a key's value grows
//   with the job's output, so the value is the version), by what its committed reader sees (the
//   testkit's job level: testkit/sink_jobs.h).
//
// Checks: the version of every key at each poll. Does not check: values (the output and mirror
// oracles check the final table), regressions that begin and end between two polls, or rows
// written by anything but the sink.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oracles/oracle.h"
#include "sim/external/database.h"
#include "sim/scheduler.h"

namespace eosim::oracles {

class NoKeyBackwardsOracle final : public Oracle {
public:
    struct Row {
        int64_t key = 0;
        int64_t version = 0;
        int64_t value = 0;
    };
    // `read` lists the table's rows now; `absorbed` (may be empty) adds to the verdict.
    NoKeyBackwardsOracle(sim::Scheduler& scheduler, std::function<std::vector<Row>()> read,
                         std::function<std::string()> absorbed,
                         sim::Duration poll_interval = sim::Duration::millis(20));
    // The upsert sink's target table `table` in `database` (by its version column).
    NoKeyBackwardsOracle(sim::Scheduler& scheduler, const sim::external::Database& database,
                         const std::string& table,
                         sim::Duration poll_interval = sim::Duration::millis(20));
    const char* name() const override { return "no_key_backwards"; }
    Verdict verdict() const override;
    void start();

private:
    void poll();

    sim::Scheduler& scheduler_;
    std::function<std::vector<Row>()> read_;
    std::function<std::string()> absorbed_;
    sim::Duration poll_interval_;
    std::map<int64_t, int64_t> highest_version_;  // key -> the highest version seen
    int64_t polls_ = 0;
    int64_t regressions_ = 0;
    std::optional<std::string> first_violation_;
};

}  // namespace eosim::oracles
