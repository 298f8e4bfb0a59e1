#include "oracles/freshness_oracle.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "engine/connectors/kafka_sink.h"
#include "engine/vocabulary/protocol_points.h"
#include "oracles/oracle_registry.h"

namespace eosim::oracles {

using sim::external::TxnState;

namespace {

using sim::seconds_text;

}  // namespace

FreshnessOracle::FreshnessOracle(const sim::external::KafkaCluster& kafka, std::string topic,
                                 sim::Duration bound, FaultDuring fault_during,
                                 std::function<sim::Time()> now)
    : kafka_(kafka),
      topic_(std::move(topic)),
      bound_(bound),
      fault_during_(std::move(fault_during)),
      now_(std::move(now)) {}

void FreshnessOracle::checkpoint_triggered(sim::Time t, int64_t checkpoint_id,
                                           engine::SnapshotType) {
    triggered_[checkpoint_id] = t;
}

void FreshnessOracle::checkpoint_aborted(sim::Time t, int64_t, engine::CheckpointFailureReason,
                                         const std::string&) {
    aborted_at_.push_back(t);
}

void FreshnessOracle::transaction_event(sim::Time, const std::string& transactional_id,
                                        const char* what) {
    if (std::string_view(what) != "precommitted") return;
    last_precommitted_ = kafka_.open_transaction_of(transactional_id);
}

void FreshnessOracle::precommitted(sim::Time, int64_t checkpoint_id) {
    if (last_precommitted_ < 0) return;
    awaiting_completion_.push_back(precommitted_.size());
    precommitted_.push_back(Precommitted{last_precommitted_, checkpoint_id});
    checkpoint_of_[last_precommitted_] = checkpoint_id;
    last_precommitted_ = -1;
}

void FreshnessOracle::checkpoint_completed(sim::Time t, int64_t checkpoint_id,
                                           const engine::SourceOffsets&) {
    std::vector<size_t> still;
    for (size_t i : awaiting_completion_) {
        const Precommitted& p = precommitted_[i];
        if (p.checkpoint_id <= checkpoint_id) {
            obligations_.push_back(
                Obligation{p.transaction, t, true,
                           "checkpoint " + std::to_string(checkpoint_id) + " completed"});
        } else {
            still.push_back(i);
        }
    }
    awaiting_completion_ = std::move(still);
}

void FreshnessOracle::restore_started(sim::Time t, int64_t attempt, int64_t checkpoint_id,
                                      const engine::SourceOffsets&) {
    std::set<int64_t> open;
    for (int32_t p = 0; p < kafka_.partitions(topic_); ++p) {
        for (int64_t txn : kafka_.open_transactions(topic_, p)) open.insert(txn);
    }
    const std::string why = "the restore of attempt " + std::to_string(attempt) + " (checkpoint " +
                            std::to_string(checkpoint_id) + ") started";
    for (int64_t txn : open) {
        auto it = checkpoint_of_.find(txn);
        const bool restored =
            it != checkpoint_of_.end() && it->second <= checkpoint_id && checkpoint_id > 0;
        obligations_.push_back(Obligation{txn, t, restored, why});
    }
}

bool FreshnessOracle::checkpoint_aborted_during(sim::Time from, sim::Time to) const {
    return std::any_of(aborted_at_.begin(), aborted_at_.end(),
                       [&](sim::Time t) { return from <= t && t <= to; });
}

std::string FreshnessOracle::partitions_of(const sim::external::TransactionView& view) const {
    std::string partitions;
    for (const auto& [topic, partition] : view.partitions) {
        if (topic != topic_) continue;
        partitions += (partitions.empty() ? "" : ", ") + topic + "/" + std::to_string(partition);
    }
    return partitions;
}

std::string FreshnessOracle::describe_blocking(int64_t transaction, const std::string& what,
                                               sim::Time from, sim::Time until) const {
    const sim::external::TransactionView view = kafka_.transaction_view(transaction);
    return "partition " + partitions_of(view) + " blocked by transaction \"" +
           view.transactional_id + "\" (holding records since " + seconds_text(view.first_record) +
           "): " + what + " at " + seconds_text(from) + ", " +
           (until == sim::Time::never()
                ? "still open at the end (" + seconds_text(now_()) + ")"
                : std::string(view.state == TxnState::committed ? "committed" : "aborted") +
                      " only at " + seconds_text(until)) +
           ": blocked " + seconds_text((until == sim::Time::never() ? now_() : until) - from) +
           " after it, bound " + seconds_text(bound_);
}

Verdict FreshnessOracle::verdict() const {
    const sim::Time end = now_();
    std::vector<std::string> violations;
    int64_t excused_by_faults = 0;
    int64_t excused_by_aborts =
        0;  // (d) windows in which a checkpoint was aborted (and no fault acted)
    // (a) the end of the run.
    if (!failure_expected_ && (finished_ || !fault_during_(end, end))) {
        std::set<int64_t> reported;
        for (int32_t p = 0; p < kafka_.partitions(topic_); ++p) {
            for (int64_t txn : kafka_.open_transactions(topic_, p)) {
                if (!reported.insert(txn).second) continue;
                const auto view = kafka_.transaction_view(txn);
                violations.push_back(
                    "at the end of the run (" + seconds_text(end) + ") partition " + topic_ + "/" +
                    std::to_string(p) + " is blocked by the open transaction \"" +
                    view.transactional_id + "\" holding records since " +
                    seconds_text(view.first_record) + " (for " +
                    seconds_text(end - view.first_record) +
                    "): read_committed consumers wait for the broker's transaction timeout");
            }
        }
    }
    // (b), (c): windows after a completion or a restore.
    for (const Obligation& o : obligations_) {
        const auto view = kafka_.transaction_view(o.transaction);
        if (view.first_record == sim::Time::never()) continue;  // holds nothing: blocks no reader
        const sim::Time deadline = o.from + bound_;
        // Ended in time (a must-commit one aborted is lost data: the output oracles' business).
        if (view.ended <= deadline) continue;
        if (deadline > end) continue;  // the run ended first: (a) judges it
        if (fault_during_(o.from, deadline)) {
            ++excused_by_faults;
            continue;
        }
        violations.push_back(describe_blocking(o.transaction, o.why, o.from, view.ended));
    }
    // (d) held records before its checkpoint was triggered.
    for (const Precommitted& p : precommitted_) {
        const auto view = kafka_.transaction_view(p.transaction);
        auto trig = triggered_.find(p.checkpoint_id);
        if (view.first_record == sim::Time::never() || trig == triggered_.end()) continue;
        if (trig->second <= view.first_record || trig->second - view.first_record <= bound_)
            continue;
        if (fault_during_(view.first_record, trig->second)) {
            ++excused_by_faults;
            continue;
        }
        if (checkpoint_aborted_during(view.first_record, trig->second)) {
            ++excused_by_aborts;
            continue;
        }
        violations.push_back("partition " + partitions_of(view) + " blocked by transaction \"" +
                             view.transactional_id + "\" from its first record at " +
                             seconds_text(view.first_record) + " to the trigger of checkpoint " +
                             std::to_string(p.checkpoint_id) + " at " + seconds_text(trig->second) +
                             ": " + seconds_text(trig->second - view.first_record) +
                             " before a commit could even start, bound " + seconds_text(bound_) +
                             " (is the checkpoint interval above the freshness bound?)");
    }
    if (!violations.empty()) {
        std::string text = std::to_string(violations.size()) +
                           " freshness violation(s); first: " + violations.front();
        return Verdict{false, text};
    }
    std::string excused = std::to_string(excused_by_faults) + " windows excused by faults";
    if (excused_by_aborts > 0)
        excused += ", " + std::to_string(excused_by_aborts) + " by aborted checkpoints";
    return Verdict{
        true, std::to_string(precommitted_.size()) + " pre-committed transactions and " +
                  std::to_string(obligations_.size()) + " commit/abort windows within " +
                  seconds_text(bound_) + " (" + excused + "), " +
                  (failure_expected_ ? "the job failed as expected: what it left open is not judged"
                                     : "nothing open at the end")};
}

OracleRegistration freshness_registration() {
    return {
        "freshness",
        "no transaction blocks read_committed readers longer than the freshness bound without a fault",
        [](const OracleJobFacts& facts) -> std::string {
            for (const engine::VertexSpec& v : facts.job.vertices) {
                const auto* kafka = dynamic_cast<const engine::KafkaSinkConfig*>(v.sink.get());
                if (kafka != nullptr &&
                    kafka->options().guarantee == engine::DeliveryGuarantee::exactly_once)
                    return "";
            }
            return "a Kafka sink with guarantee exactly_once (it judges how long transactions block read_committed readers)";
        },
        [](OracleRunContext& run) -> std::unique_ptr<Oracle> {
            sim::World& world = run.world;
            auto oracle = std::make_unique<FreshnessOracle>(
                *run.systems.kafka, run.sink().sink->kafka_topic(), run.freshness_bound,
                run.fault_effect_during, [&world] { return world.now(); });
            FreshnessOracle* freshness = oracle.get();
            run.hooks.on_job_failed(
                [freshness](const CommittedPrefix&) { freshness->expect_failure(); });
            world.on_point([freshness, &world](const sim::ProtocolPointEvent& event) {
                if (event.point == engine::points::kSinkPrecommitted)
                    freshness->precommitted(world.now(), static_cast<int64_t>(event.detail));
            });
            return oracle;
        }};
}

}  // namespace eosim::oracles
