#include "engine/connectors/key_value_sink.h"

#include "engine/connectors/builtin_sinks.h"

#include <algorithm>

namespace eosim::engine {

namespace external = sim::external;

const char* to_string(KeyValueSinkMode mode) {
    switch (mode) {
        case KeyValueSinkMode::dedup: return "dedup";
        case KeyValueSinkMode::incr: return "incr";
        case KeyValueSinkMode::dedup_non_atomic: return "dedup_non_atomic";
    }
    return "unknown";
}

const char* to_string(KeyValueEventId event_id) {
    return event_id == KeyValueEventId::source_offset ? "source_offset" : "record";
}

KeyValueSink::KeyValueSink(KeyValueSinkOptions options, SinkContext& context,
                           external::KeyValueStore& store)
    : options_(std::move(options)), context_(context), store_(store) {}

std::string KeyValueSink::counter_key(const std::string& prefix, int64_t key) {
    return prefix + "count:" + std::to_string(key);
}

std::string KeyValueSink::event_key(const KeyValueSinkOptions& options, const Record& record) {
    if (options.event_id == KeyValueEventId::source_offset) {
        return options.prefix + "seen:" + source_id_text(options.source_topic, record.source_id);
    }
    return options.prefix + "seen:" + std::to_string(record.key) + ":" +
           std::to_string(record.value);
}

std::vector<Record> KeyValueSink::counters(const external::KeyValueStore& store,
                                           const std::string& prefix) {
    std::vector<Record> out;
    const std::string counter_prefix = prefix + "count:";
    for (const auto& [key, value] : store.entries(counter_prefix)) {
        out.push_back(Record{std::stoll(key.substr(counter_prefix.size())), value});
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool KeyValueSink::open(int64_t, const std::vector<RestoredSinkState>&) {
    pending_.clear();
    return true;
}

std::string KeyValueSink::send_pending() {
    size_t sent = 0;
    std::string error;
    for (; sent < pending_.size(); ++sent) {
        const external::KeyValueResult result = send(pending_[sent]);
        if (result.error != external::KeyValueError::none) {
            error = external::to_string(result.error);
            break;
        }
    }
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(sent));
    return error;
}

external::KeyValueResult KeyValueSink::send(const Record& record) {
    const std::string counter = counter_key(options_.prefix, record.key);
    switch (options_.mode) {
        case KeyValueSinkMode::dedup:
            return store_.set_if_absent_then_incrby(context_.node(), event_key(options_, record),
                                                    counter, 1);
        case KeyValueSinkMode::incr: return store_.incrby(context_.node(), counter, 1);
        case KeyValueSinkMode::dedup_non_atomic: {
            const external::KeyValueResult marked =
                store_.setnx(context_.node(), event_key(options_, record), 1);
            if (marked.error != external::KeyValueError::none || !marked.applied)
                return marked;  // failed, or seen
            return store_.incrby(context_.node(), counter,
                                 1);  // a failure here leaves the event marked, not counted
        }
    }
    return {};
}

void KeyValueSink::write(const RecordBatch& records) {
    pending_.insert(pending_.end(), records.begin(), records.end());
    send_pending();  // a failure leaves them pending for the next write or the checkpoint
}

bool KeyValueSink::pre_commit(int64_t, std::string* state, std::string* error) {
    state->clear();
    const std::string failure = send_pending();
    if (pending_.empty()) return true;
    *error = "key-value sink: " + std::to_string(pending_.size()) +
             " record(s) not written at the checkpoint (" + failure + ")";
    return false;
}

}  // namespace eosim::engine

// --- the sink kind "key_values" ---

namespace eosim::engine {

namespace {

class KeyValueSinkConfig final : public SinkConfig {
public:
    explicit KeyValueSinkConfig(KeyValueSinkOptions options) : options_(std::move(options)) {}
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig&) const override {
        return std::make_unique<KeyValueSink>(options_, context, *systems.key_values);
    }
    SinkOutputShape output_shape() const override {
        return options_.event_id == KeyValueEventId::source_offset ? SinkOutputShape::key_counts
                                                                   : SinkOutputShape::keyed_table;
    }
    std::string source_identity_option() const override {
        return options_.event_id == KeyValueEventId::source_offset ? "event_id" : std::string();
    }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        return KeyValueSink::counters(*systems.key_values, options_.prefix);
    }
    std::vector<std::string> claims() const override {
        return {"key prefix \"" + options_.prefix + "\""};
    }

private:
    KeyValueSinkOptions options_;
};

std::shared_ptr<const SinkConfig> configure_key_value_sink(SinkOptions& options,
                                                           const std::string& vertex_id,
                                                           const SinkWorld& world) {
    if (!world.has_system("key_values"))
        options.fail("", "expected a world with a key-value store");
    KeyValueSinkOptions o;
    o.prefix = options.string("prefix", vertex_id + ":");
    o.mode = static_cast<KeyValueSinkMode>(
        options.choice("mode", {"dedup", "incr", "dedup_non_atomic"}, 0));
    o.event_id =
        static_cast<KeyValueEventId>(options.choice("event_id", {"record", "source_offset"}, 0));
    if (o.event_id == KeyValueEventId::source_offset)
        o.source_topic = the_source_topic(options, "event_id", world);
    return std::make_shared<KeyValueSinkConfig>(std::move(o));
}

}  // namespace

void register_key_value_sink(SinkRegistry& registry) {
    registry.add(SinkKind{
        "key_values",
        "Redis-like counters per key: an atomic SETNX-on-event-id + INCRBY script (dedup, "
        "idempotent; event id from the record or its source offset), the two as separate calls "
        "(dedup_non_atomic) or a plain INCRBY (incr; both negative controls)",
        configure_key_value_sink, [](const nlohmann::json& options) {
            if (options.value("mode", "dedup") != "dedup")
                return std::vector<SinkTwin>{};  // already unsafe
            std::vector<SinkTwin> twins = twin_setting(
                options, "mode", "dedup", "incr", "plain_incr",
                "a plain INCRBY without the event-id guard: a replayed record counts twice");
            for (SinkTwin& twin :
                 twin_setting(options, "mode", "dedup", "dedup_non_atomic", "non_atomic_dedup",
                              "SETNX of the event id and INCRBY as two calls: an INCRBY "
                              "lost after its SETNX applied is never counted")) {
                twins.push_back(std::move(twin));
            }
            return twins;
        }});
}

}  // namespace eosim::engine
