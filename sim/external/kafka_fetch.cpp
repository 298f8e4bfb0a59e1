// The Kafka model's reads: read_committed readers up to the last stable offset (skipping aborted
// transactions' records), read_uncommitted readers up to the high watermark, and the committed
// views oracles walk (records one by one, key/value column batches, a summarised read).
#include <algorithm>

#include "sim/external/kafka.h"

namespace eosim::sim::external {

int64_t KafkaCluster::last_stable_offset(const std::string& topic, int32_t partition) const {
    const Partition* p = find_partition(topic, partition);
    return p == nullptr ? 0 : last_stable_offset(*p);
}

int64_t KafkaCluster::last_stable_offset(const Partition& p) {
    if (p.open_first_offsets.empty()) return static_cast<int64_t>(p.log.size());
    return p.open_first_offsets.begin()->first;
}

KafkaError KafkaCluster::readable(NodeId caller, const std::string& topic, int32_t partition,
                                  Isolation isolation, const Partition** p, int64_t* bound) const {
    if (KafkaError e = reachable(caller); e != KafkaError::none) return e;
    *p = find_partition(topic, partition);
    if (*p == nullptr) return KafkaError::unknown_topic;
    *bound = end_offset(**p, isolation);
    return KafkaError::none;
}

ReadResult KafkaCluster::read(NodeId caller, const std::string& topic, int32_t partition,
                              int64_t from_offset, size_t max_records, Isolation isolation) const {
    ReadResult result;
    result.next_offset = from_offset;
    const Partition* p = nullptr;
    int64_t bound = 0;
    result.error = readable(caller, topic, partition, isolation, &p, &bound);
    if (result.error != KafkaError::none) return result;
    // At most this many entries come back: one allocation per read.
    const int64_t first = std::max<int64_t>(from_offset, 0);
    if (first < bound)
        result.entries.reserve(std::min(max_records, static_cast<size_t>(bound - first)));
    auto collect = [&result](const ReadResult::Entry& entry) { result.entries.push_back(entry); };
    result.next_offset = visit_entries(*p, bound, from_offset, max_records, isolation, collect);
    return result;
}

int64_t KafkaCluster::end_offset(const std::string& topic, int32_t partition,
                                 Isolation isolation) const {
    const Partition* p = find_partition(topic, partition);
    return p == nullptr ? 0 : end_offset(*p, isolation);
}

int64_t KafkaCluster::end_offset(const Partition& p, Isolation isolation) const {
    // The negative control: read_committed readers are let through to the high watermark.
    if (isolation == Isolation::read_uncommitted || options_.read_committed_ignores_lso) {
        return static_cast<int64_t>(p.log.size());
    }
    return last_stable_offset(p);
}

std::vector<KafkaRecord> KafkaCluster::committed_records(const std::string& topic) const {
    std::vector<KafkaRecord> out;
    out.reserve(committed_count(topic));
    for_each_committed(topic, [&out](const KafkaRecord& record) { out.push_back(record); });
    return out;
}

void KafkaCluster::for_each_committed(const std::string& topic,
                                      const std::function<void(const KafkaRecord&)>& visit) const {
    auto it = topics_.find(topic);
    if (it == topics_.end()) return;
    for (const Partition& p : it->second) {
        for (const Entry& entry : p.log) {
            if (entry_state(entry.transaction) == TxnState::committed) visit(entry.record);
        }
    }
}

KafkaCluster::CommittedReadSummary KafkaCluster::read_committed_summary(NodeId caller,
                                                                        const std::string& topic,
                                                                        int32_t partition,
                                                                        int64_t from_offset) const {
    CommittedReadSummary summary;
    summary.next_offset = from_offset;
    const Partition* p = nullptr;
    int64_t bound = 0;
    summary.error = readable(caller, topic, partition, Isolation::read_committed, &p, &bound);
    if (summary.error != KafkaError::none) return summary;
    const int64_t begin = std::max<int64_t>(from_offset, 0);
    // Entries of one transaction come in runs: its state is looked up once a run.
    int64_t last_transaction = -1;
    TxnState last_state = TxnState::committed;  // a plain append's
    // A poll reads a dozen entries a partition: small ranges.
    for_each_decoded_range<32>(
        static_cast<size_t>(begin), static_cast<size_t>(std::max(begin, bound)),
        [&](size_t at, std::span<int64_t> transactions) {
            for (size_t i = 0; i < transactions.size(); ++i) {
                if (transactions[i] != last_transaction) {
                    last_transaction = transactions[i];
                    last_state = entry_state(last_transaction);
                }
                if (last_state == TxnState::aborted) continue;  // a read_committed reader skips it
                ++summary.entries;
                if (last_state != TxnState::committed && !summary.first_uncommitted) {
                    const Entry entry = p->log[at + i];
                    summary.first_uncommitted = ReadResult::Entry{static_cast<int64_t>(at + i),
                                                                  entry.record, entry.transaction};
                }
            }
        },
        p->log.transactions());
    summary.next_offset = std::max(from_offset, std::max(begin, bound));
    return summary;
}

void KafkaCluster::for_each_committed_batch(const std::string& topic,
                                            const CommittedColumns& visit) const {
    auto it = topics_.find(topic);
    if (it == topics_.end()) return;
    // Entries of one transaction come in runs: its state is looked up once a run.
    int64_t last_transaction = -1;
    bool last_committed = true;
    for (const Partition& p : it->second) {
        for_each_decoded_range(
            0, p.log.size(),
            [&](size_t, std::span<int64_t> keys, std::span<int64_t> values,
                std::span<int64_t> transactions) {
                size_t kept = 0;  // the committed entries, moved to the front of the range
                for (size_t i = 0; i < keys.size(); ++i) {
                    if (transactions[i] != last_transaction) {
                        last_transaction = transactions[i];
                        last_committed = entry_state(last_transaction) == TxnState::committed;
                    }
                    if (!last_committed) continue;
                    keys[kept] = keys[i];
                    values[kept] = values[i];
                    ++kept;
                }
                if (kept > 0) visit(keys.first(kept), values.first(kept));
            },
            p.log.keys(), p.log.values(), p.log.transactions());
    }
}

size_t KafkaCluster::committed_count(const std::string& topic) const {
    size_t count = 0;
    for_each_committed(topic, [&count](const KafkaRecord&) { ++count; });
    return count;
}

std::vector<int64_t> KafkaCluster::open_transactions(const std::string& topic,
                                                     int32_t partition) const {
    std::vector<int64_t> out;
    if (const Partition* p = find_partition(topic, partition)) {
        for (const auto& [offset, transaction] : p->open_first_offsets) out.push_back(transaction);
    }
    return out;
}

}  // namespace eosim::sim::external
