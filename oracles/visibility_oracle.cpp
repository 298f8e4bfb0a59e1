#include "oracles/visibility_oracle.h"

#include <cstdio>

#include "engine/connectors/sink_registry.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

namespace {
constexpr sim::EventKind kVisibilityPoll{"oracle.visibility_poll"};
}

VisibilityOracle::VisibilityOracle(sim::Scheduler& scheduler,
                                   const sim::external::KafkaCluster& kafka, std::string topic,
                                   sim::Duration poll_interval)
    : scheduler_(scheduler),
      kafka_(kafka),
      topic_(std::move(topic)),
      poll_interval_(poll_interval),
      next_offsets_(static_cast<size_t>(kafka.partitions(topic_)), 0) {}

void VisibilityOracle::start() {
    scheduler_.schedule(poll_interval_, sim::kNoNode, kVisibilityPoll, 0, [this] { poll(); });
}

void VisibilityOracle::poll() {
    for (size_t p = 0; p < next_offsets_.size(); ++p) {
        // What a read_committed read from the last offset on hands out, summarised (no entries
        // built).
        const auto result = kafka_.read_committed_summary(
            kafka_.broker(), topic_, static_cast<int32_t>(p), next_offsets_[p]);
        if (result.error != sim::external::KafkaError::none) continue;
        records_seen_ += result.entries;
        if (result.first_uncommitted && !violation_) {
            const auto& entry = *result.first_uncommitted;
            const auto state = kafka_.transaction_state(entry.transaction);
            char when[32];
            std::snprintf(when, sizeof when, "%.3f", scheduler_.now().seconds());
            violation_ = "at t=" + std::string(when) +
                         "s a read_committed reader saw (key=" + std::to_string(entry.record.key) +
                         ", value=" + std::to_string(entry.record.value) + ") at " + topic_ + "/" +
                         std::to_string(p) + "@" + std::to_string(entry.offset) +
                         " of a transaction that is " +
                         (sim::external::is_open(state) ? "still open" : "aborted");
        }
        next_offsets_[p] = result.next_offset;
    }
    scheduler_.schedule(poll_interval_, sim::kNoNode, kVisibilityPoll,
                        static_cast<uint64_t>(records_seen_), [this] { poll(); });
}

Verdict VisibilityOracle::verdict() const {
    if (violation_) return Verdict{false, *violation_};
    return Verdict{true, std::to_string(records_seen_) +
                             " records read with read_committed, all of committed transactions"};
}

OracleRegistration visibility_registration() {
    return {"visibility",
            "a read_committed reader never sees a record of an open or aborted transaction",
            [](const OracleJobFacts& facts) -> std::string {
                return engine::has_operator(facts.job, engine::OperatorKind::cdc_source)
                           ? "a job reading or writing Kafka"
                           : "";
            },
            [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
                const std::string topic = run.sink().sink->kafka_topic();
                auto oracle =
                    std::make_unique<VisibilityOracle>(run.world.scheduler(), *run.systems.kafka,
                                                       topic.empty() ? run.input_topic : topic);
                VisibilityOracle* visibility = oracle.get();
                run.hooks.on_start([visibility] { visibility->start(); });
                return oracle;
            }};
}

}  // namespace eosim::oracles
