#include "engine/connectors/document_sink.h"

#include "engine/connectors/builtin_sinks.h"

namespace eosim::engine {

namespace external = sim::external;

const char* to_string(DocumentIdMode mode) {
    switch (mode) {
        case DocumentIdMode::record: return "record";
        case DocumentIdMode::key_versioned: return "key_versioned";
        case DocumentIdMode::generated: return "generated";
        case DocumentIdMode::source_offset: return "source_offset";
    }
    return "unknown";
}

DocumentSink::DocumentSink(DocumentSinkOptions options, SinkContext& context,
                           external::DocumentStore& store)
    : options_(std::move(options)), context_(context), store_(store) {}

external::DocumentWrite DocumentSink::document_for(const Record& record,
                                                   const DocumentSinkOptions& options) {
    external::DocumentWrite write;
    write.op = external::DocumentOp::index;
    write.fields = {{"key", record.key}, {"value", record.value}};
    switch (options.id) {
        case DocumentIdMode::source_offset:
            write.id = source_id_text(options.source_topic, record.source_id);
            break;
        case DocumentIdMode::record:
            write.id = std::to_string(record.key) + ":" + std::to_string(record.value);
            break;
        case DocumentIdMode::key_versioned:
            write.id = std::to_string(record.key);
            write.version_type = external::VersionType::external;
            write.version = record.value;
            break;
        case DocumentIdMode::generated: break;
    }
    return write;
}

Record DocumentSink::record_of(const external::Document& document) {
    const auto field = [&document](const char* name) {
        auto it = document.fields.find(name);
        return it == document.fields.end() ? int64_t{0} : it->second;
    };
    return Record{field("key"), field("value")};
}

bool DocumentSink::open(int64_t, const std::vector<RestoredSinkState>&) {
    buffer_.clear();
    return true;
}

void DocumentSink::write(const RecordBatch& records) {
    for (const Record& record : records) buffer_.push_back(document_for(record, options_));
    if (static_cast<int32_t>(buffer_.size()) >= options_.batch_records)
        flush(0);  // failures wait for the next flush
}

std::string DocumentSink::flush(int32_t retries) {
    std::string last_error;
    for (int32_t attempt = 0; attempt <= retries && !buffer_.empty(); ++attempt) {
        const external::BulkResponse response =
            store_.bulk(context_.node(), options_.index, buffer_);
        if (response.error != external::DocumentError::none) {
            last_error = std::string("bulk request failed: ") + external::to_string(response.error);
            continue;  // the whole buffer stays
        }
        std::vector<external::DocumentWrite> failed;
        for (size_t i = 0; i < response.items.size(); ++i) {
            const external::DocumentError e = response.items[i].error;
            // A version conflict is a stale replay the store absorbed: written, as far as we care.
            if (e == external::DocumentError::none || e == external::DocumentError::conflict)
                continue;
            last_error = std::string("bulk item failed: ") + external::to_string(e);
            failed.push_back(std::move(buffer_[i]));
        }
        buffer_ = std::move(failed);
    }
    return buffer_.empty() ? std::string() : last_error;
}

bool DocumentSink::pre_commit(int64_t, std::string* state, std::string* error) {
    state->clear();
    const std::string failure = flush(options_.item_retries);
    if (failure.empty()) return true;
    *error = "document sink: " + std::to_string(buffer_.size()) +
             " record(s) not written at the checkpoint (" + failure + ")";
    return false;
}

}  // namespace eosim::engine

// --- the sink kind "documents" ---

namespace eosim::engine {

namespace {

class DocumentSinkConfig final : public SinkConfig {
public:
    explicit DocumentSinkConfig(DocumentSinkOptions options) : options_(std::move(options)) {}
    std::unique_ptr<Sink> make(SinkContext& context, const OutsideSystems& systems,
                               const RuntimeConfig&) const override {
        return std::make_unique<DocumentSink>(options_, context, *systems.documents);
    }
    SinkOutputShape output_shape() const override {
        return options_.id == DocumentIdMode::key_versioned ? SinkOutputShape::keyed_table
                                                            : SinkOutputShape::appended;
    }
    std::string output_units() const override {
        return "documents in index \"" + options_.index + "\"";
    }
    std::vector<Record> read_output(const OutsideSystems& systems) const override {
        std::vector<Record> out;
        for (const external::Document& doc : systems.documents->documents(options_.index)) {
            out.push_back(DocumentSink::record_of(doc));
        }
        return out;
    }
    std::vector<std::string> claims() const override {
        return {"document index \"" + options_.index + "\""};
    }
    std::string source_identity_option() const override {
        return options_.id == DocumentIdMode::source_offset ? "id" : std::string();
    }

private:
    DocumentSinkOptions options_;
};

std::shared_ptr<const SinkConfig> configure_document_sink(SinkOptions& options,
                                                          const std::string& vertex_id,
                                                          const SinkWorld& world) {
    if (!world.has_system("documents")) options.fail("", "expected a world with a document store");
    DocumentSinkOptions o;
    o.index = options.string("index", vertex_id);
    if (o.index.empty()) options.fail("index", "expected a non-empty index name");
    o.id = static_cast<DocumentIdMode>(
        options.choice("id", {"record", "key_versioned", "generated", "source_offset"}, 0));
    if (o.id == DocumentIdMode::source_offset)
        o.source_topic = the_source_topic(options, "id", world);
    o.batch_records =
        static_cast<int32_t>(options.integer("batch_records", o.batch_records, 1, 1'000'000));
    o.item_retries = static_cast<int32_t>(options.integer("item_retries", o.item_retries, 0, 1000));
    return std::make_shared<DocumentSinkConfig>(std::move(o));
}

}  // namespace

void register_document_sink(SinkRegistry& registry) {
    registry.add(SinkKind{
        "documents",
        "Elasticsearch-like document index, bulk writes flushed at the checkpoint; _id from the "
        "source record's topic-partition-offset or from the record (idempotent), key-versioned, or "
        "generated (the negative control: duplicates)",
        configure_document_sink, [](const nlohmann::json& options) {
            std::vector<SinkTwin> twins =
                twin_setting(options, "id", "record", "generated", "generated_ids",
                             "a new _id per write: a replayed record is a second document");
            if (options.value("id", "record") == "source_offset") {
                for (SinkTwin& twin :
                     twin_setting(options, "id", "record", "record", "record_ids",
                                  "_id \"<key>:<value>\": two events with equal key "
                                  "and value share one document")) {
                    twins.push_back(std::move(twin));
                }
            }
            return twins;
        }});
}

}  // namespace eosim::engine
