#include "oracles/rollback_detector.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "engine/connectors/kafka_sink.h"

namespace eosim::oracles {

namespace {

// True when `committed` is past `restored` on some split (a split the restore does not name
// starts at its beginning).
bool ahead_of(const engine::SourceOffsets& committed, const engine::SourceOffsets& restored) {
    for (const auto& [where, offset] : committed) {
        auto it = restored.find(where);
        if (offset > (it == restored.end() ? 0 : it->second)) return true;
    }
    return false;
}

bool all_digits(std::string_view s) {
    return !s.empty() && s.size() < 19 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

int64_t Rollback::records_re_emitted() const {
    int64_t total = 0;
    for (const RolledBackSink& s : sinks) total += s.records_re_emitted;
    return total;
}

std::string Rollback::describe() const {
    char at[32];
    std::snprintf(at, sizeof at, "%.3fs", at_s);
    std::string text = attempt + " restored " + restored + " at " + at +
                       ", older than checkpoint " + std::to_string(rolled_back_checkpoint) + " (" +
                       rolled_back_deployment + ") whose transactions were committed:";
    for (size_t i = 0; i < sinks.size(); ++i) {
        text += (i == 0 ? " " : ", ") + std::string("sink '") + sinks[i].sink + "' re-emits " +
                std::to_string(sinks[i].records_re_emitted) + " committed records";
    }
    return text;
}

RollbackDetector::RollbackDetector(const sim::external::KafkaCluster* kafka,
                                   const std::vector<const engine::VertexSpec*>& sinks,
                                   Naming naming)
    : kafka_(kafka), naming_(std::move(naming)) {
    if (kafka_ == nullptr) return;
    for (const engine::VertexSpec* v : sinks) {
        const auto* config = dynamic_cast<const engine::KafkaSinkConfig*>(v->sink.get());
        if (config == nullptr ||
            config->options().guarantee != engine::DeliveryGuarantee::exactly_once)
            continue;
        const std::string& prefix = config->options().transactional_id_prefix;
        // A later program that keeps the sink (its uid, so its transactional ids) keeps writing it.
        if (std::any_of(sinks_.begin(), sinks_.end(),
                        [&](const WatchedSink& s) { return s.prefix == prefix; }))
            continue;
        sinks_.push_back(WatchedSink{v->id, prefix, {}});
    }
}

RollbackDetector::WatchedSink* RollbackDetector::sink_of(const std::string& transactional_id,
                                                         int64_t* checkpoint) {
    for (WatchedSink& sink : sinks_) {
        if (!transactional_id.starts_with(sink.prefix + "-")) continue;
        const std::string_view rest =
            std::string_view(transactional_id).substr(sink.prefix.size() + 1);
        const size_t dash = rest.find('-');
        if (dash == std::string_view::npos || !all_digits(rest.substr(0, dash)) ||
            !all_digits(rest.substr(dash + 1)))
            continue;
        *checkpoint = std::stoll(std::string(rest.substr(dash + 1)));
        return &sink;
    }
    return nullptr;
}

void RollbackDetector::checkpoint_completed(sim::Time, int64_t id,
                                            const engine::SourceOffsets& offsets) {
    completed_[id] = offsets;
}

void RollbackDetector::transaction_event(sim::Time, const std::string& transactional_id,
                                         const char* what) {
    int64_t checkpoint = 0;
    WatchedSink* sink = sink_of(transactional_id, &checkpoint);
    if (sink == nullptr) return;
    const std::string_view event = what;
    if (event == "precommitted") {
        precommitted_[transactional_id] = kafka_->open_transaction_of(transactional_id);
        return;
    }
    if (event != "committed") return;
    auto txn = precommitted_.find(transactional_id);
    auto offsets = completed_.find(checkpoint);
    if (txn == precommitted_.end() || txn->second < 0 || offsets == completed_.end()) return;
    sink->commits.push_back(Commit{checkpoint, deployment_, offsets->second,
                                   kafka_->transaction_view(txn->second).records, commits_++});
    precommitted_.erase(txn);
}

void RollbackDetector::restore_started(sim::Time t, int64_t attempt, int64_t id,
                                       const engine::SourceOffsets& offsets) {
    const AttemptNames names = naming_(attempt, id);
    if (names.verification) return;
    deployment_ = names.deployment;
    Rollback rollback{t.seconds(),
                      names.deployment,
                      names.attempt,
                      id == 0 ? "nothing (from scratch)" : names.restored,
                      id,
                      0,
                      "",
                      {}};
    int64_t newest = -1;  // the commit sequence of the newest rolled-back commit over the sinks
    for (WatchedSink& sink : sinks_) {
        auto rolled =
            std::stable_partition(sink.commits.begin(), sink.commits.end(),
                                  [&](const Commit& c) { return !ahead_of(c.offsets, offsets); });
        if (rolled == sink.commits.end()) continue;
        RolledBackSink share{sink.id, 0, "", 0};
        for (auto c = rolled; c != sink.commits.end(); ++c) share.records_re_emitted += c->records;
        const Commit& last = sink.commits.back();  // in commit order: the newest
        share.checkpoint = last.checkpoint;
        share.deployment = last.deployment;
        if (last.sequence > newest) {
            newest = last.sequence;
            rollback.rolled_back_checkpoint = last.checkpoint;
            rollback.rolled_back_deployment = last.deployment;
        }
        sink.commits.erase(rolled, sink.commits.end());
        rollback.sinks.push_back(std::move(share));
    }
    if (!rollback.sinks.empty()) rollbacks_.push_back(std::move(rollback));
}

}  // namespace eosim::oracles
