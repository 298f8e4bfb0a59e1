#include "scenarios/run/anomaly_table.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "engine/connectors/sink_registry.h"
#include "oracles/output_comparison.h"
#include "sim/fault_plan.h"

namespace eosim::scenarios {

namespace {

using oracles::OutputComparison;
using oracles::RecordCount;
using sim::external::TransactionView;
using sim::external::TxnState;

constexpr int64_t kNeverWritten =
    -2;  // a group's transaction: no transaction of the topic held the records
constexpr int64_t kPlainAppend = -1;  // the broker's transaction of a plain append
constexpr size_t kExamplesMax = 3;
constexpr size_t kFaultsMax = 6;

// The checkpoint a Kafka sink named its transaction after: the last part of `prefix-subtask-N`.
int64_t checkpoint_of(const std::string& transactional_id) {
    const size_t dash = transactional_id.rfind('-');
    if (dash == std::string::npos || dash + 1 == transactional_id.size()) return -1;
    const std::string tail = transactional_id.substr(dash + 1);
    if (!std::all_of(tail.begin(), tail.end(), [](char c) { return c >= '0' && c <= '9'; }) ||
        tail.size() > 15)
        return -1;
    return std::stoll(tail);
}

std::string outcome_of(const TransactionView& view) {
    if (view.state == TxnState::committed) return "committed";
    if (is_open(view.state)) return "open at the end";
    return view.expired ? "expired" : "aborted";
}

// The faults that fired and the deployments that ran within the group's [from_s, to_s].
void add_context(AnomalyGroup& g, const RunResult& result) {
    for (const sim::FiredFault& fault : result.faults) {
        const double at = fault.at.seconds();
        if (at < g.from_s || at > g.to_s || fault.skipped) continue;
        if (g.faults.size() == kFaultsMax) {
            g.faults.emplace_back("...");
            break;
        }
        g.faults.push_back(sim::seconds_text(fault.at) + " " + sim::to_string(fault.kind) + ": " +
                           fault.action);
    }
    for (const DeploymentSpan& d : result.deployments) {
        if (d.begin_s <= g.to_s && (d.end_s < 0 || d.end_s >= g.from_s))
            g.deployments.push_back(d.name);
    }
}

// Groups one sink's differing records by the Kafka transaction that lost or duplicated them.
class KafkaGrouping {
public:
    KafkaGrouping(const sim::external::KafkaCluster& kafka, std::string sink, sim::Time end)
        : kafka_(kafka), sink_(std::move(sink)), end_(end) {}

    void add(const std::string& topic, const std::vector<RecordCount>& differing, bool duplicates) {
        std::map<std::pair<int64_t, int64_t>, std::vector<int64_t>>
            copies;  // (key, value) -> transactions, in log order
        for (const RecordCount& c : differing) copies[{c.record.key, c.record.value}];
        kafka_.for_each_entry(topic, [&](int32_t, const sim::external::ReadResult::Entry& e) {
            if (auto it = copies.find({e.record.key, e.record.value}); it != copies.end())
                it->second.push_back(e.transaction);
        });
        for (const RecordCount& c : differing) {
            std::vector<int64_t>& held = copies[{c.record.key, c.record.value}];
            if (c.actual > c.expected && duplicates) attribute_duplicates(c, held);
            if (c.actual < c.expected) attribute_losses(c, held);
        }
    }

    void into(std::vector<AnomalyGroup>& groups, const RunResult& result) const {
        for (const auto& [key, group] : groups_) {
            AnomalyGroup g = group;
            const int64_t transaction = key.second;
            g.where = transaction == kNeverWritten  ? "never written to the topic"
                      : transaction == kPlainAppend ? "plain appends (no transaction)"
                                                    : "";
            if (transaction >= 0) describe_transaction(g, kafka_.transaction_view(transaction));
            if (g.from_s >= 0) add_context(g, result);
            groups.push_back(std::move(g));
        }
    }

private:
    bool committed(int64_t transaction) const {
        return transaction < 0 || kafka_.transaction_state(transaction) == TxnState::committed;
    }
    double ended_s(int64_t transaction) const {
        if (transaction < 0) return 0;
        const sim::Time ended = kafka_.transaction_view(transaction).ended;
        return (ended == sim::Time::never() ? end_ : ended).seconds();
    }
    // The committed copies beyond the expected count, the later commits: a replay committed again.
    void attribute_duplicates(const RecordCount& c, std::vector<int64_t> held) {
        std::erase_if(held, [this](int64_t t) { return !committed(t); });
        std::stable_sort(held.begin(), held.end(),
                         [this](int64_t a, int64_t b) { return ended_s(a) < ended_s(b); });
        for (size_t i = static_cast<size_t>(c.expected); i < held.size(); ++i)
            note("duplicated", held[i], c);
    }
    // The missing copies, to the aborted or open transactions that held them, the rest never
    // written.
    void attribute_losses(const RecordCount& c, const std::vector<int64_t>& held) {
        int64_t missing = c.expected - c.actual;
        for (int64_t t : held) {
            if (missing == 0) break;
            if (committed(t)) continue;
            note("lost", t, c);
            --missing;
        }
        for (; missing > 0; --missing) note("lost", kNeverWritten, c);
    }
    void note(const char* kind, int64_t transaction, const RecordCount& c) {
        AnomalyGroup& g = groups_[{kind, transaction}];
        g.sink = sink_;
        g.kind = kind;
        ++g.records;
        if (g.examples.size() < kExamplesMax) g.examples.push_back(OutputComparison::describe(c));
    }
    void describe_transaction(AnomalyGroup& g, const TransactionView& view) const {
        g.transaction = view.transactional_id;
        g.checkpoint = checkpoint_of(view.transactional_id);
        g.where = outcome_of(view) + " transaction";
        g.from_s =
            (view.first_record == sim::Time::never() ? view.started : view.first_record).seconds();
        g.to_s = (view.ended == sim::Time::never() ? end_ : view.ended).seconds();
    }

    const sim::external::KafkaCluster& kafka_;
    std::string sink_;
    sim::Time end_;
    std::map<std::pair<std::string, int64_t>, AnomalyGroup>
        groups_;  // (kind, transaction) -> group
};

AnomalyGroup group_of(const std::string& sink, const char* kind, const char* where) {
    AnomalyGroup g;
    g.sink = sink;
    g.kind = kind;
    g.where = where;
    return g;
}

// A sink without transactions: its differing records by kind.
void plain_groups(const std::string& sink, const std::vector<RecordCount>& differing,
                  bool duplicates, std::vector<AnomalyGroup>& groups) {
    AnomalyGroup lost = group_of(sink, "lost", "records (no transaction known)");
    AnomalyGroup duplicated = group_of(sink, "duplicated", "records (no transaction known)");
    for (const RecordCount& c : differing) {
        AnomalyGroup& g = c.actual < c.expected ? lost : duplicated;
        if (&g == &duplicated && !duplicates) continue;
        g.records += std::abs(c.actual - c.expected);
        if (g.examples.size() < kExamplesMax) g.examples.push_back(OutputComparison::describe(c));
    }
    for (AnomalyGroup* g : {&lost, &duplicated}) {
        if (g->records > 0) groups.push_back(std::move(*g));
    }
}

// A keyed table: its missing, wrong and extra keys.
void table_groups(const std::string& sink, const oracles::TableComparison& c,
                  std::vector<AnomalyGroup>& groups) {
    AnomalyGroup lost = group_of(sink, "lost", "keys missing from the table");
    for (const RecordCount& m : c.missing) {
        ++lost.records;
        if (lost.examples.size() < kExamplesMax)
            lost.examples.push_back("key " + std::to_string(m.record.key));
    }
    AnomalyGroup wrong = group_of(sink, "wrong value", "keys with a stale or over-counted value");
    for (const auto& [expected, found] : c.wrong) {
        ++wrong.records;
        if (wrong.examples.size() < kExamplesMax) {
            wrong.examples.push_back("key " + std::to_string(expected.key) + " holds " +
                                     std::to_string(found) + ", expected " +
                                     std::to_string(expected.value));
        }
    }
    AnomalyGroup extra = group_of(sink, "extra", "keys the model has not");
    for (const engine::Record& e : c.extra) {
        ++extra.records;
        if (extra.examples.size() < kExamplesMax)
            extra.examples.push_back("key " + std::to_string(e.key));
    }
    for (AnomalyGroup* g : {&lost, &wrong, &extra}) {
        if (g->records > 0) groups.push_back(std::move(*g));
    }
}

bool fired(const RunResult& result, const char* oracle) {
    return std::any_of(
        result.verdicts.begin(), result.verdicts.end(),
        [oracle](const OracleVerdict& v) { return v.oracle == oracle && !v.passed; });
}

// Every sink's groups, then the totals and the cap.
void examine_sinks(const AnomalySources& from, RunResult& result, bool duplicates) {
    AnomalyTable& table = result.anomalies;
    table.examined = true;
    std::vector<AnomalyGroup> groups;
    for (const oracles::JudgedSink& judged : from.sinks) {
        const engine::SinkConfig& config = *judged.vertex->sink;
        const std::string& id = judged.vertex->id;
        const engine::SinkOutputShape shape = config.output_shape();
        if (shape != engine::SinkOutputShape::appended) {
            const auto expected = shape == engine::SinkOutputShape::keyed_table
                                      ? from.model.final_table(id)
                                      : oracles::key_counts(from.model.expected_output(id));
            table_groups(id, oracles::TableComparison::of(expected, judged.reader()), groups);
            continue;
        }
        std::vector<RecordCount> differing;
        OutputComparison::of(from.model.expected_output(id), judged.reader(), &differing);
        if (from.kafka != nullptr && !config.kafka_topic().empty()) {
            KafkaGrouping grouping(*from.kafka, id, from.end);
            grouping.add(config.kafka_topic(), differing, duplicates);
            grouping.into(groups, result);
        } else {
            plain_groups(id, differing, duplicates, groups);
        }
    }
    for (const AnomalyGroup& g : groups)
        (g.kind == "duplicated" || g.kind == "extra" ? table.duplicated : table.lost) += g.records;
    if (groups.size() > kAnomalyGroupsMax) {
        // The biggest groups stay; ties in the order found.
        std::stable_sort(
            groups.begin(), groups.end(),
            [](const AnomalyGroup& a, const AnomalyGroup& b) { return a.records > b.records; });
        table.groups_left_out = static_cast<int64_t>(groups.size() - kAnomalyGroupsMax);
        groups.resize(kAnomalyGroupsMax);
    }
    table.groups = std::move(groups);
}

// Every transaction that held records of a Kafka sink's topic: its age at its end against its
// timeout.
void measure_margins(const AnomalySources& from, AnomalyTable& table) {
    std::map<std::string, std::string> sink_of_topic;
    for (const oracles::JudgedSink& judged : from.sinks) {
        if (!judged.vertex->sink->kafka_topic().empty())
            sink_of_topic.emplace(judged.vertex->sink->kafka_topic(), judged.vertex->id);
    }
    if (from.kafka == nullptr || sink_of_topic.empty()) return;
    std::vector<TransactionMargin> margins;
    for (size_t i = 0; i < from.kafka->transaction_count(); ++i) {
        const TransactionView view = from.kafka->transaction_view(static_cast<int64_t>(i));
        if (view.first_record == sim::Time::never() || view.partitions.empty()) continue;
        const auto sink = sink_of_topic.find(view.partitions.front().first);
        if (sink == sink_of_topic.end()) continue;
        const sim::Time ended = view.ended == sim::Time::never() ? from.end : view.ended;
        TransactionMargin m{sink->second,
                            view.transactional_id,
                            checkpoint_of(view.transactional_id),
                            outcome_of(view),
                            static_cast<double>((ended - view.first_record).ns) / 1e6,
                            static_cast<double>(view.timeout.ns) / 1e6};
        ++table.transactions_measured;
        if (m.warned()) ++table.margin_warnings;
        margins.push_back(std::move(m));
    }
    std::stable_sort(margins.begin(), margins.end(),
                     [](const TransactionMargin& a, const TransactionMargin& b) {
                         return a.margin_ms() < b.margin_ms();
                     });
    if (margins.size() > kMarginsMax) margins.resize(kMarginsMax);
    table.margins = std::move(margins);
}

}  // namespace

void find_anomalies(const AnomalySources& from, RunResult& result) {
    const bool exactly_once = fired(result, "exactly_once_output");
    if (exactly_once || fired(result, "at_least_once_output"))
        examine_sinks(from, result, exactly_once);
    measure_margins(from, result.anomalies);
}

}  // namespace eosim::scenarios
