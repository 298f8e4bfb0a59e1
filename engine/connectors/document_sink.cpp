#include "engine/connectors/document_sink.h"

namespace eosim::engine {

namespace external = sim::external;

const char* to_string(DocumentIdMode mode) {
    switch (mode) {
        case DocumentIdMode::record: return "record";
        case DocumentIdMode::key_versioned: return "key_versioned";
        case DocumentIdMode::generated: return "generated";
    }
    return "unknown";
}

DocumentSink::DocumentSink(DocumentSinkOptions options, SinkContext& context, external::DocumentStore& store)
    : options_(std::move(options)), context_(context), store_(store) {}

external::DocumentWrite DocumentSink::document_for(const Record& record, DocumentIdMode mode) {
    external::DocumentWrite write;
    write.op = external::DocumentOp::index;
    write.fields = {{"key", record.key}, {"value", record.value}};
    switch (mode) {
        case DocumentIdMode::record: write.id = std::to_string(record.key) + ":" + std::to_string(record.value); break;
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

bool DocumentSink::open(int64_t, const std::string&) {
    buffer_.clear();
    return true;
}

void DocumentSink::write(const RecordBatch& records) {
    for (const Record& record : records) buffer_.push_back(document_for(record, options_.id));
    if (static_cast<int32_t>(buffer_.size()) >= options_.batch_records) flush(0);  // failures wait for the next flush
}

std::string DocumentSink::flush(int32_t retries) {
    std::string last_error;
    for (int32_t attempt = 0; attempt <= retries && !buffer_.empty(); ++attempt) {
        const external::BulkResponse response = store_.bulk(context_.node(), options_.index, buffer_);
        if (response.error != external::DocumentError::none) {
            last_error = std::string("bulk request failed: ") + external::to_string(response.error);
            continue;  // the whole buffer stays
        }
        std::vector<external::DocumentWrite> failed;
        for (size_t i = 0; i < response.items.size(); ++i) {
            const external::DocumentError e = response.items[i].error;
            // A version conflict is a stale replay the store absorbed: written, as far as we care.
            if (e == external::DocumentError::none || e == external::DocumentError::conflict) continue;
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
    *error = "document sink: " + std::to_string(buffer_.size()) + " record(s) not written at the checkpoint (" +
             failure + ")";
    return false;
}

}  // namespace eosim::engine
