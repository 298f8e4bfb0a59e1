#pragma once
// No leaks: when the run ends, nothing the sinks opened is still open -- no multipart upload in the
// object store, no transaction in a database a sink writes (the user's "database", an upsert
// sink's), no Kafka transaction on a sink's topic -- and no timer of a closed (cancelled) sink task
// fired `kTimerBound` or more after the task was closed (a retry loop its close() never stopped:
// engine/connectors/sink.h, SinkContext::after).
//
// Asked for by name only (a scenario's "oracles", the testkit's JobOptions::oracles): what a
// crashed attempt left open stays open in the models (a real store times it out, or a lifecycle
// rule removes it), so a correct sink may leave an upload or a transaction of a crashed attempt
// behind.
//
// A job that fails as the scenario expects ({"job_failure": ...}): what it left open is reported,
// not judged (its last attempt's pre-committed transactions await a restore, Flink's committer
// being gone); its closed tasks' timers are judged as always.
//
// Does not check: anything about the output; leaks in systems the sinks do not write.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "oracles/oracle.h"

namespace eosim::oracles {

class NoLeaksOracle final : public Oracle {
public:
    static constexpr sim::Duration kTimerBound = sim::Duration::seconds(5);

    // `open_at_end` lists what is still open ("" when nothing is).
    explicit NoLeaksOracle(std::function<std::string()> open_at_end)
        : open_at_end_(std::move(open_at_end)) {}
    const char* name() const override { return "no_leaks"; }
    Verdict verdict() const override;
    void closed_sink_timer_fired(sim::Time t, const std::string& vertex, int32_t subtask,
                                 sim::Time closed_at) override;
    // The job failed as the scenario expects (OracleRunHooks::on_job_failed): what is open is
    // reported, not judged.
    void expect_failure() { failure_expected_ = true; }

private:
    std::function<std::string()> open_at_end_;
    int64_t closed_timers_ = 0;  // timers of closed sink tasks that fired
    int64_t late_timers_ = 0;    // of those, kTimerBound or more after the close
    std::optional<std::string> first_late_;
    bool failure_expected_ = false;
};

}  // namespace eosim::oracles
