// What each outside system holds at the end of a run, as a digest: the `content_digest` of every
// model of sim/external/. A run folds them into its state hash beside the trace hash
// (scenarios/outside_system_registry.h), so two runs whose systems hold different data never share
// both hashes even when the events that led there hashed alike (a store generating its own ids).
//
// Each digest walks ordered containers only (std::map, logs by offset), mixes a tag and the size
// of every container before its elements, and hashes strings with digest_of, so equal contents
// give equal digests on every build. Not covered: call logs, statistics, latency streams, timers
// (behaviour, which the trace hash covers), and a document store's or object store's pending
// asynchronous answers.
//
// Also here: Kafka's walk over every entry of a topic, for reports that follow records to their
// transactions (scenarios/anomalies.h).
#include <span>

#include "sim/external/append_store.h"
#include "sim/external/coordination_service.h"
#include "sim/external/database.h"
#include "sim/external/document_store.h"
#include "sim/external/kafka.h"
#include "sim/external/key_value_store.h"
#include "sim/external/object_store.h"
#include "sim/trace.h"

namespace eosim::sim::external {

namespace {

uint64_t mix_text(uint64_t h, std::string_view text) { return digest_mix(h, digest_of(text)); }

uint64_t mix_signed(uint64_t h, int64_t value) {
    return digest_mix(h, static_cast<uint64_t>(value));
}

uint64_t mix_record(uint64_t h, const KafkaRecord& r) {
    return mix_signed(mix_signed(mix_signed(h, r.key), r.value), r.timestamp);
}

// What a reader sees of an entry's transaction, as a number: open 0, committed 1, aborted 2 (the
// states of an open transaction are one to a reader, and to the digest).
uint64_t outcome_code(TxnState state) {
    if (state == TxnState::committed) return 1;
    return state == TxnState::aborted ? 2 : 0;
}

}  // namespace

uint64_t KafkaCluster::content_digest() const {
    uint64_t h = mix_text(0, "kafka");
    h = digest_mix(h, topics_.size());
    for (const auto& [topic, partitions] : topics_) {
        h = digest_mix(mix_text(h, topic), partitions.size());
        for (const Partition& p : partitions) {
            h = digest_mix(h, p.log.size());
            for_each_decoded_range(
                0, p.log.size(),
                [&](size_t, std::span<int64_t> keys, std::span<int64_t> values,
                    std::span<int64_t> transactions) {
                    for (size_t i = 0; i < keys.size(); ++i) {
                        h = mix_signed(mix_signed(h, keys[i]), values[i]);
                        h = digest_mix(h, outcome_code(entry_state(transactions[i])));
                    }
                },
                p.log.keys(), p.log.values(), p.log.transactions());
        }
    }
    return h;
}

void KafkaCluster::for_each_entry(
    const std::string& topic,
    const std::function<void(int32_t, const ReadResult::Entry&)>& visit) const {
    const auto it = topics_.find(topic);
    if (it == topics_.end()) return;
    for (size_t partition = 0; partition < it->second.size(); ++partition) {
        const PartitionLog& log = it->second[partition].log;
        for (size_t offset = 0; offset < log.size(); ++offset) {
            const Entry entry = log[offset];
            visit(static_cast<int32_t>(partition),
                  ReadResult::Entry{static_cast<int64_t>(offset), entry.record, entry.transaction});
        }
    }
}

uint64_t AppendStore::content_digest() const {
    uint64_t h = digest_mix(mix_text(0, "append-store"), records_.size());
    for (const KafkaRecord& r : records_) h = mix_record(h, r);
    return h;
}

uint64_t DocumentStore::content_digest() const {
    uint64_t h = digest_mix(mix_text(0, "documents"), indices_.size());
    for (const auto& [name, index] : indices_) {
        h = digest_mix(mix_text(h, name), index.size());
        for (const auto& [id, document] : index) {
            h = mix_signed(mix_text(h, id), document.version);
            h = digest_mix(h, document.fields.size());
            for (const auto& [field, value] : document.fields)
                h = mix_signed(mix_text(h, field), value);
        }
    }
    return h;
}

uint64_t KeyValueStore::content_digest() const {
    uint64_t h = digest_mix(mix_text(0, "key_values"), entries_.size());
    for (const auto& [key, entry] : entries_)
        h = mix_signed(mix_signed(mix_text(h, key), entry.value), entry.expires_at.ns);
    return h;
}

uint64_t ObjectStore::content_digest() const {
    uint64_t h = digest_mix(mix_text(0, "objects"), objects_.size());
    for (const auto& [path, bytes] : objects_) h = mix_text(mix_text(h, path), bytes);
    h = digest_mix(h, uploads_.size());
    for (const auto& [id, upload] : uploads_) {
        h = digest_mix(mix_text(mix_signed(h, id), upload.path), upload.parts.size());
        for (const auto& [part, bytes] : upload.parts) h = mix_text(mix_signed(h, part), bytes);
    }
    return h;
}

uint64_t Database::content_digest() const {
    uint64_t h = digest_mix(mix_text(0, "database"), tables_.size());
    for (const auto& [table, rows] : tables_) {
        h = digest_mix(mix_text(h, table), rows.size());
        for (const auto& [key, row] : rows) {
            h = mix_signed(mix_signed(mix_signed(h, key), row.value), row.version);
            h = digest_mix(h, row.deleted ? 1 : 0);
        }
    }
    return h;
}

uint64_t CoordinationService::content_digest() const {
    uint64_t h = digest_mix(mix_text(0, "coordination"), nodes_.size());
    for (const auto& [path, node] : nodes_) {
        h = mix_text(mix_text(h, path), node.value);
        h = mix_signed(mix_signed(h, node.version), node.created_zxid);
    }
    return h;
}

}  // namespace eosim::sim::external
