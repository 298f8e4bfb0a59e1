#include "oracles/no_leaks_oracle.h"

#include "engine/connectors/outside_systems.h"
#include "engine/connectors/sink_registry.h"
#include "oracles/oracle_registry.h"
#include "sim/external/database.h"
#include "sim/external/kafka.h"
#include "sim/external/object_store.h"
#include "sim/time.h"

namespace eosim::oracles {

void NoLeaksOracle::closed_sink_timer_fired(sim::Time t, const std::string& vertex, int32_t subtask,
                                            sim::Time closed_at) {
    ++closed_timers_;
    if (t - closed_at < kTimerBound) return;
    ++late_timers_;
    if (!first_late_) {
        first_late_ = "a timer of sink " + vertex + "-" + std::to_string(subtask) + " fired at " +
                      sim::seconds_text(t) + ", its task closed at " +
                      sim::seconds_text(closed_at) + " (a retry loop close() did not stop)";
    }
}

Verdict NoLeaksOracle::verdict() const {
    const std::string open = open_at_end_();
    const std::string timers =
        std::to_string(closed_timers_) + " timer(s) of closed sink tasks fired";
    if (!open.empty() && !failure_expected_)
        return Verdict{false, "left open at the end: " + open + "; " + timers};
    if (first_late_) {
        return Verdict{false, *first_late_ + "; " + std::to_string(late_timers_) +
                                  " such timer(s) " + sim::seconds_text(kTimerBound) +
                                  " or more after the close"};
    }
    const std::string left =
        open.empty() ? "nothing left open"
                     : "the job failed as expected, leaving open (not judged: its pre-committed "
                       "transactions await a restore) " +
                           open;
    return Verdict{true, left + "; " + timers + ", none " + sim::seconds_text(kTimerBound) +
                             " or more after the close"};
}

OracleRegistration no_leaks_registration() {
    return {
        "no_leaks",
        "nothing the sinks opened is left open at the end, no closed sink's timers fire on",
        [](const OracleJobFacts&) { return std::string(); },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            const engine::OutsideSystems* systems = &run.systems;
            std::vector<std::string> topics;
            for (const JudgedSink& judged : run.judged_sinks) {
                if (judged.vertex->sink && !judged.vertex->sink->kafka_topic().empty())
                    topics.push_back(judged.vertex->sink->kafka_topic());
            }
            auto oracle = std::make_unique<NoLeaksOracle>([systems, topics]() -> std::string {
                std::string open;
                auto add = [&open](size_t n, const std::string& what) {
                    if (n != 0) open += (open.empty() ? "" : ", ") + std::to_string(n) + " " + what;
                };
                if (systems->objects != nullptr)
                    add(systems->objects->open_uploads().size(), "multipart upload(s)");
                for (std::string_view name :
                     {engine::kSinkDatabase, engine::kUpsertTargetDatabase}) {
                    if (const sim::external::Database* db = systems->database(name)) {
                        add(db->open_transaction_count(), "transaction(s) in " + std::string(name));
                    }
                }
                for (const std::string& topic : topics) {
                    size_t transactions = 0;
                    for (int32_t p = 0; p < systems->kafka->partitions(topic); ++p) {
                        transactions += systems->kafka->open_transactions(topic, p).size();
                    }
                    add(transactions,
                        "Kafka transaction(s) on " + topic + " (counted per partition)");
                }
                return open;
            });
            NoLeaksOracle* leaks = oracle.get();
            run.hooks.on_job_failed([leaks](const CommittedPrefix&) { leaks->expect_failure(); });
            return oracle;
        }};
}

}  // namespace eosim::oracles
