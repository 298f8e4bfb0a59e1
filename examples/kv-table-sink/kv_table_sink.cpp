#include "kv_table_sink.h"

#include <map>
#include <utility>

#include "engine/connectors/sink_points.h"

namespace kv_table_example {

namespace {

using eosim::engine::Record;
using eosim::sim::external::KeyValueError;
using eosim::sim::external::KeyValueStore;

class KvTableSink final : public eosim::engine::Sink {
public:
    KvTableSink(const KvTableOptions& options, eosim::engine::SinkContext& context,
                KeyValueStore& store)
        : options_(options), context_(context), store_(store) {}

    bool open(int64_t, const std::vector<eosim::engine::RestoredSinkState>&) override {
        return true;
    }  // nothing restored: the replay rewrites

    void write(const eosim::engine::RecordBatch& records) override {
        for (const Record& r : records) {
            if (options_.slip == KvTableSlip::dedup_by_key_set) {
                std::erase_if(pending_, [&](const auto& entry) {
                    return key_set(entry.first) == key_set(r.key);
                });
            }
            pending_[r.key] = r.value;  // the latest version per key wins
        }
        flush();
    }

    bool pre_commit(int64_t checkpoint_id, std::string* state, std::string* error) override {
        flush();
        if (!pending_.empty()) {
            *error = std::to_string(pending_.size()) + " key(s) not yet in the store";
            return false;
        }
        state->clear();
        eosim::engine::announce_point(context_, eosim::engine::sink_points::kPrecommitted,
                                      checkpoint_id);
        return true;
    }

    void checkpoint_complete(int64_t) override {}
    bool settled() const override { return true; }

private:
    // The slip's identity of a key taken as a composite (key / 2, key % 2): the set of its parts.
    static std::pair<int64_t, int64_t> key_set(int64_t key) {
        const int64_t a = key / 2;
        const int64_t b = key % 2;
        return a < b ? std::pair{a, b} : std::pair{b, a};
    }

    // Sends the pending keys in order; stops at the first failure (the rest stay pending).
    void flush() {
        int64_t sent = 0;
        while (!pending_.empty()) {
            const auto [key, version] = *pending_.begin();
            if (!put(options_.prefix + std::to_string(key), version)) break;
            pending_.erase(pending_.begin());
            ++sent;
        }
        if (sent > 0)
            eosim::engine::announce_point(context_, eosim::engine::sink_points::kFlushed, sent);
    }

    // One guarded upsert; false when the store did not take it.
    bool put(const std::string& key, int64_t version) {
        if (options_.slip == KvTableSlip::no_version_guard)
            return store_.set(context_.node(), key, version).error == KeyValueError::none;
        for (int attempt = 0; attempt < 3; ++attempt) {
            const auto current = store_.get(context_.node(), key);
            if (current.error != KeyValueError::none) return false;
            if (current.value && *current.value >= version)
                return true;  // as new or newer there already
            if (options_.slip == KvTableSlip::check_then_set)
                return store_.set(context_.node(), key, version).error == KeyValueError::none;
            const auto cas = store_.compare_and_set(context_.node(), key, current.value, version);
            if (cas.error != KeyValueError::none) return false;
            if (cas.applied) return true;
        }
        return false;  // another writer kept changing it: try again later
    }

    const KvTableOptions& options_;
    eosim::engine::SinkContext& context_;
    KeyValueStore& store_;
    std::map<int64_t, int64_t> pending_;  // key -> version not yet in the store
};

}  // namespace

std::unique_ptr<eosim::engine::Sink> KvTableConfig::make(
    eosim::engine::SinkContext& context, const eosim::engine::OutsideSystems& systems,
    const eosim::engine::RuntimeConfig&) const {
    return std::make_unique<KvTableSink>(options_, context, *systems.key_values);
}

std::vector<Record> KvTableConfig::read_output(const eosim::engine::OutsideSystems& systems) const {
    std::vector<Record> out;
    for (const auto& [key, value] : systems.key_values->entries(options_.prefix)) {
        out.push_back(Record{std::stoll(key.substr(options_.prefix.size())), value});
    }
    return out;
}

eosim::engine::SinkKind kv_table_kind(const std::string& name, KvTableSlip slip) {
    return eosim::engine::SinkKind{
        name, "a keyed table in the key-value store, idempotent guarded upserts (example)",
        [slip](eosim::engine::SinkOptions& options, const std::string&,
               const eosim::engine::SinkWorld& world) {
            if (!world.has_system("key_values"))
                options.fail("prefix", "a world with the key-value store \"key_values\"");
            KvTableOptions o;
            o.prefix = options.string("prefix", "table:");
            o.slip = slip;
            return std::make_shared<KvTableConfig>(std::move(o));
        }};
}

}  // namespace kv_table_example
